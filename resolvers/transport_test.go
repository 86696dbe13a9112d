package resolvers_test

import (
	"encoding/json"
	"io"
	"net/http"
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
