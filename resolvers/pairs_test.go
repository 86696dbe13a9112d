package resolvers_test

import (
	"os"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

// TestMayPerformTellsTheClaimsTruth: GraphQL's mayPerform answers what a
// claim would, four-eyes and rendez-vous on current holders included, as
// REST's does.
func TestMayPerformTellsTheClaimsTruth(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		b, err := os.ReadFile("../testdata/cases/pairs.xml")
		if err != nil {
			t.Fatal(err)
		}
		alice, bob := env.GraphQL("alice"), env.GraphQL("bob")
		if _, err := client.DeployDefinition(ctx, alice, ptr("acme"), "pairs", string(b)); err != nil {
			t.Fatal(err)
		}
		started, err := client.StartCase(ctx, alice, client.StartCaseInput{Definition: "pairs", Tenant: ptr("acme"),
			Team: []client.CaseTeamMemberInput{{MemberId: "alice", IsOwner: ptr(true)}, {MemberId: "bob"}}})
		if err != nil {
			t.Fatal(err)
		}
		tasks := func() map[string]client.TaskFields {
			t.Helper()
			resp, err := client.CaseTasks(ctx, bob, started.StartCase.Id)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]client.TaskFields{}
			for _, tk := range resp.Case.Tasks {
				out[tk.Name] = tk.TaskFields
			}
			return out
		}
		if !tasks()["Countersign"].MayPerform {
			t.Fatal("bob may not perform Countersign before holding anything")
		}
		claimed, err := client.ClaimTask(ctx, bob, tasks()["Check"].Id)
		if err != nil {
			t.Fatal(err)
		}
		if !claimed.ClaimTask.MayPerform || tasks()["Countersign"].MayPerform {
			t.Fatalf("after claiming Check: mayPerform Check %v, Countersign %v", claimed.ClaimTask.MayPerform, tasks()["Countersign"].MayPerform)
		}
		_, err = client.ClaimTask(ctx, bob, tasks()["Countersign"].Id)
		expectCode(t, err, "FORBIDDEN", "")
		if _, err := client.RevokeTask(ctx, bob, tasks()["Check"].Id); err != nil {
			t.Fatal(err)
		}
		if !tasks()["Countersign"].MayPerform {
			t.Fatal("a revoked Check still keeps bob from Countersign")
		}
		if _, err := client.ClaimTask(ctx, bob, tasks()["Countersign"].Id); err != nil {
			t.Fatal(err)
		}
	})
}
