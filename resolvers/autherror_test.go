package resolvers_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
)

// TestAuthFailuresAsREST: a failed authentication is classified once
// (service.AuthFailure), so GraphQL answers it with REST's status and
// message: 401 for a token the verifier refuses, 503 with Retry-After when
// the identity provider cannot be reached.
func TestAuthFailuresAsREST(t *testing.T) {
	env := servertest.Start(t, db.SQLite)
	for _, tt := range []struct {
		name   string
		down   bool
		token  string
		status int
		code   string
	}{
		// First, while no key of the issuer is known yet.
		{"identity provider down", true, env.Issuer.Token("bob"), http.StatusServiceUnavailable, "UNAVAILABLE"},
		{"bad signature", false, env.Issuer.SignWithOtherKey("bob"), http.StatusUnauthorized, "UNAUTHENTICATED"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env.Issuer.SetDown(tt.down)
			defer env.Issuer.SetDown(false)
			rest := env.Do(servertest.Request{Method: "GET", Path: "/platform/user", Token: tt.token})
			req, _ := http.NewRequest("POST", env.URL+"/graphql", nil)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+tt.token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body graphQLBody
			if err := jsonDecode(resp, &body); err != nil {
				t.Fatal(err)
			}
			if rest.Status != tt.status || resp.StatusCode != tt.status || len(body.Errors) != 1 ||
				body.Errors[0].Extensions["code"] != tt.code || body.Errors[0].Message != rest.Body {
				t.Fatalf("REST %d %q; GraphQL %d %+v; want %d and %s with REST's message", rest.Status, rest.Body, resp.StatusCode, body.Errors, tt.status, tt.code)
			}
			if tt.status == http.StatusServiceUnavailable && (resp.Header.Get("Retry-After") == "" || rest.Header.Get("Retry-After") == "") {
				t.Fatal("a 503 without Retry-After")
			}
		})
	}
}

func jsonDecode(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }
