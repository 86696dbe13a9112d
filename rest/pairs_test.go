package rest_test

import (
	"fmt"

	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// TestFourEyesOnCurrentHolders walks reference §5 (b) as its clients do:
// four-eyes and rendez-vous look at who holds a task now, a revoke
// releases it, rendez-vous partners hold together; mayPerform tells what a
// claim would answer at every step.
func TestFourEyesOnCurrentHolders(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "pairs.xml", readModel(t, "pairs.xml")), 204, "")
		resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: map[string]any{
			"definition": "pairs", "tenant": "acme",
			"caseTeam": map[string]any{"users": []map[string]any{{"userId": "alice", "isOwner": true}, {"userId": "bob"}}},
		}})
		expect(t, resp, 200, "")
		var started struct{ CaseInstanceID string }
		resp.JSON(t, &started)
		id := started.CaseInstanceID
		check, prepare, countersign := taskNamed(t, env, "bob", id, "Check"), taskNamed(t, env, "bob", id, "Prepare"), taskNamed(t, env, "bob", id, "Countersign")
		mayCountersign := func(want bool) {
			t.Helper()
			if got := *taskNamed(t, env, "bob", id, "Countersign").MayPerform; got != want {
				t.Fatalf("bob's mayPerform on Countersign = %v, want %v", got, want)
			}
		}
		refused := "ClaimTask[" + countersign.ID + "]: Since you have worked on %s you cannot also work on Countersign"

		mayCountersign(true)
		expect(t, taskDo(env, "bob", "PUT", check.ID, "claim", nil), 202, "{}")
		mayCountersign(false)
		expect(t, taskDo(env, "bob", "PUT", countersign.ID, "claim", nil), 401, fmt.Sprintf(refused, "Check"))
		expect(t, taskDo(env, "bob", "PUT", prepare.ID, "claim", nil), 202, "{}")
		expect(t, taskDo(env, "bob", "PUT", check.ID, "revoke", nil), 202, "{}")
		mayCountersign(false)
		expect(t, taskDo(env, "bob", "PUT", countersign.ID, "claim", nil), 401, fmt.Sprintf(refused, "Prepare"))
		expect(t, taskDo(env, "bob", "PUT", prepare.ID, "revoke", nil), 202, "{}")
		mayCountersign(true)
		expect(t, taskDo(env, "bob", "PUT", countersign.ID, "claim", nil), 202, "{}")
		// Now bob holds Countersign: Check is closed to him, and says so.
		if got := *taskNamed(t, env, "bob", id, "Check").MayPerform; got {
			t.Fatal("bob may perform Check while he holds Countersign")
		}
		expect(t, taskDo(env, "bob", "PUT", check.ID, "claim", nil), 401,
			"ClaimTask["+check.ID+"]: Since you have worked on Countersign you cannot also work on Check")
	})
}
