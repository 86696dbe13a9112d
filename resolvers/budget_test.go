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
			big := fmt.Sprintf(`{"Reporter":%q}`, strings.Repeat("x", 20<<10))
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

// TestStateBudget: the case states one request reads are bounded, whether
// or not their fields reach the response: forty aliases of a list of cases
// with 4 MiB case files took 7.6 GB for a response of 21 KB. Past twice
// the response budget of snapshots, the request fails with BAD_USER_INPUT.
func TestStateBudget(t *testing.T) {
	env := servertest.Start(t, dbtest.Flavors()[0], func(c *server.Config) { c.MaxResponseBytes = 16 << 10 })
	deployIncident(t, env)
	for range 6 {
		id, _ := startIncident(t, env)
		big := fmt.Sprintf(`{"Reporter":%q}`, strings.Repeat("x", 5<<10))
		if _, err := client.UpdateCaseFileItem(ctx, env.GraphQL("alice"), id, "Incident", json.RawMessage(big)); err != nil {
			t.Fatal(err)
		}
	}
	_, body := postGraphQL(t, env, "alice", `{ cases(first: 10) { edges { node { id planItems { id } } } } }`)
	if len(body.Errors) == 0 || body.Errors[0].Extensions["code"] != "BAD_USER_INPUT" ||
		body.Errors[0].Message != "This request reads more than 32768 bytes of case state; ask for fewer cases, or for fewer of their fields" {
		t.Fatalf("errors = %+v", body.Errors)
	}
	// One of them fits.
	_, body = postGraphQL(t, env, "alice", `{ cases(first: 1) { edges { node { id planItems { id } } } } }`)
	if len(body.Errors) != 0 {
		t.Fatalf("one case: %+v", body.Errors)
	}
	// A mutation reads its case without the budget (it read it twice,
	// before and after its commit, and reported a change made as refused),
	// and the first state a request reads passes however large.
	id, _ := startIncident(t, env)
	mid := fmt.Sprintf(`{"Reporter":%q}`, strings.Repeat("m", 12<<10))
	if _, err := client.UpdateCaseFileItem(ctx, env.GraphQL("alice"), id, "Incident", json.RawMessage(mid)); err != nil {
		t.Fatalf("a mutation on a case of more than half the state budget: %v", err)
	}
	huge := map[string]any{"Reporter": strings.Repeat("h", 40<<10)}
	if resp := env.Do(servertest.Request{Method: "PUT", Path: "/cases/" + id + "/casefile/update/Incident", User: "alice", Body: huge}); resp.Status != 200 {
		t.Fatalf("REST update: %d %s", resp.Status, resp.Body)
	}
	_, body = postGraphQL(t, env, "alice", fmt.Sprintf(`{ case(id: %q) { id caseRoles } }`, id))
	if len(body.Errors) != 0 {
		t.Fatalf("one case larger than the whole budget: %+v", body.Errors)
	}
}
