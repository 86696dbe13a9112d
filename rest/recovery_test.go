package rest_test

import (
	"context"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// TestForceRecovery: PATCH /debug/force-recovery/{caseId} rebuilds read
// rows that went astray, for the case's team, without a new event; not
// configured, it is 404 as in the reference engine.
func TestForceRecovery(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		ctx := context.Background()
		bun := env.Server.DB()
		count := func(table string) int64 {
			n, err := bun.NewSelect().Table(table).Where("case_id = ?", id).Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		tables := []string{"plan_items", "tasks", "case_team_members", "case_team_roles", "case_files", "case_event_batches"}
		before := map[string]int64{}
		for _, tb := range tables {
			before[tb] = count(tb)
		}
		// The read rows go astray; the state and the events stay.
		for _, tb := range []string{"plan_items", "tasks", "case_team_roles"} {
			if _, err := bun.NewDelete().Table(tb).Where("case_id = ?", id).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := bun.NewUpdate().Table("case_files").Set("data = ?", "{}").Where("case_id = ?", id).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		// The inbox reads the tasks table.
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tasks/case/" + id, User: "alice"}), 200, "[]")

		notFound := "A case with id '" + id + "' cannot be found."
		expect(t, env.Do(servertest.Request{Method: "PATCH", Path: "/debug/force-recovery/" + id, User: "zed"}), 404, notFound)
		expect(t, env.Do(servertest.Request{Method: "PATCH", Path: "/debug/force-recovery/nope", User: "bob"}), 404, "A case with id 'nope' cannot be found.")
		expect(t, env.Do(servertest.Request{Method: "PATCH", Path: "/debug/force-recovery/" + id}), 401, "Authorization token is missing")
		expect(t, env.Do(servertest.Request{Method: "PATCH", Path: "/debug/force-recovery/" + id, User: "bob"}), 200, "Forced recovery of "+id)

		for _, tb := range tables {
			if n := count(tb); n != before[tb] {
				t.Errorf("%s: %d rows after recovery, %d before the damage", tb, n, before[tb])
			}
		}
		c := getCase(t, env, "alice", id)
		if len(c.PlanItems) != 3 || c.File["Application"] == nil {
			t.Fatalf("after recovery: %d plan items, case file %v", len(c.PlanItems), c.File)
		}
		taskNamed(t, env, "alice", id, "Review application")
		// Recovering an intact case changes nothing either.
		expect(t, env.Do(servertest.Request{Method: "PATCH", Path: "/debug/force-recovery/" + id, User: "alice"}), 200, "Forced recovery of "+id)
		if n := count("case_event_batches"); n != before["case_event_batches"] {
			t.Errorf("%d event rows after two recoveries, %d before", n, before["case_event_batches"])
		}
	}, func(c *server.Config) { c.ForceRecovery = true })
}

func TestForceRecoveryOff(t *testing.T) {
	env := servertest.Start(t, "sqlite")
	id := setupPermit(t, env)
	expect(t, env.Do(servertest.Request{Method: "PATCH", Path: "/debug/force-recovery/" + id, User: "alice"}), 404,
		"The requested resource could not be found but may be available again in the future.")
	if n := len(getCase(t, env, "alice", id).PlanItems); n != 3 {
		t.Fatalf("%d plan items", n)
	}
}

// TestDebugEventPath: plan-item events carry the item's place in the plan.
func TestDebugEventPath(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		var events []struct {
			Type    string
			Content map[string]any
		}
		env.Do(servertest.Request{Method: "GET", Path: "/debug/" + id, User: "alice"}).JSON(t, &events)
		paths := map[string]bool{}
		for _, e := range events {
			p, has := e.Content["path"]
			_, planItem := e.Content["planItemId"]
			_, task := e.Content["taskId"]
			// A case file event's path is its case file path.
			if !has && (planItem || task) || has && !(planItem || task) && e.Type != "CaseFileItemTransitioned" {
				t.Errorf("%s: path %v, but planItemId %v taskId %v", e.Type, p, planItem, task)
			}
			if has && (planItem || task) {
				paths[e.Type+" "+p.(string)] = true
			}
		}
		for _, want := range []string{
			"PlanItemCreated Case[BuildingPermit]",
			"PlanItemCreated Case[BuildingPermit]/HumanTask[Review application]",
			"PlanItemTransitioned Case[BuildingPermit]/HumanTask[Inform applicant]",
			"HumanTaskActivated Case[BuildingPermit]/HumanTask[Review application]",
		} {
			if !paths[want] {
				t.Errorf("no event %s; have %v", want, paths)
			}
		}
	})
}
