package resolvers_test

import (
	"encoding/json"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

func TestTaskWorkflowOverGraphQL(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		deployIncident(t, env)
		caseID, triage := startIncident(t, env)
		carl, bob, alice := env.GraphQL("carl"), env.GraphQL("bob"), env.GraphQL("alice")

		_, err := client.ClaimTask(ctx, bob, triage)
		expectCode(t, err, "FORBIDDEN", "ClaimTask["+triage+"]: You do not have permission to perform this operation")
		_, err = client.ClaimTask(ctx, env.GraphQL("zed"), triage)
		expectCode(t, err, "NOT_FOUND", "A task with id '"+triage+"' cannot be found.")

		claimed, err := client.ClaimTask(ctx, carl, triage)
		if err != nil {
			t.Fatal(err)
		}
		if tk := claimed.ClaimTask; tk.State != "ASSIGNED" || *tk.Assignee != "carl" || !tk.MayPerform || tk.Case.Id != caseID {
			t.Fatalf("claimed = %+v", tk)
		}
		revoked, err := client.RevokeTask(ctx, carl, triage)
		if err != nil || revoked.RevokeTask.State != "UNASSIGNED" || revoked.RevokeTask.Assignee != nil {
			t.Fatalf("revoked = %+v %v", revoked, err)
		}
		assigned, err := client.AssignTask(ctx, alice, triage, "nina")
		if err != nil || *assigned.AssignTask.Assignee != "nina" {
			t.Fatalf("assigned = %+v %v", assigned, err)
		}
		delegated, err := client.DelegateTask(ctx, env.GraphQL("nina"), triage, "carl")
		if err != nil || delegated.DelegateTask.State != "DELEGATED" || *delegated.DelegateTask.Owner != "nina" {
			t.Fatalf("delegated = %+v %v", delegated, err)
		}
		saved, err := client.SaveTaskOutput(ctx, carl, triage, json.RawMessage(`{"Notes":"checked"}`))
		if err != nil || string(saved.SaveTaskOutput.Output) != `{"Notes":"checked"}` {
			t.Fatalf("saved = %+v %v", saved, err)
		}
		v, err := client.ValidateTaskOutput(ctx, carl, triage, json.RawMessage(`{}`))
		if err != nil || !v.ValidateTaskOutput.Valid {
			t.Fatalf("validate = %+v %v", v, err)
		}
		done, err := client.CompleteTask(ctx, carl, triage, nil)
		if err != nil || done.CompleteTask.State != "COMPLETED" || done.CompleteTask.PlanItem.State != "COMPLETED" {
			t.Fatalf("completed = %+v %v", done, err)
		}
		// A command right in itself but not in the task's state.
		_, err = client.ClaimTask(ctx, carl, triage)
		expectCode(t, err, "INVALID_STATE", "ClaimTask cannot be done because task Triage ("+triage+") is in state Completed")

		// Fix now waits for an engineer; its required output is checked.
		tasks, err := client.CaseTasks(ctx, bob, caseID)
		if err != nil {
			t.Fatal(err)
		}
		var fix string
		for _, tk := range tasks.Case.Tasks {
			if tk.Name == "Fix" {
				fix = tk.Id
			}
		}
		_, err = client.CompleteTask(ctx, bob, fix, nil)
		expectCode(t, err, "BAD_USER_INPUT", "")
		if _, err := client.CompleteTask(ctx, bob, fix, ptr(json.RawMessage(`{"Resolution":{"Summary":"freed space"}}`))); err != nil {
			t.Fatal(err)
		}

		// The inbox: carl's Agent tasks, filtered by state.
		inbox, err := client.Tasks(ctx, carl, &client.TaskFilter{States: []client.TaskState{client.TaskStateCompleted}}, ptr(10), nil)
		if err != nil || len(inbox.Tasks.Edges) != 1 || inbox.Tasks.Edges[0].Node.Name != "Triage" {
			t.Fatalf("carl's completed tasks = %+v %v", inbox, err)
		}
	})
}

func TestPlanningOverGraphQL(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		deployIncident(t, env)
		caseID, _ := startIncident(t, env)
		items, err := client.CaseTasks(ctx, env.GraphQL("dora"), caseID)
		if err != nil {
			t.Fatal(err)
		}
		d := items.Case.DiscretionaryItems
		if len(d) != 2 || d[0].Name != "Write post mortem" || d[0].Parent.Type != "CASE_PLAN" {
			t.Fatalf("dora's discretionary items = %+v", d)
		}
		bobs, err := client.CaseTasks(ctx, env.GraphQL("bob"), caseID)
		if err != nil || len(bobs.Case.DiscretionaryItems) != 1 || bobs.Case.DiscretionaryItems[0].Name != "Call customer" {
			t.Fatalf("bob's discretionary items = %+v %v", bobs, err)
		}
		_, err = client.PlanDiscretionaryItem(ctx, env.GraphQL("bob"), caseID, d[0].Parent.Id, "di_postmortem", nil)
		expectCode(t, err, "BAD_USER_INPUT", "No authorization available to plan a discretionary item named 'Write post mortem'")
		planned, err := client.PlanDiscretionaryItem(ctx, env.GraphQL("dora"), caseID, d[0].Parent.Id, "di_postmortem", ptr("pm_graphql"))
		if err != nil {
			t.Fatal(err)
		}
		if p := planned.PlanDiscretionaryItem; p.Id != "pm_graphql" || p.Name != "Write post mortem" || p.State != "ACTIVE" {
			t.Fatalf("planned = %+v", p)
		}
		found := false
		for _, p := range planned.PlanDiscretionaryItem.Case.PlanItems {
			found = found || p.Id == "pm_graphql"
		}
		if !found {
			t.Fatal("the planned item is not among the case's plan items")
		}
	})
}

// TestTaskIsOneShape: a task answers the same fields whether GraphQL read
// it from its case's state (task, case.tasks) or from the task list
// (tasks), and a task without a task model answers {} as the reference
// engine (and REST) does, not null.
func TestTaskIsOneShape(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		deployIncident(t, env)
		caseID, triage := startIncident(t, env)
		carl := env.GraphQL("carl")
		if _, err := client.SaveTaskOutput(ctx, carl, triage, json.RawMessage(`{"Notes":"checked"}`)); err != nil {
			t.Fatal(err)
		}
		one, err := client.Task(ctx, carl, triage)
		if err != nil {
			t.Fatal(err)
		}
		ofCase, err := client.CaseTasks(ctx, carl, caseID)
		if err != nil || len(ofCase.Case.Tasks) != 1 {
			t.Fatalf("case tasks = %+v %v", ofCase, err)
		}
		list, err := client.Tasks(ctx, carl, nil, ptr(10), nil)
		if err != nil || len(list.Tasks.Edges) != 1 {
			t.Fatalf("task list = %+v %v", list, err)
		}
		fromState, fromCase, fromList := mustJSON(t, one.Task.TaskFields), mustJSON(t, ofCase.Case.Tasks[0].TaskFields),
			mustJSON(t, list.Tasks.Edges[0].Node.TaskFields)
		if fromState != fromCase || fromState != fromList {
			t.Fatalf("one task, three shapes:\ntask       %s\ncase.tasks %s\ntasks      %s", fromState, fromCase, fromList)
		}
		tk := one.Task
		if tk.TaskModel == nil || string(*tk.TaskModel) != "{}" || string(tk.Input) != "{}" || string(tk.Output) != `{"Notes":"checked"}` || !tk.MayPerform {
			t.Fatalf("task = %s", fromState)
		}
	})
}
