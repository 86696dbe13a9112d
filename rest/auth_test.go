package rest_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/casegraph/casegraph/auth/authtest"
	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
)

func TestBadTokens(t *testing.T) {
	env := servertest.Start(t, db.SQLite)
	is := env.Issuer
	stranger := authtest.NewIssuer(t)
	past := time.Now().Add(-2 * time.Hour)
	tests := []struct {
		name   string
		header string
		want   string
	}{
		{"no header", "", "Authorization token is missing"},
		{"not bearer", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Authorization token is missing"},
		{"empty bearer", "Bearer ", "Authorization token is missing"},
		{"garbage", "Bearer not-a-jwt", "Token parse failure: "},
		{"no issuer", "Bearer " + is.SignRaw(map[string]any{"sub": "alice", "exp": time.Now().Add(time.Hour).Unix()}),
			"Authorization token has no issuer and cannot be verified"},
		{"unknown issuer", "Bearer " + stranger.Token("alice"),
			"JWT token has invalid issuer '" + stranger.URL + "', please use another identity provider"},
		{"expired", "Bearer " + is.Sign(jwt.Claims{Subject: "alice", IssuedAt: jwt.NewNumericDate(past), Expiry: jwt.NewNumericDate(past.Add(time.Hour))}, nil),
			"JWT Token failure: token is expired"},
		{"no expiry", "Bearer " + is.SignRaw(map[string]any{"iss": is.URL, "sub": "alice"}),
			"Token cannot be verified: the token has no expiry ('exp' claim)"},
		{"no subject", "Bearer " + is.SignRaw(map[string]any{"iss": is.URL, "exp": time.Now().Add(time.Hour).Unix()}),
			"Invalid token: claim 'sub' is missing"},
		{"NUL in subject", "Bearer " + is.SignRaw(map[string]any{"iss": is.URL, "sub": "al\x00ice", "exp": time.Now().Add(time.Hour).Unix()}),
			"Invalid token: claim 'sub' holds a NUL character"},
		{"bad signature", "Bearer " + is.SignWithOtherKey("alice"), "Token cannot be verified: "},
		{"tampered payload", "Bearer " + tamper(is.Token("alice"), is.URL), "Token cannot be verified: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := env.Do(servertest.Request{Method: "GET", Path: "/platform/user", Header: map[string]string{"Authorization": tt.header}})
			if resp.Status != http.StatusUnauthorized || !strings.HasPrefix(resp.Body, tt.want) {
				t.Fatalf("got %d %q, want 401 %q", resp.Status, resp.Body, tt.want)
			}
		})
	}
	// The good token works, on the same server.
	expect(t, env.Do(servertest.Request{Method: "GET", Path: "/platform/user", User: "alice"}), 200, `{"userId":"alice","tenants":[],"groups":[]}`)
}

// tamper swaps the payload of a signed token for one naming the platform
// owner, keeping the signature.
func tamper(token, issuer string) string {
	parts := strings.Split(token, ".")
	payload := fmt.Sprintf(`{"iss":%q,"sub":"admin","exp":%d}`, issuer, time.Now().Add(time.Hour).Unix())
	parts[1] = base64.RawURLEncoding.EncodeToString([]byte(payload))
	return strings.Join(parts, ".")
}

func TestUserIDClaim(t *testing.T) {
	env := servertest.Start(t, db.SQLite, func(c *server.Config) { c.UserIDClaim = "oid" })
	tok := env.Issuer.Sign(jwt.Claims{Subject: "ignored"}, map[string]any{"oid": "object-id-1"})
	expect(t, env.Do(servertest.Request{Method: "GET", Path: "/platform/user", Token: tok}), 200,
		`{"userId":"object-id-1","tenants":[],"groups":[]}`)
	expect(t, env.Do(servertest.Request{Method: "GET", Path: "/platform/user", User: "alice"}), 401,
		"Invalid token: claim 'oid' is missing")
}

func TestStaticKeysURL(t *testing.T) {
	issuer := authtest.NewIssuer(t)
	env := servertest.Start(t, db.SQLite, func(c *server.Config) {
		c.OIDCIssuers = []string{issuer.URL}
		c.OIDCKeysURL = issuer.KeysURL
	})
	expect(t, env.Do(servertest.Request{Method: "GET", Path: "/platform/user", Token: issuer.Token("kim")}), 200,
		`{"userId":"kim","tenants":[],"groups":[]}`)
}

func TestIdentityProviderUnreachable(t *testing.T) {
	env := servertest.Start(t, db.SQLite)
	env.Issuer.SetDown(true)
	resp := env.Do(servertest.Request{Method: "GET", Path: "/platform/user", User: "alice"})
	if resp.Status != http.StatusServiceUnavailable {
		t.Fatalf("IDP down: got %d %q, want 503", resp.Status, resp.Body)
	}
	env.Issuer.SetDown(false)
	expect(t, env.Do(servertest.Request{Method: "GET", Path: "/platform/user", User: "alice"}), 200, "")

	// Once keys are known, a token signed with an unknown key makes the
	// verifier fetch the keys again; that fetch failing is a 503 too.
	env.Issuer.SetDown(true)
	resp = env.Do(servertest.Request{Method: "GET", Path: "/platform/user", Token: env.Issuer.SignWithOtherKey("alice")})
	if resp.Status == http.StatusOK {
		t.Fatalf("a token signed with an unknown key was accepted")
	}
}

func TestLastModifiedHeaders(t *testing.T) {
	env := servertest.Start(t, db.SQLite)
	good := []string{
		"2024-05-06T17:06:12.113204800Z;3e074f00_bb0d_4858_af0f_2424f8a2043a",
		"2024-05-06T17:06:12Z;acme",
		"2024-05-06T17:06:12Z",
	}
	for _, v := range good {
		for _, h := range []string{"Case-Last-Modified", "Tenant-Last-Modified"} {
			resp := env.Do(servertest.Request{Method: "GET", Path: "/platform/user", User: "alice", Header: map[string]string{h: v}})
			expect(t, resp, 200, "")
		}
	}
	for _, v := range []string{"yesterday;acme", ";acme", "2024-13-06T17:06:12Z;x"} {
		resp := env.Do(servertest.Request{Method: "GET", Path: "/platform/user", User: "alice", Header: map[string]string{"Case-Last-Modified": v}})
		if resp.Status != http.StatusBadRequest || !strings.HasPrefix(resp.Body, "Header Case-Last-Modified has invalid content. Reason: ") {
			t.Errorf("Case-Last-Modified %q: got %d %q", v, resp.Status, resp.Body)
		}
	}
}

func TestRoutingAndCORS(t *testing.T) {
	env := servertest.Start(t, db.SQLite, func(c *server.Config) { c.CORSOrigins = []string{"http://ui.example"} })
	if resp := env.Do(servertest.Request{Method: "GET", Path: "/no/such/path"}); resp.Status != http.StatusNotFound {
		t.Errorf("unknown GET: %d", resp.Status)
	}
	for _, m := range []string{"POST", "PUT", "DELETE"} {
		if resp := env.Do(servertest.Request{Method: m, Path: "/request/case/"}); resp.Status != http.StatusMethodNotAllowed {
			t.Errorf("unknown %s: %d, want 405", m, resp.Status)
		}
	}
	resp := env.Do(servertest.Request{Method: "OPTIONS", Path: "/cases", Header: map[string]string{
		"Origin": "http://ui.example", "Access-Control-Request-Method": "POST"}})
	if resp.Status != http.StatusOK {
		t.Fatalf("preflight: %d", resp.Status)
	}
	if got := resp.Header.Get("Access-Control-Expose-Headers"); got != "Case-Last-Modified, Tenant-Last-Modified" {
		t.Errorf("exposed headers = %q", got)
	}
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "http://ui.example" {
		t.Errorf("allowed origin = %q", got)
	}
	if got := resp.Header.Get("X-Request-Id"); got == "" {
		t.Errorf("no X-Request-Id")
	}
}

// TestHealthReportsIdentityProvider: an identity provider that failed is
// on the health report until a token verifies again.
func TestHealthReportsIdentityProvider(t *testing.T) {
	env := servertest.Start(t, db.SQLite)
	env.Issuer.SetDown(true)
	env.Do(servertest.Request{Method: "GET", Path: "/platform/user", User: "alice"})
	resp := env.Do(servertest.Request{Method: "GET", Path: "/status"})
	expect(t, resp, http.StatusServiceUnavailable, "")
	env.Issuer.SetDown(false)
	expect(t, env.Do(servertest.Request{Method: "GET", Path: "/platform/user", User: "alice"}), 200, "")
	expect(t, env.Do(servertest.Request{Method: "GET", Path: "/status"}), 200, "OK")
}
