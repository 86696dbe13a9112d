package rest_test

import (
	"sort"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// setupInbox starts an inbox case: alice owns it without roles, bob is a
// plain member, carl an approver.
func setupInbox(t *testing.T, env *servertest.Env) string {
	t.Helper()
	createTenant(t, env, "acme")
	expect(t, deploy(env, "alice", "inbox.xml", readModel(t, "inbox.xml")), 204, "")
	resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: map[string]any{
		"definition": "inbox", "tenant": "acme",
		"caseTeam": map[string]any{"users": []map[string]any{
			{"userId": "alice", "isOwner": true},
			{"userId": "bob"},
			{"userId": "carl", "caseRoles": []string{"Approver"}},
		}},
	}})
	expect(t, resp, 200, "")
	var started struct{ CaseInstanceID string }
	resp.JSON(t, &started)
	return started.CaseInstanceID
}

func taskCount(t *testing.T, env *servertest.Env, user string) map[string]int {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "GET", Path: "/tasks/user/count", User: user})
	expect(t, resp, 200, "")
	var c map[string]int
	resp.JSON(t, &c)
	return c
}

func taskNames(tasks []taskJSON) []string {
	var names []string
	for _, tk := range tasks {
		names = append(names, tk.TaskName)
	}
	sort.Strings(names)
	return names
}

// TestTaskListsAndCounts pins reference §6-§7: rows exist only for
// activated tasks, taskState takes several states separated by ';', and
// /tasks/user/count counts role-less tasks for every member but gives an
// owner nothing for roles it lacks.
func TestTaskListsAndCounts(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupInbox(t, env)
		// "Follow up" is still Available: it has no row.
		if got := taskNames(tasksOf(t, env, "alice", "")); len(got) != 4 || got[0] != "Approve" || got[3] != "Chore C" {
			t.Fatalf("alice's tasks = %v", got)
		}
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tasks/case/" + id, User: "alice"}), 200, "")
		var caseTasks []taskJSON
		env.Do(servertest.Request{Method: "GET", Path: "/tasks/case/" + id, User: "alice"}).JSON(t, &caseTasks)
		if len(caseTasks) != 4 {
			t.Fatalf("case tasks = %v, want the 4 activated ones", taskNames(caseTasks))
		}
		for user, want := range map[string]map[string]int{
			"alice": {"claimed": 0, "unclaimed": 3}, // ownership adds no Approve
			"bob":   {"claimed": 0, "unclaimed": 3},
			"carl":  {"claimed": 0, "unclaimed": 4},
			"zed":   {"claimed": 0, "unclaimed": 0},
		} {
			if got := taskCount(t, env, user); got["claimed"] != want["claimed"] || got["unclaimed"] != want["unclaimed"] {
				t.Errorf("%s's count = %v, want %v", user, got, want)
			}
		}

		a, b := taskNamed(t, env, "bob", id, "Chore A"), taskNamed(t, env, "bob", id, "Chore B")
		expect(t, taskDo(env, "bob", "PUT", a.ID, "claim", nil), 202, "{}")
		expect(t, taskDo(env, "bob", "POST", b.ID, "complete", map[string]any{}), 202, "{}")
		if got := taskCount(t, env, "bob"); got["claimed"] != 1 || got["unclaimed"] != 1 {
			t.Errorf("bob's count after claim and complete = %v, want 1 and 1", got)
		}

		got := taskNames(tasksOf(t, env, "alice", "?taskState=Assigned;Unassigned"))
		if len(got) != 3 || got[0] != "Approve" || got[1] != "Chore A" || got[2] != "Chore C" {
			t.Errorf("Assigned;Unassigned = %v", got)
		}
		if got := taskNames(tasksOf(t, env, "alice", "?taskState=Completed;Terminated&taskName=Chore%20B")); len(got) != 1 {
			t.Errorf("Completed;Terminated = %v", got)
		}
	})
}
