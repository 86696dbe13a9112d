package compat_test

import (
	"encoding/json"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// taskAs runs a task action as caller before a row.
func taskAs(who caller, action, item string, body any) func(t *testing.T, f *fixture, c *caseRef) {
	return func(t *testing.T, f *fixture, c *caseRef) {
		method := "PUT"
		if action == "complete" {
			method = "POST"
		}
		mustStatus(t, f.as(t, who, method, "/tasks/{pi:"+item+"}/"+action, body, c), 202)
	}
}

func steps(fs ...func(t *testing.T, f *fixture, c *caseRef)) func(t *testing.T, f *fixture, c *caseRef) {
	return func(t *testing.T, f *fixture, c *caseRef) {
		for _, s := range fs {
			s(t, f, c)
		}
	}
}

// taskIs checks the task's workflow state and assignee after a row.
func taskIs(item, state, assignee string) func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
	return func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
		var task struct{ TaskState, Assignee string }
		f.as(t, caseOwner, "GET", "/tasks/{pi:"+item+"}", nil, c).JSON(t, &task)
		if task.TaskState != state || task.Assignee != assignee {
			t.Errorf("%s is %s for %q, want %s for %q", item, task.TaskState, task.Assignee, state, assignee)
		}
	}
}

func TestTaskQueries(t *testing.T) {
	notFound := "A task with id '{pi:Review}' cannot be found."
	forEachDB(t, []row{
		// §1.12 queries.
		{caller: caseMember, method: "GET", path: "/tasks", status: 200, json: listOf(taskShape)},
		{caller: caseMember, method: "GET", path: "/tasks/", status: 200, json: listOf(taskShape)},
		{caller: nonMember, method: "GET", path: "/tasks", status: 200, exact: `[]`},
		{name: "filtered", caller: caseOwner, method: "GET",
			path:   "/tasks?tenant=compat&taskName=Review&taskState=Unassigned&caseName=Compat&offset=0&numberOfResults=1&sortBy=createdOn&sortOrder=asc",
			status: 200, json: list{elem: with(taskShape, obj{"taskName": is{"Review"}, "taskState": is{"Unassigned"}}), n: 1}},
		{name: "several states", caller: caseOwner, method: "GET", path: "/tasks?taskState=Assigned;Unassigned", status: 200,
			json: listOf(with(taskShape, obj{"taskState": "string"})), fresh: true, before: taskAs(caseOwner, "complete", "Open", nil),
			after: func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
				var tasks []struct{ TaskState string }
				resp.JSON(t, &tasks)
				for _, task := range tasks {
					if task.TaskState != "Assigned" && task.TaskState != "Unassigned" {
						t.Errorf("a %s task is listed", task.TaskState)
					}
				}
			}},
		{name: "only activated tasks", caller: caseOwner, method: "GET", path: "/tasks?taskName=Approve", status: 200, exact: `[]`},
		{caller: caseMember, method: "GET", path: "/tasks/{pi:Review}", status: 200, json: taskShape},
		{name: "1.1.39 fields", caller: caseMember, method: "GET", path: "/tasks/{pi:Review}", status: 200,
			json: with(taskShape, obj{"taskDuration": is{"PT2M"}, "documentation": is{"Check the order"}, "activatedOn": "string"})},
		{caller: nonMember, method: "GET", path: "/tasks/{pi:Review}", status: 404, text: notFound},
		{caller: tenantOwner, method: "GET", path: "/tasks/{pi:Review}", status: 404, text: notFound},
		{caller: caseMember, method: "GET", path: "/tasks/nosuch", status: 404, text: "A task with id 'nosuch' cannot be found."},
		{caller: caseMember, method: "GET", path: "/tasks/case/{case}", status: 200, json: list{elem: caseTaskShape, n: 4}},
		{caller: nonMember, method: "GET", path: "/tasks/case/{case}", status: 404, text: "A case with id '{case}' cannot be found."},
		{caller: caseMember, method: "GET", path: "/tasks/case/{case}?includeSubCaseTasks=true", status: 200, json: list{elem: caseTaskShape, n: 4}},
		{caller: nonMember, method: "GET", path: "/tasks/case/{case}?includeSubCaseTasks=true", status: 404, text: "A case with id '{case}' cannot be found."},
		{caller: caseMember, method: "GET", path: "/tasks/user/count", status: 200, json: obj{"claimed": "number", "unclaimed": "number"}},
		{caller: nonMember, method: "GET", path: "/tasks/user/count?tenant=compat", status: 200, exact: `{"claimed":0,"unclaimed":0}`},
		// nina joins a Pairs case: three unassigned tasks without a role;
		// then a second, where she claims one.
		{name: "role-less tasks count for a member", caller: nonMember, method: "GET", path: "/tasks/user/count", status: 200,
			exact: `{"claimed":0,"unclaimed":3}`, model: "pairs", before: teamOp("POST", "/users", map[string]any{"userId": "nina"})},
		{name: "claimed", caller: nonMember, method: "GET", path: "/tasks/user/count", status: 200,
			exact: `{"claimed":1,"unclaimed":5}`, model: "pairs",
			before: steps(teamOp("POST", "/users", map[string]any{"userId": "nina"}), taskAs(nonMember, "claim", "Task1", nil))},
	})
}

func TestTaskActions(t *testing.T) {
	notFound := "A task with id '{pi:Review}' cannot be found."
	accepted := func(r row) row {
		r.fresh, r.status, r.json, r.lastModified = true, 202, emptyObject, "Case"
		return r
	}
	forEachDB(t, []row{
		// §1.12 actions and §2.5 / addendum §5 rules.
		accepted(row{caller: caseMember, method: "PUT", path: "/tasks/{pi:Review}/claim", after: taskIs("Review", "Assigned", "mike")}),
		accepted(row{name: "an owner without the role", caller: caseOwner, method: "PUT", path: "/tasks/{pi:Review}/claim", after: taskIs("Review", "Assigned", "carla")}),
		accepted(row{name: "no role needed", caller: approver, method: "PUT", path: "/tasks/{pi:Open}/claim", after: taskIs("Open", "Assigned", "abe")}),
		accepted(row{name: "assigned to someone else, at once", caller: caseOwner, method: "PUT", path: "/tasks/{pi:Review}/claim",
			before: taskAs(caseMember, "claim", "Review", nil), after: taskIs("Review", "Assigned", "carla")}),
		{caller: approver, method: "PUT", path: "/tasks/{pi:Review}/claim", status: 401,
			text: "ClaimTask[{pi:Review}]: You do not have permission to perform this operation"},
		{caller: nonMember, method: "PUT", path: "/tasks/{pi:Review}/claim", status: 404, text: notFound},
		{caller: tenantOwner, method: "PUT", path: "/tasks/{pi:Review}/claim", status: 404, text: notFound},
		{name: "completed", caller: caseMember, method: "PUT", path: "/tasks/{pi:Open}/claim", fresh: true, before: taskAs(caseMember, "complete", "Open", nil),
			status: 400, text: "ClaimTask cannot be done because task Open ({pi:Open}) is in state Completed"},
		{name: "suspended", caller: caseMember, method: "PUT", path: "/tasks/{pi:Open}/claim", fresh: true, before: transition(caseMember, "{pi:Open}", "suspend"),
			status: 400, text: "ClaimTask[{pi:Open}]: Cannot be done because the task is not Active but Suspended"},

		accepted(row{caller: caseMember, method: "PUT", path: "/tasks/{pi:Review}/revoke", before: taskAs(caseMember, "claim", "Review", nil),
			after: taskIs("Review", "Unassigned", "")}),
		accepted(row{name: "back to the owner", caller: approver, method: "PUT", path: "/tasks/{pi:Open}/revoke",
			before: steps(taskAs(caseMember, "claim", "Open", nil), taskAs(caseMember, "delegate", "Open", map[string]any{"assignee": "abe"})),
			after:  taskIs("Open", "Assigned", "mike")}),
		{name: "neither role nor assignee", caller: approver, method: "PUT", path: "/tasks/{pi:Review}/revoke", fresh: true,
			before: taskAs(caseMember, "claim", "Review", nil), status: 401,
			text: "RevokeTask[{pi:Review}]: You do not have permission to perform this operation"},
		{caller: nonMember, method: "PUT", path: "/tasks/{pi:Review}/revoke", status: 404, text: notFound},

		accepted(row{caller: caseOwner, method: "PUT", path: "/tasks/{pi:Review}/assign", body: map[string]any{"assignee": "mike"},
			after: taskIs("Review", "Assigned", "mike")}),
		accepted(row{name: "to a stranger, by an owner", caller: caseOwner, method: "PUT", path: "/tasks/{pi:Review}/assign", body: map[string]any{"assignee": "nina"},
			after: taskIs("Review", "Assigned", "nina")}),
		{name: "to a member without the role", caller: caseMember, method: "PUT", path: "/tasks/{pi:Review}/assign", body: map[string]any{"assignee": "abe"},
			status: 401, text: "AssignTask[{pi:Review}]: The case team member with id '", prefix: true},
		{name: "to a stranger", caller: caseMember, method: "PUT", path: "/tasks/{pi:Review}/assign", body: map[string]any{"assignee": "nobody"},
			status: 400, text: "AssignTask[{pi:Review}]: There is no case team member with id '", prefix: true},
		{name: "without the role", caller: approver, method: "PUT", path: "/tasks/{pi:Review}/assign", body: map[string]any{"assignee": "mike"},
			status: 401, text: "AssignTask[{pi:Review}]: You do not have permission to perform this operation"},
		{name: "no body", caller: caseOwner, method: "PUT", path: "/tasks/{pi:Review}/assign", status: 400,
			text: "The request content was malformed: ", prefix: true},
		{caller: nonMember, method: "PUT", path: "/tasks/{pi:Review}/assign", body: map[string]any{"assignee": "nina"}, status: 404, text: notFound},

		accepted(row{caller: caseMember, method: "PUT", path: "/tasks/{pi:Review}/delegate", body: map[string]any{"assignee": "abe"},
			before: taskAs(caseMember, "claim", "Review", nil), after: taskIs("Review", "Delegated", "abe")}),
		accepted(row{name: "to a stranger, by an owner", caller: caseOwner, method: "PUT", path: "/tasks/{pi:Review}/delegate", body: map[string]any{"assignee": "nina"},
			after: taskIs("Review", "Delegated", "nina")}),
		{name: "to a stranger", caller: caseMember, method: "PUT", path: "/tasks/{pi:Review}/delegate", body: map[string]any{"assignee": "nobody"},
			status: 400, text: "DelegateTask[{pi:Review}]: There is no case team member with id '", prefix: true},
		{caller: nonMember, method: "PUT", path: "/tasks/{pi:Review}/delegate", body: map[string]any{"assignee": "nina"}, status: 404, text: notFound},

		accepted(row{caller: caseMember, method: "POST", path: "/tasks/{pi:Review}/complete", body: map[string]any{"Notes": "fine"},
			after: taskIs("Review", "Completed", "mike")}),
		accepted(row{name: "no body", caller: caseMember, method: "POST", path: "/tasks/{pi:Open}/complete", after: taskIs("Open", "Completed", "mike")}),
		{name: "without the role", caller: approver, method: "POST", path: "/tasks/{pi:Review}/complete", body: map[string]any{}, status: 401,
			text: "CompleteHumanTask[{pi:Review}]: You do not have permission to perform this operation"},
		{name: "not an object", caller: caseMember, method: "POST", path: "/tasks/{pi:Review}/complete", body: []int{1}, status: 400,
			text: "The request content was malformed: ", prefix: true},
		{caller: nonMember, method: "POST", path: "/tasks/{pi:Review}/complete", body: map[string]any{}, status: 404, text: notFound},

		accepted(row{caller: caseMember, method: "PUT", path: "/tasks/{pi:Review}", body: map[string]any{"Notes": "draft"},
			after: func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
				var task struct{ Output json.RawMessage }
				f.as(t, caseMember, "GET", "/tasks/{pi:Review}", nil, c).JSON(t, &task)
				if string(task.Output) != `{"Notes":"draft"}` {
					t.Errorf("saved output %s", task.Output)
				}
			}}),
		{name: "without the role", caller: approver, method: "PUT", path: "/tasks/{pi:Review}", body: map[string]any{}, status: 401,
			text: "SaveHumanTaskOutput[{pi:Review}]: You do not have permission to perform this operation"},
		{caller: nonMember, method: "PUT", path: "/tasks/{pi:Review}", body: map[string]any{}, status: 404, text: notFound},
		{caller: caseMember, method: "POST", path: "/tasks/{pi:Review}", body: map[string]any{"Notes": "x"}, status: 202, json: emptyObject,
			lastModified: "Case"},
		{caller: nonMember, method: "POST", path: "/tasks/{pi:Review}", body: map[string]any{}, status: 404, text: notFound},
	})
}

func TestFourEyes(t *testing.T) {
	claim := func(who caller, task string) func(t *testing.T, f *fixture, c *caseRef) {
		return taskAs(who, "claim", task, nil)
	}
	revoke := func(who caller, task string) func(t *testing.T, f *fixture, c *caseRef) {
		return taskAs(who, "revoke", task, nil)
	}
	forEachDB(t, []row{
		{name: "four eyes", caller: caseMember, method: "PUT", path: "/tasks/{pi:Task3}/claim", model: "pairs", before: claim(caseMember, "Task1"),
			status: 401, text: "ClaimTask[{pi:Task3}]: Since you have worked on Task1 you cannot also work on Task3"},
		{name: "rendez-vous", caller: approver, method: "PUT", path: "/tasks/{pi:Task2}/claim", model: "pairs", before: claim(caseMember, "Task1"),
			status: 401, text: "ClaimTask[{pi:Task2}]: Since you have not worked on Task1 you cannot work on Task2"},
		{name: "four eyes through a rendez-vous partner", caller: caseMember, method: "PUT", path: "/tasks/{pi:Task3}/claim", model: "pairs",
			before: steps(claim(caseMember, "Task1"), claim(caseMember, "Task2"), revoke(caseMember, "Task1")),
			status: 401, text: "ClaimTask[{pi:Task3}]: Since you have worked on ", prefix: true},
		{name: "released by revokes", caller: caseMember, method: "PUT", path: "/tasks/{pi:Task3}/claim", model: "pairs",
			before: steps(claim(caseMember, "Task1"), claim(caseMember, "Task2"), revoke(caseMember, "Task1"), revoke(caseMember, "Task2")),
			status: 202, json: emptyObject, lastModified: "Case"},
	})
}
