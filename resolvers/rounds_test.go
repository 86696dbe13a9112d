package resolvers_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

// TestTaskDurationAndDocumentation: GraphQL's Task has the fields REST's
// task JSON has: activatedOn, taskDuration and documentation.
func TestTaskDurationAndDocumentation(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		b, err := os.ReadFile("../engine/testdata/rounds.xml")
		if err != nil {
			t.Fatal(err)
		}
		alice := env.GraphQL("alice")
		if _, err := client.DeployDefinition(ctx, alice, ptr("acme"), "rounds", string(b)); err != nil {
			t.Fatal(err)
		}
		inputs := json.RawMessage(`{"Callers":[{"Who":"ann"}]}`)
		started, err := client.StartCase(ctx, alice, client.StartCaseInput{Definition: "rounds", Tenant: ptr("acme"), Inputs: &inputs})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.CaseTasks(ctx, alice, started.StartCase.Id)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, tk := range resp.Case.Tasks {
			switch tk.Name {
			case "Answer":
				seen++
				if tk.TaskDuration == nil || *tk.TaskDuration != "PT2M" || tk.Documentation == nil || *tk.Documentation != "Answer the caller" ||
					tk.ActivatedOn.IsZero() || *tk.Assignee != "agent-0" {
					t.Errorf("answer = %+v", tk)
				}
			case "Greet":
				seen++
				if tk.TaskDuration != nil || *tk.Assignee != "ann" {
					t.Errorf("greet = %+v", tk)
				}
			}
		}
		if seen != 2 {
			t.Fatalf("tasks = %+v", resp.Case.Tasks)
		}
	})
}
