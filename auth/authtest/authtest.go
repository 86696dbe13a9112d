// Package authtest runs a real OIDC issuer for tests: an RSA key, a
// discovery document and a JWKS served over HTTP, and tokens signed per
// test user.
package authtest

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/casegraph/casegraph/auth"
)

// Issuer is a test OIDC issuer served over HTTP.
type Issuer struct {
	// URL is the issuer URL, the `iss` of its tokens.
	URL string
	// KeysURL is its JWKS URL.
	KeysURL string

	key   *rsa.PrivateKey
	keyID string
	srv   *httptest.Server
	down  atomic.Bool
	hits  atomic.Int64
	tb    testing.TB
}

// NewIssuer starts an issuer, closed when the test ends.
func NewIssuer(tb testing.TB) *Issuer {
	tb.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	is := &Issuer{key: key, keyID: "test-key-1", tb: tb}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		if is.unavailable(w) {
			return
		}
		writeJSON(w, map[string]any{
			"issuer":                                is.URL,
			"jwks_uri":                              is.KeysURL,
			"id_token_signing_alg_values_supported": []string{"RS256"},
			"authorization_endpoint":                is.URL + "/authorize",
			"token_endpoint":                        is.URL + "/token",
		})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, r *http.Request) {
		if is.unavailable(w) {
			return
		}
		writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: is.keyID, Algorithm: "RS256", Use: "sig"}}})
	})
	is.srv = httptest.NewServer(mux)
	tb.Cleanup(is.srv.Close)
	is.URL = is.srv.URL
	is.KeysURL = is.srv.URL + "/keys"
	return is
}

func (is *Issuer) unavailable(w http.ResponseWriter) bool {
	is.hits.Add(1)
	if is.down.Load() {
		http.Error(w, "down for the test", http.StatusServiceUnavailable)
		return true
	}
	return false
}

// SetDown makes the discovery and key endpoints fail (true) or work again.
func (is *Issuer) SetDown(down bool) { is.down.Store(down) }

// Hits counts the requests the issuer has served.
func (is *Issuer) Hits() int64 { return is.hits.Load() }

// Token returns a valid token for userID, expiring in an hour.
func (is *Issuer) Token(userID string) string {
	return is.Sign(jwt.Claims{Subject: userID}, nil)
}

// Sign signs claims with the issuer's key. Issuer, IssuedAt and Expiry are
// filled in when zero; extra claims are merged in (a nil value in extra
// removes nothing: use SignRaw for tokens without a claim).
func (is *Issuer) Sign(claims jwt.Claims, extra map[string]any) string {
	is.tb.Helper()
	now := time.Now()
	if claims.Issuer == "" {
		claims.Issuer = is.URL
	}
	if claims.IssuedAt == nil {
		claims.IssuedAt = jwt.NewNumericDate(now)
	}
	if claims.Expiry == nil {
		claims.Expiry = jwt.NewNumericDate(now.Add(time.Hour))
	}
	tok, err := auth.SignToken(is.key, is.keyID, claims, extra)
	if err != nil {
		is.tb.Fatal(err)
	}
	return tok
}

// SignRaw signs exactly the given claims with the issuer's key.
func (is *Issuer) SignRaw(claims map[string]any) string {
	is.tb.Helper()
	tok, err := auth.SignToken(is.key, is.keyID, jwt.Claims{}, claims)
	if err != nil {
		is.tb.Fatal(err)
	}
	return tok
}

// SignWithOtherKey signs claims for this issuer with a key it never
// published: the signature cannot verify.
func (is *Issuer) SignWithOtherKey(userID string) string {
	is.tb.Helper()
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		is.tb.Fatal(err)
	}
	now := time.Now()
	tok, err := auth.SignToken(other, is.keyID, jwt.Claims{
		Issuer: is.URL, Subject: userID, IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(time.Hour)),
	}, nil)
	if err != nil {
		is.tb.Fatal(err)
	}
	return tok
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
