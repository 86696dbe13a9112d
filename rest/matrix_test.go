package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// The actors of the authorization matrix: a stranger, a member without the
// role an action needs, a member with it, and the case owner (who holds
// no case role but manages them all).
const (
	stranger = "zed"
	owner    = "alice"
)

// startMatrixCase starts an incident case whose team is: alice owner
// without roles, bob Engineer, carl Agent, dora Manager.
func startMatrixCase(t *testing.T, env *servertest.Env) string {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: map[string]any{
		"definition": "incident", "tenant": "acme",
		"inputs": map[string]any{"Incident": map[string]any{"Title": "Disk full", "Severity": 3}},
		"caseTeam": map[string]any{"users": []map[string]any{
			{"userId": "alice", "isOwner": true},
			{"userId": "bob", "caseRoles": []string{"Engineer"}},
			{"userId": "carl", "caseRoles": []string{"Agent"}},
			{"userId": "dora", "caseRoles": []string{"Manager"}},
		}},
	}})
	expect(t, resp, 200, "")
	var started struct{ CaseInstanceID string }
	resp.JSON(t, &started)
	return started.CaseInstanceID
}

// matrixRow is one route: how to call it on a fresh case, which member
// lacks and which holds the role it needs, and what each actor gets.
type matrixRow struct {
	name string
	// call sends the request as user on case id (task: the Triage task).
	call func(env *servertest.Env, user, id, task string) *servertest.Response
	// without and with are the members lacking and holding the role the
	// route needs; with "" the route needs no role beyond membership
	// (or ownership).
	without, with string
	// member, withRole and ownerStatus are the statuses of a member without
	// the role, with it, and the owner.
	member, withRole, ownerStatus int
}

func get(path string) func(env *servertest.Env, user, id, task string) *servertest.Response {
	return func(env *servertest.Env, user, id, task string) *servertest.Response {
		p := strings.NewReplacer("{id}", id, "{task}", task).Replace(path)
		return env.Do(servertest.Request{Method: "GET", Path: p, User: user})
	}
}

func send(method, path string, body any) func(env *servertest.Env, user, id, task string) *servertest.Response {
	return func(env *servertest.Env, user, id, task string) *servertest.Response {
		p := strings.NewReplacer("{id}", id, "{task}", task).Replace(path)
		return env.Do(servertest.Request{Method: method, Path: p, User: user, Body: body})
	}
}

// matrixRows are every route that touches a case, one row each.
func matrixRows(t *testing.T) []matrixRow {
	return []matrixRow{
		{name: "get case", call: get("/cases/{id}"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "plan items", call: get("/cases/{id}/planitems"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "plan item", call: get("/cases/{id}/planitems/{task}"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "case file", call: get("/cases/{id}/casefile"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "definition", call: get("/cases/{id}/definition"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "team", call: get("/cases/{id}/caseteam"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "events", call: get("/cases/{id}/history/events"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "plan item history", call: get("/cases/{id}/history/planitems/{task}"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "documentation", call: get("/cases/{id}/documentation/planitems/{task}"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "discretionary items", call: get("/cases/{id}/discretionaryitems"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "case tasks", call: get("/tasks/case/{id}"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "task", call: get("/tasks/{task}"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "update case file", call: send("PUT", "/cases/{id}/casefile/update/Incident", map[string]any{"Severity": 4}),
			without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "raise user event", call: send("POST", "/cases/{id}/planitems/Escalate/occur", nil),
			without: "bob", with: "dora", member: 401, withRole: 200, ownerStatus: 200},
		{name: "complete plan item", call: send("POST", "/cases/{id}/planitems/{task}/complete", nil),
			without: "bob", with: "carl", member: 400, withRole: 200, ownerStatus: 200},
		{name: "suspend case", call: send("POST", "/cases/{id}/planitems/Incident/suspend", nil),
			without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "set team", call: send("POST", "/cases/{id}/caseteam", map[string]any{"users": []map[string]any{{"userId": "alice", "isOwner": true}}}),
			without: "bob", member: 401, withRole: 401, ownerStatus: 200},
		{name: "add team user", call: send("POST", "/cases/{id}/caseteam/users", map[string]any{"userId": "erin"}),
			without: "bob", member: 401, withRole: 401, ownerStatus: 200},
		{name: "remove team user", call: send("DELETE", "/cases/{id}/caseteam/users/dora", nil),
			without: "bob", member: 401, withRole: 401, ownerStatus: 200},
		{name: "claim", call: send("PUT", "/tasks/{task}/claim", nil), without: "bob", with: "carl", member: 401, withRole: 202, ownerStatus: 202},
		{name: "assign", call: send("PUT", "/tasks/{task}/assign", map[string]string{"assignee": "carl"}),
			without: "bob", with: "carl", member: 401, withRole: 202, ownerStatus: 202},
		{name: "delegate", call: send("PUT", "/tasks/{task}/delegate", map[string]string{"assignee": "carl"}),
			without: "bob", with: "carl", member: 401, withRole: 202, ownerStatus: 202},
		{name: "complete task", call: send("POST", "/tasks/{task}/complete", map[string]any{}),
			without: "bob", with: "carl", member: 401, withRole: 202, ownerStatus: 202},
		{name: "save task", call: send("PUT", "/tasks/{task}", map[string]any{"Notes": "x"}),
			without: "bob", with: "carl", member: 401, withRole: 202, ownerStatus: 202},
		{name: "validate task", call: send("POST", "/tasks/{task}", map[string]any{}),
			without: "bob", with: "carl", member: 401, withRole: 202, ownerStatus: 202},
		{name: "plan discretionary item", call: func(env *servertest.Env, user, id, task string) *servertest.Response {
			c := getCase(t, env, "alice", id)
			return env.Do(servertest.Request{Method: "POST", Path: "/cases/" + id + "/discretionaryitems/plan", User: user,
				Body: map[string]any{"name": "Write post mortem", "definitionId": "di_postmortem", "parentId": c.PlanItems[0].ID}})
		}, without: "bob", with: "dora", member: 400, withRole: 200, ownerStatus: 200},
		{name: "plan items history", call: get("/cases/{id}/history/planitems"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "case file documentation", call: get("/cases/{id}/documentation/casefile"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "debug events", call: get("/debug/{id}"), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "debug mode", call: send("PUT", "/cases/{id}/debug/true", nil), without: "bob", member: 200, withRole: 200, ownerStatus: 200},
		{name: "upsert team", call: send("PUT", "/cases/{id}/caseteam", map[string]any{"memberId": "erin", "memberType": "user"}),
			without: "bob", member: 401, withRole: 401, ownerStatus: 200},
		{name: "remove team member", call: send("DELETE", "/cases/{id}/caseteam/dora", nil), without: "bob", member: 401, withRole: 401, ownerStatus: 200},
		{name: "add team role", call: send("POST", "/cases/{id}/caseteam/tenant-roles", map[string]any{"tenantRole": "clerk"}),
			without: "bob", member: 401, withRole: 401, ownerStatus: 200},
		{name: "revoke", call: send("PUT", "/tasks/{task}/revoke", nil), without: "bob", with: "carl", member: 401, withRole: 202, ownerStatus: 202},
	}
}

func TestAuthorizationMatrix(t *testing.T) {
	rows := matrixRows(t)
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "incident.xml", readModel(t, "incident.xml")), 204, "")
		for _, row := range rows {
			t.Run(row.name, func(t *testing.T) {
				with := row.with
				if with == "" {
					with = "carl"
				}
				for _, actor := range []struct {
					user   string
					status int
				}{{stranger, 404}, {row.without, row.member}, {with, row.withRole}, {owner, row.ownerStatus}} {
					id := startMatrixCase(t, env)
					task := taskNamed(t, env, "alice", id, "Triage").ID
					resp := row.call(env, actor.user, id, task)
					if resp.Status != actor.status {
						t.Errorf("%s: got %d %s, want %d", actor.user, resp.Status, resp.Body, actor.status)
					}
					if actor.user == stranger && strings.Contains(resp.Body, "Disk full") {
						t.Errorf("the stranger got case data: %s", resp.Body)
					}
				}
			})
		}
		// Lists show a stranger nothing at all.
		for _, path := range []string{"/cases", "/tasks", "/identifiers", "/identifiers/names"} {
			expect(t, env.Do(servertest.Request{Method: "GET", Path: path, User: stranger}), http.StatusOK, "[]")
		}
		var count map[string]int
		env.Do(servertest.Request{Method: "GET", Path: "/tasks/user/count", User: stranger}).JSON(t, &count)
		if count["claimed"] != 0 || count["unclaimed"] != 0 {
			t.Errorf("stranger's count = %v", count)
		}
	})
}
