package server_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
)

// devRequest sends a request to a development sign-in path with Host as
// given ("": the server's own address).
func devRequest(t *testing.T, env *servertest.Env, method, path, host, contentType, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, env.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func devTenants(t *testing.T, env *servertest.Env) {
	t.Helper()
	for _, body := range []string{
		`{"name":"acme","users":[{"userId":"alice","isOwner":true,"roles":["clerk","boss"],"name":"Alice"},{"userId":"bob","roles":["clerk"]},{"userId":"carol","enabled":false}]}`,
		`{"name":"closed","users":[{"userId":"dave","isOwner":true}]}`,
	} {
		if r := env.Do(servertest.Request{Method: "POST", Path: "/platform", User: servertest.PlatformOwner, Body: body, ContentType: "application/json"}); r.Status != 204 {
			t.Fatalf("create tenant: %d %s", r.Status, r.Body)
		}
	}
	if r := env.Do(servertest.Request{Method: "PUT", Path: "/platform/closed/disable", User: servertest.PlatformOwner}); r.Status != 204 {
		t.Fatalf("disable tenant: %d %s", r.Status, r.Body)
	}
}

// TestDevSignIn: with --dev the inbox's picker lists the enabled users of
// enabled tenants and mints a token for one of them, and for no one else;
// the input is bounded and only local hosts are answered.
func TestDevSignIn(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		devTenants(t, env)
		code, body := devRequest(t, env, "GET", "/inbox/dev/users", "", "", "")
		var list struct {
			Tenants []struct {
				Name  string
				Users []struct {
					UserID, Name string
					Roles        []string
					IsOwner      bool
				}
			}
			More bool
		}
		if code != 200 || json.Unmarshal([]byte(body), &list) != nil {
			t.Fatalf("users: %d %s", code, body)
		}
		if len(list.Tenants) != 1 || list.Tenants[0].Name != "acme" || len(list.Tenants[0].Users) != 2 || list.More {
			t.Fatalf("users: want acme's alice and bob only (carol is disabled, tenant closed too), got %s", body)
		}
		alice, bob := list.Tenants[0].Users[0], list.Tenants[0].Users[1]
		if alice.UserID != "alice" || alice.Name != "Alice" || !alice.IsOwner || strings.Join(alice.Roles, ",") != "boss,clerk" ||
			bob.UserID != "bob" || bob.IsOwner || strings.Join(bob.Roles, ",") != "clerk" {
			t.Fatalf("users: %s", body)
		}

		code, body = devRequest(t, env, "POST", "/inbox/dev/token", "", "application/json", `{"tenant":"acme","userId":"bob"}`)
		var tok struct {
			Token, UserID string
			ExpiresIn     int
		}
		if code != 200 || json.Unmarshal([]byte(body), &tok) != nil || tok.UserID != "bob" || tok.ExpiresIn != 8*3600 {
			t.Fatalf("token for bob: %d %s", code, body)
		}
		if exp, iat := claim(t, tok.Token, "exp"), claim(t, tok.Token, "iat"); exp-iat != 8*3600 {
			t.Fatalf("token lifetime %v s, want 8 h", exp-iat)
		}
		r := env.Do(servertest.Request{Method: "POST", Path: "/graphql", Token: tok.Token, Body: map[string]string{"query": "{ me { userId } }"}})
		if r.Status != 200 || !strings.Contains(r.Body, `"userId":"bob"`) {
			t.Fatalf("the minted token does not sign bob in: %d %s", r.Status, r.Body)
		}

		long := strings.Repeat("x", 300)
		for name, c := range map[string]struct {
			host, contentType, body string
			status                  int
			says                    string
		}{
			"unknown user":         {"", "application/json", `{"tenant":"acme","userId":"mallory"}`, 404, "user 'mallory' is not registered"},
			"unknown tenant":       {"", "application/json", `{"tenant":"nope","userId":"alice"}`, 404, "Tenant 'nope' does not exist"},
			"disabled tenant":      {"", "application/json", `{"tenant":"closed","userId":"dave"}`, 404, "Tenant 'closed' does not exist"},
			"disabled account":     {"", "application/json", `{"tenant":"acme","userId":"carol"}`, 403, "carol has been disabled"},
			"no user":              {"", "application/json", `{"tenant":"acme"}`, 400, "needs a tenant and a userId"},
			"long user id":         {"", "application/json", `{"tenant":"acme","userId":"` + long + `"}`, 400, "the limit is 255"},
			"control character":    {"", "application/json", `{"tenant":"acme","userId":"al\u0000ice"}`, 400, "control character"},
			"unknown field":        {"", "application/json", `{"tenant":"acme","userId":"alice","ttl":"999h"}`, 400, `unknown field "ttl"`},
			"two objects":          {"", "application/json", `{"tenant":"acme","userId":"alice"}{}`, 400, "one JSON object"},
			"not JSON":             {"", "application/json", `tenant=acme`, 400, "invalid character"},
			"form post":            {"", "application/x-www-form-urlencoded", `{"tenant":"acme","userId":"alice"}`, 415, "JSON body"},
			"too large":            {"", "application/json", `{"tenant":"acme","userId":"alice","x":"` + strings.Repeat("y", 5000) + `"}`, 413, "4 KiB"},
			"rebound DNS name":     {"evil.example:80", "application/json", `{"tenant":"acme","userId":"alice"}`, 403, "localhost or an IP address"},
			"localhost is allowed": {"localhost", "application/json", `{"tenant":"acme","userId":"alice"}`, 200, `"userId":"alice"`},
		} {
			code, body := devRequest(t, env, "POST", "/inbox/dev/token", c.host, c.contentType, c.body)
			if code != c.status || !strings.Contains(body, c.says) {
				t.Errorf("%s: %d %s, want %d saying %q", name, code, body, c.status, c.says)
			}
			if c.status != 200 && strings.Contains(body, `"token":`) {
				t.Errorf("%s: the answer holds a token: %s", name, body)
			}
		}
		if code, body := devRequest(t, env, "GET", "/inbox/dev/users", "evil.example", "", ""); code != 403 || strings.Contains(body, "alice") {
			t.Errorf("users at another host: %d %s", code, body)
		}
	}, func(c *server.Config) { c.Dev = true })
}

// TestDevSignInAbsentInProduction: without --dev neither path exists and
// the service refuses as well.
func TestDevSignInAbsentInProduction(t *testing.T) {
	env := servertest.Start(t, db.SQLite)
	devTenants(t, env)
	if code, body := devRequest(t, env, "GET", "/inbox/dev/users", "", "", ""); code != 404 || strings.Contains(body, "alice") {
		t.Fatalf("users in production: %d %s", code, body)
	}
	if code, body := devRequest(t, env, "POST", "/inbox/dev/token", "", "application/json", `{"tenant":"acme","userId":"alice"}`); code != 405 || strings.Contains(body, `"token":`) {
		t.Fatalf("token in production: %d %s", code, body)
	}
	if _, _, err := env.Server.Service().DevAccounts(t.Context()); err == nil {
		t.Fatal("DevAccounts answered in production")
	}
	if _, err := env.Server.Service().DevAccount(t.Context(), "acme", "alice"); err == nil {
		t.Fatal("DevAccount answered in production")
	}
}

// claim reads a numeric claim of a JWT without verifying it.
func claim(t *testing.T, token, name string) float64 {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", token)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(b, &claims); err != nil {
		t.Fatal(err)
	}
	v, _ := claims[name].(float64)
	return v
}
