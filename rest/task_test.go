package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

type taskJSON struct {
	ID         string         `json:"id"`
	TaskName   string         `json:"taskName"`
	TaskState  string         `json:"taskState"`
	Assignee   string         `json:"assignee"`
	Owner      string         `json:"owner"`
	Role       string         `json:"role"`
	CaseID     string         `json:"caseInstanceId"`
	CaseName   string         `json:"caseName"`
	Output     map[string]any `json:"output"`
	DueDate    string         `json:"dueDate"`
	MayPerform *bool          `json:"mayPerform"`
}

func tasksOf(t testing.TB, env *servertest.Env, user, query string) []taskJSON {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "GET", Path: "/tasks" + query, User: user})
	expect(t, resp, 200, "")
	var tasks []taskJSON
	resp.JSON(t, &tasks)
	return tasks
}

func taskNamed(t *testing.T, env *servertest.Env, user, caseID, name string) taskJSON {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "GET", Path: "/tasks/case/" + caseID, User: user})
	expect(t, resp, 200, "")
	var tasks []taskJSON
	resp.JSON(t, &tasks)
	for i := len(tasks) - 1; i >= 0; i-- {
		if tasks[i].TaskName == name {
			return tasks[i]
		}
	}
	t.Fatalf("no task %q among %+v", name, tasks)
	return taskJSON{}
}

func taskDo(env *servertest.Env, user, method, id, action string, body any) *servertest.Response {
	path := "/tasks/" + id
	if action != "" {
		path += "/" + action
	}
	return env.Do(servertest.Request{Method: method, Path: path, User: user, Body: body})
}

func noPermission(cmd, id string) string {
	return cmd + "[" + id + "]: You do not have permission to perform this operation"
}

// TestTaskWorkflow walks the seed's workflow table on the incident model.
func TestTaskWorkflow(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupIncident(t, env, 1)
		triage := taskNamed(t, env, "alice", id, "Triage")
		if triage.TaskState != "Unassigned" || triage.Role != "Agent" || triage.CaseName != "Incident" || !*triage.MayPerform {
			t.Fatalf("triage = %+v", triage)
		}
		if bobs := taskNamed(t, env, "bob", id, "Triage"); *bobs.MayPerform {
			t.Fatalf("bob may perform triage: %+v", bobs)
		}
		// Visibility: the owner sees every task; a member sees tasks of his
		// roles; a stranger sees nothing.
		if got := tasksOf(t, env, "alice", ""); len(got) != 1 || got[0].ID != triage.ID {
			t.Fatalf("alice's tasks = %+v", got)
		}
		if got := tasksOf(t, env, "bob", ""); len(got) != 0 {
			t.Fatalf("bob sees tasks of a role he lacks: %+v", got)
		}
		if got := tasksOf(t, env, "zed", ""); len(got) != 0 {
			t.Fatalf("zed sees %+v", got)
		}
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tasks/" + triage.ID, User: "zed"}), 404, "A task with id '"+triage.ID+"' cannot be found.")
		expect(t, taskDo(env, "zed", "PUT", triage.ID, "claim", nil), 404, "A task with id '"+triage.ID+"' cannot be found.")

		// claim needs the role.
		expect(t, taskDo(env, "bob", "PUT", triage.ID, "claim", nil), 401, noPermission("ClaimTask", triage.ID))
		resp := taskDo(env, "alice", "PUT", triage.ID, "claim", nil)
		expect(t, resp, 202, "{}")
		if !strings.HasSuffix(resp.Header.Get("Case-Last-Modified"), ";"+id) {
			t.Errorf("Case-Last-Modified = %q", resp.Header.Get("Case-Last-Modified"))
		}
		if tk := taskNamed(t, env, "alice", id, "Triage"); tk.TaskState != "Assigned" || tk.Assignee != "alice" || tk.Owner != "alice" {
			t.Fatalf("after claim %+v", tk)
		}
		// Claiming one's own task changes nothing, and answers the case's
		// last change, as the reference engine answers its actor's.
		again := taskDo(env, "alice", "PUT", triage.ID, "claim", nil)
		expect(t, again, 202, "{}")
		if got, want := again.Header.Get("Case-Last-Modified"), resp.Header.Get("Case-Last-Modified"); got != want {
			t.Errorf("Case-Last-Modified of a claim that changed nothing = %q, want the claim's before it, %q", got, want)
		}
		expect(t, taskDo(env, "alice", "PUT", triage.ID, "revoke", nil), 202, "{}")
		if tk := taskNamed(t, env, "alice", id, "Triage"); tk.TaskState != "Unassigned" || tk.Assignee != "" || tk.Owner != "" {
			t.Fatalf("after revoke %+v", tk)
		}

		// An owner assigns to a newcomer, who joins the team with the role.
		expect(t, taskDo(env, "alice", "PUT", triage.ID, "assign", map[string]string{"assignee": "nina"}), 202, "{}")
		if tk := taskNamed(t, env, "nina", id, "Triage"); tk.TaskState != "Assigned" || tk.Assignee != "nina" || !*tk.MayPerform {
			t.Fatalf("after assign %+v", tk)
		}
		// A non-owner with the role assigns only to members holding it.
		expect(t, taskDo(env, "nina", "PUT", triage.ID, "assign", map[string]string{"assignee": "zed"}), 400,
			"AssignTask["+triage.ID+"]: There is no case team member with id 'zed'")
		expect(t, taskDo(env, "nina", "PUT", triage.ID, "assign", map[string]string{"assignee": "bob"}), 401,
			"AssignTask["+triage.ID+"]: The case team member with id 'bob' does not have the case role Agent")

		// Delegate to a member; the delegate revokes back to the owner.
		expect(t, taskDo(env, "nina", "PUT", triage.ID, "delegate", map[string]string{"assignee": "bob"}), 202, "{}")
		if tk := taskNamed(t, env, "bob", id, "Triage"); tk.TaskState != "Delegated" || tk.Assignee != "bob" || tk.Owner != "nina" {
			t.Fatalf("after delegate %+v", tk)
		}
		expect(t, taskDo(env, "bob", "PUT", triage.ID, "delegate", map[string]string{"assignee": "carl"}), 401, noPermission("DelegateTask", triage.ID))
		expect(t, taskDo(env, "bob", "PUT", triage.ID, "revoke", nil), 202, "{}")
		if tk := taskNamed(t, env, "bob", id, "Triage"); tk.TaskState != "Assigned" || tk.Assignee != "nina" {
			t.Fatalf("after the delegate's revoke %+v", tk)
		}

		// Save keeps the task open.
		expect(t, taskDo(env, "nina", "PUT", triage.ID, "", map[string]any{"Notes": "looks bad"}), 202, "{}")
		resp = env.Do(servertest.Request{Method: "GET", Path: "/tasks/" + triage.ID, User: "nina"})
		var saved taskJSON
		resp.JSON(t, &saved)
		if saved.TaskState != "Assigned" || saved.Output["Notes"] != "looks bad" {
			t.Fatalf("after save %+v", saved)
		}

		// The owner completes a task assigned to someone else: claimed first.
		expect(t, taskDo(env, "alice", "POST", triage.ID, "complete", nil), 202, "{}")
		if tk := taskNamed(t, env, "alice", id, "Triage"); tk.TaskState != "Completed" || tk.Assignee != "alice" {
			t.Fatalf("after complete %+v", tk)
		}
		expect(t, taskDo(env, "alice", "PUT", triage.ID, "claim", nil), 400, "")

		// Fix needs its output; bob completes it and Verify fix starts.
		fix := taskNamed(t, env, "bob", id, "Fix")
		if fix.TaskState != "Unassigned" {
			t.Fatalf("fix = %+v", fix)
		}
		resp = taskDo(env, "bob", "POST", fix.ID, "complete", nil)
		if resp.Status != 400 || !strings.Contains(resp.Body, "Resolution") {
			t.Fatalf("complete without output: %d %s", resp.Status, resp.Body)
		}
		expect(t, taskDo(env, "bob", "POST", fix.ID, "", map[string]any{}), 400, "")
		expect(t, taskDo(env, "bob", "POST", fix.ID, "", map[string]any{"Resolution": map[string]any{"Summary": "rebooted"}}), 202, "{}")
		expect(t, taskDo(env, "bob", "POST", fix.ID, "complete", map[string]any{"Resolution": map[string]any{"Summary": "rebooted", "Minutes": 5}}), 202, "{}")
		c := getCase(t, env, "bob", id)
		if r, _ := c.File["Resolution"].(map[string]any); r["Summary"] != "rebooted" {
			t.Fatalf("case file after fix = %v", c.File)
		}

		// Four eyes: bob fixed it, so he may not verify it.
		verify := taskNamed(t, env, "bob", id, "Verify fix")
		expect(t, taskDo(env, "bob", "PUT", verify.ID, "claim", nil), 401,
			"ClaimTask["+verify.ID+"]: Since you have worked on Fix you cannot also work on Verify fix")
		expect(t, taskDo(env, "carl", "PUT", verify.ID, "claim", nil), 202, "{}")
		expect(t, taskDo(env, "carl", "POST", verify.ID, "complete", map[string]any{}), 202, "{}")

		var count map[string]int
		env.Do(servertest.Request{Method: "GET", Path: "/tasks/user/count", User: "carl"}).JSON(t, &count)
		if count["claimed"] != 0 {
			t.Errorf("carl's count = %v", count)
		}
		if got := tasksOf(t, env, "alice", "?taskState=Completed"); len(got) != 3 {
			t.Errorf("completed tasks = %d, want 3", len(got))
		}
		if got := tasksOf(t, env, "alice", "?assignee=carl"); len(got) != 1 || got[0].TaskName != "Verify fix" {
			t.Errorf("carl's tasks = %+v", got)
		}
	})
}

// TestConcurrentClaims: fifty role holders claim one unassigned task at
// once. As in the reference engine a claim takes the task over from whoever
// holds it, so every claim that is not refused for contention wins in turn;
// nothing is half-applied or lost: the history holds one claim per winner
// and the task ends with one of them.
func TestConcurrentClaims(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupIncident(t, env, 1)
		users := make([]map[string]any, 50)
		for i := range users {
			users[i] = map[string]any{"userId": fmt.Sprintf("agent%02d", i), "roles": []string{"agents"}}
		}
		for _, u := range users {
			expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice", Body: u}), 204, "")
		}
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/cases/" + id + "/caseteam/tenant-roles", User: "alice",
			Body: map[string]any{"tenantRole": "agents", "caseRoles": []string{"Agent"}}}), 200, "{}")
		triage := taskNamed(t, env, "alice", id, "Triage")

		var wg sync.WaitGroup
		statuses := make([]int, len(users))
		bodies := make([]string, len(users))
		for i := range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp := taskDo(env, fmt.Sprintf("agent%02d", i), "PUT", triage.ID, "claim", nil)
				statuses[i], bodies[i] = resp.Status, resp.Body
			}()
		}
		wg.Wait()
		winners := map[string]bool{}
		for i, s := range statuses {
			switch s {
			case http.StatusAccepted:
				winners[fmt.Sprintf("agent%02d", i)] = true
			case http.StatusServiceUnavailable:
				if !strings.Contains(bodies[i], "try again") {
					t.Errorf("unclear refusal: %d %s", s, bodies[i])
				}
			default:
				t.Fatalf("claim %d answered %d %s", i, s, bodies[i])
			}
		}
		tk := taskNamed(t, env, "alice", id, "Triage")
		if len(winners) == 0 || tk.TaskState != "Assigned" || !winners[tk.Assignee] || tk.Owner != tk.Assignee {
			t.Fatalf("task after the race: %+v; winners %v", tk, winners)
		}
		var events []struct{ Type string }
		env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/history/events", User: "alice"}).JSON(t, &events)
		claims := 0
		for _, e := range events {
			if e.Type == "HumanTaskClaimed" {
				claims++
			}
		}
		if claims != len(winners) {
			t.Fatalf("%d claim events for %d successful claims", claims, len(winners))
		}
		t.Logf("%s: %d of 50 concurrent claims succeeded; %s holds the task", env.Flavor, len(winners), tk.Assignee)
	})
}

// TestClaimTakeover: a role holder may take over a task someone else
// claimed at once (reference §5 (d)): no grace period protects the holder.
func TestClaimTakeover(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		clk := &clock{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
		env = servertest.Start(t, env.Flavor, func(c *server.Config) { c.Now = clk.Now })
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "incident.xml", readModel(t, "incident.xml")), 204, "")
		id := startMatrixCase(t, env)
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/cases/" + id + "/caseteam/users", User: "alice",
			Body: map[string]any{"userId": "cora", "caseRoles": []string{"Agent"}}}), 200, "{}")
		triage := taskNamed(t, env, "alice", id, "Triage")
		expect(t, taskDo(env, "carl", "PUT", triage.ID, "claim", nil), 202, "{}")
		expect(t, taskDo(env, "cora", "PUT", triage.ID, "claim", nil), 202, "{}")
		if tk := taskNamed(t, env, "alice", id, "Triage"); tk.Assignee != "cora" || tk.Owner != "cora" {
			t.Fatalf("after the takeover: %+v", tk)
		}
		var events []struct{ Type string }
		env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/history/events", User: "alice"}).JSON(t, &events)
		claims := 0
		for _, e := range events {
			if e.Type == "HumanTaskClaimed" {
				claims++
			}
		}
		if claims != 2 {
			t.Fatalf("%d HumanTaskClaimed events, want 2", claims)
		}
	})
}

// TestTaskDueDateFilters: the permit review is due when it starts (its
// duedate expression is now); the date filters read dates in the offset of
// the timeZone header.
func TestTaskDueDateFilters(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		clk := &clock{now: time.Date(2026, 3, 1, 23, 30, 0, 0, time.UTC)}
		env = servertest.Start(t, env.Flavor, func(c *server.Config) { c.Now = clk.Now })
		setupPermit(t, env)
		count := func(query, tz string) int {
			resp := env.Do(servertest.Request{Method: "GET", Path: "/tasks" + query, User: "alice", Header: map[string]string{"timeZone": tz}})
			expect(t, resp, 200, "")
			var tasks []taskJSON
			resp.JSON(t, &tasks)
			return len(tasks)
		}
		tests := []struct {
			query, tz string
			want      int
		}{
			{"?dueOn=2026-03-01", "", 1},
			{"?dueOn=2026-03-02", "", 0},
			{"?dueOn=2026-03-02", "+01:00", 1},
			{"?dueBefore=2026-03-01", "", 0},
			{"?dueBefore=2026-03-02", "", 1},
			{"?dueAfter=2026-02-28", "", 1},
			{"?dueAfter=2026-03-01", "", 0},
		}
		for _, tt := range tests {
			if got := count(tt.query, tt.tz); got != tt.want {
				t.Errorf("%s (timeZone %q): %d tasks, want %d", tt.query, tt.tz, got, tt.want)
			}
		}
		tasks := tasksOf(t, env, "alice", "")
		if len(tasks) != 1 || tasks[0].DueDate != "2026-03-01T23:30:00Z" {
			t.Fatalf("tasks = %+v", tasks)
		}
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tasks?dueOn=yesterday", User: "alice"}), 400,
			"Invalid date 'yesterday' for dueOn; use yyyy-mm-dd")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tasks", User: "alice", Header: map[string]string{"timeZone": "Mars/Olympus"}}), 400,
			"Invalid timeZone header 'Mars/Olympus'; use an offset such as +01:00")
	})
}

// TestTaskRecordIsOneShape: GET /tasks/{id}, /tasks and /tasks/case/{id}
// answer one task alike (only the case's list adds mayPerform, as in the
// reference engine), with {} for a task without a task model.
func TestTaskRecordIsOneShape(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupIncident(t, env, 1)
		triage := taskNamed(t, env, "alice", id, "Triage")
		var ofCase []map[string]any
		env.Do(servertest.Request{Method: "GET", Path: "/tasks/case/" + id, User: "alice"}).JSON(t, &ofCase)
		var one map[string]any
		env.Do(servertest.Request{Method: "GET", Path: "/tasks/" + triage.ID, User: "alice"}).JSON(t, &one)
		var list []map[string]any
		env.Do(servertest.Request{Method: "GET", Path: "/tasks?taskName=Triage", User: "alice"}).JSON(t, &list)
		var fromCase map[string]any
		for _, tk := range ofCase {
			if tk["id"] == triage.ID {
				fromCase = tk
			}
		}
		if fromCase["mayPerform"] != true {
			t.Fatalf("the case's task list has no mayPerform: %v", fromCase)
		}
		delete(fromCase, "mayPerform")
		if len(list) != 1 || fmt.Sprint(list[0]) != fmt.Sprint(one) || fmt.Sprint(fromCase) != fmt.Sprint(one) {
			t.Fatalf("one task, three shapes:\n/tasks/{id}   %v\n/tasks        %v\n/tasks/case   %v", one, list, fromCase)
		}
		if m, ok := one["taskModel"].(map[string]any); !ok || len(m) != 0 {
			t.Fatalf("taskModel of a task without one = %#v, want {}", one["taskModel"])
		}
	})
}

// TestTaskLastModifiedFollowsWorkflow: a workflow command that changes a
// task stamps the task with the command's instant and user, as the
// reference engine's task records are stamped, so GET /tasks (newest
// change first) brings a task just claimed forward; its plan item, which
// did not transition, keeps its own time.
func TestTaskLastModifiedFollowsWorkflow(t *testing.T) {
	type stamped struct {
		ID           string `json:"id"`
		Name         string `json:"name"`
		TaskName     string `json:"taskName"`
		LastModified string `json:"lastModified"`
		ModifiedBy   string `json:"modifiedBy"`
	}
	instant := func(t *testing.T, text string) time.Time {
		t.Helper()
		at, err := time.Parse(time.RFC3339Nano, strings.Split(text, ";")[0])
		if err != nil {
			t.Fatalf("instant %q: %v", text, err)
		}
		return at
	}
	task := func(t *testing.T, env *servertest.Env, user, id string) stamped {
		t.Helper()
		var s stamped
		resp := env.Do(servertest.Request{Method: "GET", Path: "/tasks/" + id, User: user})
		expect(t, resp, 200, "")
		resp.JSON(t, &s)
		return s
	}
	triageItem := func(t *testing.T, env *servertest.Env, caseID string) stamped {
		t.Helper()
		var c struct {
			PlanItems []stamped `json:"planitems"`
		}
		resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + caseID, User: "alice"})
		expect(t, resp, 200, "")
		resp.JSON(t, &c)
		for _, p := range c.PlanItems {
			if p.Name == "Triage" {
				return p
			}
		}
		t.Fatalf("no Triage plan item in %+v", c.PlanItems)
		return stamped{}
	}
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		older := taskNamed(t, env, "alice", setupIncident(t, env, 1), "Triage")
		newer := taskNamed(t, env, "alice", startIncident(t, env, 1), "Triage")
		if got := tasksOf(t, env, "alice", ""); len(got) != 2 || got[0].ID != newer.ID {
			t.Fatalf("alice's tasks before the claim = %+v, want the newer case's first", got)
		}
		item := triageItem(t, env, older.CaseID)

		resp := taskDo(env, "alice", "PUT", older.ID, "claim", nil)
		expect(t, resp, 202, "{}")
		claimed := instant(t, resp.Header.Get("Case-Last-Modified"))
		if got := tasksOf(t, env, "alice", ""); len(got) != 2 || got[0].ID != older.ID {
			t.Fatalf("alice's tasks after claiming the older = %+v, want it first", got)
		}
		if got := task(t, env, "alice", older.ID); !instant(t, got.LastModified).Equal(claimed) || got.ModifiedBy != "alice" {
			t.Fatalf("claimed task %+v, want lastModified %v by alice", got, claimed)
		}
		if got := triageItem(t, env, older.CaseID); got.LastModified != item.LastModified || got.ModifiedBy != item.ModifiedBy {
			t.Fatalf("plan item after the claim %+v, want it untouched as %+v", got, item)
		}

		expect(t, taskDo(env, "alice", "PUT", older.ID, "assign", map[string]string{"assignee": "nina"}), 202, "{}")
		resp = taskDo(env, "nina", "PUT", older.ID, "", map[string]any{"Notes": "on it"})
		expect(t, resp, 202, "{}")
		if got := task(t, env, "nina", older.ID); !instant(t, got.LastModified).Equal(instant(t, resp.Header.Get("Case-Last-Modified"))) || got.ModifiedBy != "nina" {
			t.Fatalf("saved task %+v, want the save's instant by nina", got)
		}
		// A command that changes nothing leaves the stamp alone.
		before := task(t, env, "alice", newer.ID)
		expect(t, taskDo(env, "alice", "PUT", newer.ID, "revoke", nil), 202, "{}")
		if got := task(t, env, "alice", newer.ID); got != before {
			t.Fatalf("revoking an unassigned task changed it: %+v, was %+v", got, before)
		}
	})
}
