package rest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
)

// TestHealthTellsStrangersOnlyUpOrDown: without a token (or as an
// ordinary user) /health names no driver, host or issuer; a platform owner
// gets the details.
func TestHealthTellsStrangersOnlyUpOrDown(t *testing.T) {
	env := servertest.Start(t, db.SQLite)
	for _, path := range []string{"/health", "/platform/health"} {
		for _, user := range []string{"", "alice"} {
			resp := env.Do(servertest.Request{Method: "GET", Path: path, User: user})
			if resp.Status != 200 || strings.Contains(resp.Body, "sqlite") || strings.Contains(resp.Body, env.Issuer.URL) ||
				strings.Contains(resp.Body, "127.0.0.1") || !strings.Contains(resp.Body, `"Description":"up"`) {
				t.Errorf("%s as %q: %d %s", path, user, resp.Status, resp.Body)
			}
		}
	}
	resp := env.Do(servertest.Request{Method: "GET", Path: "/health", User: servertest.PlatformOwner})
	if !strings.Contains(resp.Body, "sqlite database reachable") || !strings.Contains(resp.Body, env.Issuer.URL) {
		t.Errorf("platform owner's health: %s", resp.Body)
	}
	expect(t, env.Do(servertest.Request{Method: "GET", Path: "/status"}), 200, "OK")
}

// TestCORSOnlyConfiguredOrigins: a configured origin gets credentials; any
// other gets no CORS headers at all; development mode adds localhost.
func TestCORSOnlyConfiguredOrigins(t *testing.T) {
	preflight := func(env *servertest.Env, origin string) *servertest.Response {
		return env.Do(servertest.Request{Method: "OPTIONS", Path: "/cases", Header: map[string]string{
			"Origin": origin, "Access-Control-Request-Method": "POST"}})
	}
	env := servertest.Start(t, db.SQLite, func(c *server.Config) { c.CORSOrigins = []string{"https://app.example.com"} })
	for origin, want := range map[string]string{
		"https://app.example.com":  "https://app.example.com",
		"https://evil.example.com": "",
		"http://localhost:3000":    "",
		"null":                     "",
	} {
		resp := preflight(env, origin)
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != want {
			t.Errorf("origin %s: allowed %q, want %q", origin, got, want)
		}
		if want == "" && resp.Header.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("origin %s got credentials", origin)
		}
		// A simple GET is not refused, but its answer carries no grant.
		get := env.Do(servertest.Request{Method: "GET", Path: "/version", Header: map[string]string{"Origin": origin}})
		if got := get.Header.Get("Access-Control-Allow-Origin"); got != want {
			t.Errorf("GET from %s: allowed %q, want %q", origin, got, want)
		}
	}
	dev := servertest.Start(t, db.SQLite, func(c *server.Config) { c.Dev = true })
	if got := preflight(dev, "http://localhost:3000").Header.Get("Access-Control-Allow-Origin"); got != "http://localhost:3000" {
		t.Errorf("dev mode, localhost: %q", got)
	}
	if got := preflight(dev, "https://evil.example.com").Header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("dev mode, another origin: %q", got)
	}
	any := servertest.Start(t, db.SQLite, func(c *server.Config) { c.CORSOrigins = []string{"*"} })
	resp := preflight(any, "https://evil.example.com")
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("'*': %v", resp.Header)
	}
}

// TestTokenTimeClaimsAndAudience: exp, nbf and iat must be numbers, within
// the leeway; a configured audience must be in aud.
func TestTokenTimeClaimsAndAudience(t *testing.T) {
	env := servertest.Start(t, db.SQLite, func(c *server.Config) {
		c.OIDCAudience, c.TokenLeeway = "casegraph", 30*time.Second
	})
	is := env.Issuer
	now := time.Now()
	claims := func(extra map[string]any) string {
		c := map[string]any{"iss": is.URL, "sub": "alice", "aud": "casegraph", "exp": now.Add(time.Hour).Unix(), "iat": now.Unix()}
		for k, v := range extra {
			if v == nil {
				delete(c, k)
			} else {
				c[k] = v
			}
		}
		return is.SignRaw(c)
	}
	for _, tc := range []struct {
		name  string
		token string
		want  string // "" accepted
	}{
		{"good", claims(nil), ""},
		{"audience in a list", claims(map[string]any{"aud": []string{"other", "casegraph"}}), ""},
		{"exp as a string", claims(map[string]any{"exp": "9999999999"}), "Token cannot be verified: the 'exp' claim must be a number"},
		{"nbf as a string", claims(map[string]any{"nbf": "0"}), "Token cannot be verified: the 'nbf' claim must be a number"},
		{"iat as a string", claims(map[string]any{"iat": "2020-01-01"}), "Token cannot be verified: the 'iat' claim must be a number"},
		{"expired within the leeway", claims(map[string]any{"exp": now.Add(-10 * time.Second).Unix()}), ""},
		{"expired past the leeway", claims(map[string]any{"exp": now.Add(-time.Minute).Unix()}), "JWT Token failure: token is expired"},
		{"not valid yet", claims(map[string]any{"nbf": now.Add(time.Minute).Unix()}), "Token cannot be verified: the token is not valid yet"},
		{"nbf within the leeway", claims(map[string]any{"nbf": now.Add(10 * time.Second).Unix()}), ""},
		{"issued in the future", claims(map[string]any{"iat": now.Add(time.Hour).Unix()}), ""},
		{"no audience", claims(map[string]any{"aud": nil}), "Token cannot be verified: the token is not meant for this server"},
		{"other audience", claims(map[string]any{"aud": "someone-else"}), "Token cannot be verified: the token is not meant for this server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := env.Do(servertest.Request{Method: "GET", Path: "/platform/user", Token: tc.token})
			switch {
			case tc.want == "" && resp.Status != http.StatusOK:
				t.Fatalf("refused: %d %s", resp.Status, resp.Body)
			case tc.want != "" && (resp.Status != http.StatusUnauthorized || !strings.HasPrefix(resp.Body, tc.want)):
				t.Fatalf("got %d %q, want 401 %q", resp.Status, resp.Body, tc.want)
			}
		})
	}
}
