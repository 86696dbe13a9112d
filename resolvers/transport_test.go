package resolvers_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// TestUndecodableBodyHasCode: a body that is not a GraphQL request (a
// batch array, broken JSON, variables that are not an object, another
// content type) answers 400 with extensions.code BAD_USER_INPUT, like every
// other error, and does not echo the body back (gqlgen's own answer had no
// code and repeated up to 16 MiB of it).
func TestUndecodableBodyHasCode(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		secret := strings.Repeat("echo-me ", 100)
		for _, tc := range []struct{ contentType, body, want string }{
			{"application/json", `[{"query":"{ me { userId } }"},{"query":"` + secret + `"}]`, "The request body is not a GraphQL request"},
			{"application/json", `{"query":"` + secret, "The request body is not a GraphQL request"},
			{"application/json", `{"query":"{ me { userId } }","variables":"` + secret + `"}`, "The request body is not a GraphQL request"},
			{"text/plain", `{"query":"{ me { userId } }"}`, "The request content type text/plain is not supported, provide application/json"},
		} {
			req, _ := http.NewRequest("POST", env.URL+"/graphql", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", tc.contentType)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var body graphQLBody
			if err := json.Unmarshal(raw, &body); err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
			if resp.StatusCode != 400 || len(body.Errors) != 1 || body.Errors[0].Extensions["code"] != "BAD_USER_INPUT" ||
				!strings.HasPrefix(body.Errors[0].Message, tc.want) || strings.Contains(string(raw), "echo-me") {
				t.Errorf("%.30s: %d %s", tc.body, resp.StatusCode, raw)
			}
		}
	})
}

// TestLargeBodiesNotDecoded: eight hundred thousand zeros (1.6 MB) took
// 60 MB to decode, before any check. Without a token nothing larger than
// two query documents is decoded; with one, no body of more than 250,000
// JSON values.
func TestLargeBodiesNotDecoded(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		body := `{"query":"{ me { userId } }","variables":{"x":[` + strings.Repeat("0,", 800_000) + `0]}}`
		for _, tc := range []struct {
			token  string
			status int
			want   string
		}{
			{"", 413, "A request without a token may be at most 131072 bytes"},
			{env.Issuer.Token("alice"), 400, "The request holds more than 250000 JSON values"},
		} {
			req, _ := http.NewRequest("POST", env.URL+"/graphql", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var got graphQLBody
			err = json.NewDecoder(resp.Body).Decode(&got)
			resp.Body.Close()
			if err != nil || resp.StatusCode != tc.status || len(got.Errors) != 1 || got.Errors[0].Message != tc.want ||
				got.Errors[0].Extensions["code"] != "BAD_USER_INPUT" {
				t.Errorf("token %v: %d %+v (%v), want %d %q", tc.token != "", resp.StatusCode, got, err, tc.status, tc.want)
			}
		}
	})
}

// TestNULInDecodedValuesRefused: a NUL reaches no SQL through GraphQL's
// own escapes (\u{0}), a GET request's variables or a cursor. Each
// answered INTERNAL_SERVER_ERROR (PostgreSQL and SQLite cut the query at
// it); now BAD_USER_INPUT.
func TestNULInDecodedValuesRefused(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		cursor := base64.RawURLEncoding.EncodeToString([]byte(`{"s":"lastmodified desc","k":"t","v":"2026-11-23T10:51:18Z","id":"x\u0000"}`))
		for _, q := range []string{
			`{ case(id: "ab\u{0}cd") { id } }`,
			`{ cases(first: 1, filter: {tenant: """a` + "\x00" + `"""}) { edges { node { id } } } }`,
			`{ cases(first: 1, after: "` + cursor + `") { edges { node { id } } } }`,
		} {
			_, body := postGraphQL(t, env, "alice", q)
			if len(body.Errors) == 0 || body.Errors[0].Extensions["code"] != "BAD_USER_INPUT" ||
				!strings.Contains(body.Errors[0].Message, "NUL") && !strings.Contains(body.Errors[0].Message, "cursor is not valid") {
				t.Errorf("%s: %+v", q, body.Errors)
			}
		}
		v := url.Values{"query": {`query($id: ID!) { case(id: $id) { id } }`}, "variables": {`{"id":"ab\u0000cd"}`}}
		req, _ := http.NewRequest("GET", env.URL+"/graphql?"+v.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+env.Issuer.Token("alice"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body graphQLBody
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		if len(body.Errors) == 0 || body.Errors[0].Extensions["code"] != "BAD_USER_INPUT" || !strings.Contains(body.Errors[0].Message, "NUL") {
			t.Errorf("GET with a NUL variable: %d %+v", resp.StatusCode, body.Errors)
		}
	})
}

// TestGETMutationHasCode: a mutation sent with GET is refused (a link must
// not change anything) with extensions.code, as every error is; gqlgen's
// own answer had none.
func TestGETMutationHasCode(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		v := url.Values{"query": {`mutation { removeTenantUser(tenant: "acme", userId: "bob") }`}}
		req, _ := http.NewRequest("GET", env.URL+"/graphql?"+v.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+env.Issuer.Token("alice"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body graphQLBody
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusNotAcceptable || len(body.Errors) != 1 || body.Errors[0].Extensions["code"] != "BAD_USER_INPUT" ||
			body.Errors[0].Message != "GET requests only allow query operations" {
			t.Fatalf("%d %+v", resp.StatusCode, body.Errors)
		}
	})
}
