package resolvers_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/graph/client"
)

// TestResponseBudget: a nested query within the cost budget, whose case
// files and payloads add up past the response-size budget, fails with
// RESPONSE_TOO_LARGE instead of growing; a small one still answers.
func TestResponseBudget(t *testing.T) {
	for _, flavor := range dbtest.Flavors() {
		t.Run(string(flavor), func(t *testing.T) {
			t.Parallel()
			env := servertest.Start(t, flavor, func(c *server.Config) { c.MaxResponseBytes = 64 << 10 })
			deployIncident(t, env)
			id, _ := startIncident(t, env)
			big := fmt.Sprintf(`{"Title":%q}`, strings.Repeat("x", 20<<10))
			if _, err := client.UpdateCaseFileItem(ctx, env.GraphQL("alice"), id, "Incident", json.RawMessage(big)); err != nil {
				t.Fatal(err)
			}
			field := fmt.Sprintf(`case(id: %q) { caseFile history { payload } }`, id)
			_, body := postGraphQL(t, env, "alice", aliases(5, field))
			if len(body.Errors) == 0 || body.Errors[0].Extensions["code"] != "RESPONSE_TOO_LARGE" ||
				!strings.Contains(body.Errors[0].Message, "larger than 65536 bytes") {
				t.Fatalf("errors = %+v", body.Errors)
			}
			if len(body.Data) > 64<<10+4096 {
				t.Fatalf("the response grew to %d bytes", len(body.Data))
			}
			_, body = postGraphQL(t, env, "alice", fmt.Sprintf(`{ case(id: %q) { id state } }`, id))
			if len(body.Errors) != 0 {
				t.Fatalf("small query: %+v", body.Errors)
			}
		})
	}
}
