package auth

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/go-jose/go-jose/v4"
)

// Config configures a Verifier.
type Config struct {
	// Issuers are the trusted token issuers, matched exactly against the
	// `iss` claim. Keys come from each issuer's OIDC discovery document.
	Issuers []string
	// KeysURL, when set, is a JWKS URL used instead of discovery; it
	// requires exactly one issuer.
	KeysURL string
	// UserIDClaim is the claim that holds the user id. Default "sub".
	UserIDClaim string
	// Dev, when set, is trusted in addition to the issuers.
	Dev *DevIssuer
	// HTTPClient fetches discovery documents and keys. Default: a client
	// with a 10-second timeout.
	HTTPClient *http.Client
	// Now is the clock used for expiry checks. Default time.Now.
	Now func() time.Time
	// Audience, when set, must be the token's `aud` or one of them.
	Audience string
	// Leeway is the clock skew allowed on `exp` and `nbf`. Zero
	// allows none.
	Leeway time.Duration
}

// Verifier checks bearer tokens: the issuer must be configured, the
// signature must verify against that issuer's keys, `exp` must be present and
// in the future, and the user-id claim must be a non-empty string.
type Verifier struct {
	claim   string
	client  *http.Client
	now     func() time.Time
	issuers map[string]*issuer
	aud     string
	leeway  time.Duration

	// unreachable is the last identity provider failure, cleared by the
	// next token that verifies: the health report shows it.
	mu          sync.Mutex
	unreachable string

	verified verifiedCache
}

// issuer resolves its keys lazily, so that a server starts while an identity
// provider is down and recovers when it comes back.
type issuer struct {
	url     string
	keysURL string // empty: discover

	mu       sync.Mutex
	verifier *oidc.IDTokenVerifier
	static   bool
}

// NewVerifier returns a Verifier for cfg. It fails when no issuer is
// configured at all.
func NewVerifier(cfg Config) (*Verifier, error) {
	v := &Verifier{
		claim:   cfg.UserIDClaim,
		client:  cfg.HTTPClient,
		now:     cfg.Now,
		issuers: make(map[string]*issuer),
		aud:     cfg.Audience,
		leeway:  cfg.Leeway,
	}
	if v.claim == "" {
		v.claim = "sub"
	}
	if v.client == nil {
		v.client = &http.Client{Timeout: 10 * time.Second}
	}
	if v.now == nil {
		v.now = time.Now
	}
	if cfg.KeysURL != "" && len(cfg.Issuers) != 1 {
		return nil, errors.New("auth: a static keys URL needs exactly one issuer")
	}
	for _, iss := range cfg.Issuers {
		iss = strings.TrimSpace(iss)
		if iss == "" {
			continue
		}
		v.issuers[iss] = &issuer{url: iss, keysURL: cfg.KeysURL}
	}
	if cfg.Dev != nil {
		v.issuers[cfg.Dev.Issuer] = &issuer{
			url:    cfg.Dev.Issuer,
			static: true,
			verifier: oidc.NewVerifier(cfg.Dev.Issuer,
				&oidc.StaticKeySet{PublicKeys: []crypto.PublicKey{cfg.Dev.PublicKey()}},
				&oidc.Config{SkipClientIDCheck: true, SkipExpiryCheck: true, SupportedSigningAlgs: []string{"RS256"}, Now: v.now}),
		}
	}
	if len(v.issuers) == 0 {
		return nil, errors.New("auth: no token issuer configured")
	}
	return v, nil
}

// Authenticate verifies the bearer token of r and reads the request's
// CorrelationId and On-Behalf-Of headers into the identity. A missing or bad token gives
// a *TokenError; an unreachable identity provider gives an error wrapping
// ErrIDPUnreachable.
func (v *Verifier) Authenticate(r *http.Request) (Identity, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return Identity{}, errMissingToken
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return Identity{}, errMissingToken
	}
	who, err := v.Verify(r.Context(), strings.TrimSpace(token))
	if err != nil {
		return Identity{}, err
	}
	who.CorrelationID = strings.TrimSpace(r.Header.Get("CorrelationId"))
	who.OnBehalfOf = strings.TrimSpace(r.Header.Get("On-Behalf-Of"))
	return who, nil
}

// Verify checks a raw JWT.
func (v *Verifier) Verify(ctx context.Context, raw string) (Identity, error) {
	now := v.now()
	if who, ok := v.verified.get(raw, now); ok {
		return who, nil
	}
	who, expires, err := v.verify(ctx, raw)
	if err != nil {
		return Identity{}, err
	}
	v.verified.put(raw, who, expires, now)
	return who, nil
}

// verify checks a raw JWT and returns who it names and when it stops being
// valid (its exp plus the leeway).
func (v *Verifier) verify(ctx context.Context, raw string) (Identity, time.Time, error) {
	claims, err := unverifiedClaims(raw)
	if err != nil {
		return Identity{}, time.Time{}, err
	}
	iss, _ := claims["iss"].(string)
	if iss == "" {
		return Identity{}, time.Time{}, errNoIssuer
	}
	is := v.issuers[iss]
	if is == nil {
		return Identity{}, time.Time{}, tokenErrorf("JWT token has invalid issuer '%s', please use another identity provider", iss)
	}
	if _, ok := claims["exp"]; !ok {
		return Identity{}, time.Time{}, tokenErrorf("Token cannot be verified: the token has no expiry ('exp' claim)")
	}
	// The claims are checked before the signature only for their clearer
	// answers: a token that passes here must still verify below.
	if err := v.checkClaims(claims); err != nil {
		return Identity{}, time.Time{}, err
	}
	verifier, err := is.resolve(ctx, v.client, v.now)
	if err != nil {
		v.setUnreachable(err.Error())
		return Identity{}, time.Time{}, err
	}
	var fetchErr error
	ctx = context.WithValue(ctx, fetchErrKey{}, &fetchErr)
	if _, err := verifier.Verify(ctx, raw); err != nil {
		var expired *oidc.TokenExpiredError
		switch {
		case fetchErr != nil:
			err := fmt.Errorf("%w: issuer %s: %v", ErrIDPUnreachable, iss, fetchErr)
			v.setUnreachable(err.Error())
			return Identity{}, time.Time{}, err
		case errors.As(err, &expired):
			return Identity{}, time.Time{}, errExpired
		default:
			return Identity{}, time.Time{}, tokenErrorf("Token cannot be verified: %s", strings.TrimPrefix(err.Error(), "oidc: "))
		}
	}
	v.setUnreachable("")
	// Only a missing claim is refused: the reference engine accepts an
	// empty user id here and refuses it later, per command.
	user, ok := claims[v.claim].(string)
	if !ok {
		return Identity{}, time.Time{}, tokenErrorf("Invalid token: claim '%s' is missing", v.claim)
	}
	if strings.ContainsRune(user, 0) {
		// Neither database stores a NUL in text; SQLite cut the query at it
		// and every request of such a token was a 500.
		return Identity{}, time.Time{}, tokenErrorf("Invalid token: claim '%s' holds a NUL character", v.claim)
	}
	clientID, _ := claims["client_id"].(string)
	return Identity{UserID: user, ClientID: clientID}, expiryOf(claims).Add(v.leeway), nil
}

func (v *Verifier) setUnreachable(msg string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.unreachable = msg
}

// Health reports whether the identity providers answered the last time
// their keys were needed, and which issuers are trusted.
func (v *Verifier) Health() (ok bool, description string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	issuers := make([]string, 0, len(v.issuers))
	for iss := range v.issuers {
		issuers = append(issuers, iss)
	}
	sort.Strings(issuers)
	if v.unreachable != "" {
		return false, v.unreachable
	}
	return true, "trusted issuers: " + strings.Join(issuers, ", ")
}

// unverifiedClaims reads the payload of a JWS without checking it, only to
// pick the issuer whose keys will check it.
func unverifiedClaims(raw string) (map[string]any, error) {
	jws, err := jose.ParseSignedCompact(raw, supportedAlgs)
	if err != nil {
		return nil, tokenErrorf("Token parse failure: %v", err)
	}
	var claims map[string]any
	if err := json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &claims); err != nil {
		return nil, tokenErrorf("Token parse failure: payload is not a JSON object: %v", err)
	}
	return claims, nil
}

var supportedAlgs = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.ES256, jose.ES384, jose.ES512, jose.PS256, jose.PS384, jose.PS512, jose.EdDSA,
}

func (is *issuer) resolve(ctx context.Context, client *http.Client, now func() time.Time) (*oidc.IDTokenVerifier, error) {
	is.mu.Lock()
	defer is.mu.Unlock()
	if is.verifier != nil {
		return is.verifier, nil
	}
	// The times and the audience are checked by Verify itself: go-oidc
	// takes "exp" given as a string and allows no configurable skew.
	cfg := &oidc.Config{SkipClientIDCheck: true, SkipExpiryCheck: true, Now: now}
	// The key set outlives this request; its context only carries the client.
	keyCtx := oidc.ClientContext(context.Background(), client)
	if is.keysURL != "" {
		cfg.SupportedSigningAlgs = []string{"RS256"}
		is.verifier = oidc.NewVerifier(is.url, &reportingKeySet{oidc.NewRemoteKeySet(keyCtx, is.keysURL)}, cfg)
		return is.verifier, nil
	}
	discoverCtx, cancel := context.WithTimeout(oidc.ClientContext(ctx, client), 10*time.Second)
	defer cancel()
	provider, err := oidc.NewProvider(discoverCtx, is.url)
	if err != nil {
		return nil, fmt.Errorf("%w: discovery of %s: %v", ErrIDPUnreachable, is.url, err)
	}
	var meta struct {
		JWKSURL string   `json:"jwks_uri"`
		Algs    []string `json:"id_token_signing_alg_values_supported"`
	}
	if err := provider.Claims(&meta); err != nil || meta.JWKSURL == "" {
		return nil, fmt.Errorf("%w: discovery of %s has no jwks_uri", ErrIDPUnreachable, is.url)
	}
	cfg.SupportedSigningAlgs = meta.Algs
	is.verifier = oidc.NewVerifier(is.url, &reportingKeySet{oidc.NewRemoteKeySet(keyCtx, meta.JWKSURL)}, cfg)
	return is.verifier, nil
}

type fetchErrKey struct{}

// reportingKeySet tells Verify that keys could not be fetched: go-oidc
// folds that failure into a plain signature error, and an unreachable key
// endpoint must give 503, not 401.
type reportingKeySet struct {
	inner *oidc.RemoteKeySet
}

func (k *reportingKeySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	payload, err := k.inner.VerifySignature(ctx, jwt)
	if err != nil && strings.HasPrefix(err.Error(), "fetching keys") {
		if slot, ok := ctx.Value(fetchErrKey{}).(*error); ok {
			*slot = err
		}
	}
	return payload, err
}
