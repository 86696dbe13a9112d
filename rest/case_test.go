package rest_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// planItemJSON is the reference engine's plan item as tests read it.
type planItemJSON struct {
	ID           string `json:"id"`
	CaseID       string `json:"caseInstanceId"`
	Name         string `json:"name"`
	Type         string `json:"type"`
	CurrentState string `json:"currentState"`
	StageID      string `json:"stageId"`
	Transition   string `json:"transition"`
	Index        int    `json:"index"`
}

type caseJSON struct {
	ID        string         `json:"id"`
	Tenant    string         `json:"tenant"`
	CaseName  string         `json:"caseName"`
	State     string         `json:"state"`
	PlanItems []planItemJSON `json:"planitems"`
	File      map[string]any `json:"file"`
	Team      struct {
		Users []struct {
			UserID    string   `json:"userId"`
			Origin    string   `json:"origin"`
			IsOwner   bool     `json:"isOwner"`
			CaseRoles []string `json:"caseRoles"`
		} `json:"users"`
		CaseRoles       []string `json:"caseRoles"`
		UnassignedRoles []string `json:"unassignedRoles"`
	} `json:"team"`
	Identifiers []struct{ Name, Value string } `json:"identifiers"`
}

// setupPermit creates tenant acme (alice owner, bob clerk), deploys
// permit.xml and starts a case with alice as owner and Reviewer, bob as
// Clerk. It returns the case id.
func setupPermit(t *testing.T, env *servertest.Env) string {
	t.Helper()
	createTenant(t, env, "acme")
	expect(t, deploy(env, "alice", "permit.xml", readModel(t, "permit.xml")), 204, "")
	return startPermit(t, env, "")
}

func startPermit(t *testing.T, env *servertest.Env, id string) string {
	t.Helper()
	body := map[string]any{
		"definition": "permit",
		"tenant":     "acme",
		"inputs": map[string]any{"Application": map[string]any{
			"Applicant": "Ann Builder", "Address": "Main Street 1", "Floors": 3, "Reviewer": "alice"}},
		"caseTeam": map[string]any{"users": []map[string]any{
			{"userId": "alice", "isOwner": true, "caseRoles": []string{"Reviewer"}},
			{"userId": "bob", "caseRoles": []string{"Clerk"}},
		}},
	}
	if id != "" {
		body["caseInstanceId"] = id
	}
	resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: body})
	if resp.Status != http.StatusOK {
		t.Fatalf("start case: %d %s", resp.Status, resp.Body)
	}
	var started struct{ CaseInstanceID, Name string }
	resp.JSON(t, &started)
	if started.CaseInstanceID == "" || started.Name != "BuildingPermit" {
		t.Fatalf("start case answered %s", resp.Body)
	}
	if lm := resp.Header.Get("Case-Last-Modified"); !strings.HasSuffix(lm, ";"+started.CaseInstanceID) {
		t.Fatalf("Case-Last-Modified = %q", lm)
	}
	return started.CaseInstanceID
}

func getCase(t *testing.T, env *servertest.Env, user, id string) caseJSON {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: user})
	if resp.Status != http.StatusOK {
		t.Fatalf("get case as %s: %d %s", user, resp.Status, resp.Body)
	}
	var c caseJSON
	resp.JSON(t, &c)
	return c
}

func itemByName(t *testing.T, c caseJSON, name string) planItemJSON {
	t.Helper()
	for i := len(c.PlanItems) - 1; i >= 0; i-- {
		if c.PlanItems[i].Name == name {
			return c.PlanItems[i]
		}
	}
	t.Fatalf("no plan item %q in %+v", name, c.PlanItems)
	return planItemJSON{}
}

func transition(env *servertest.Env, user, caseID, item, tr string) *servertest.Response {
	return env.Do(servertest.Request{Method: "POST", Path: "/cases/" + caseID + "/planitems/" + item + "/" + tr, User: user})
}

// TestPermitCaseRunsToCompletion is the hello-world path: the first task is
// Active, its completion activates the next one through the sentry, and the
// case completes.
func TestPermitCaseRunsToCompletion(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		c := getCase(t, env, "bob", id)
		if c.State != "Active" || c.CaseName != "BuildingPermit" || c.Tenant != "acme" {
			t.Fatalf("case = %+v", c)
		}
		if c.PlanItems[0].Type != "CasePlan" || c.PlanItems[0].CurrentState != "Active" {
			t.Fatalf("case plan = %+v", c.PlanItems[0])
		}
		review, inform := itemByName(t, c, "Review application"), itemByName(t, c, "Inform applicant")
		if review.CurrentState != "Active" || inform.CurrentState != "Available" || review.StageID != c.PlanItems[0].ID {
			t.Fatalf("review %+v, inform %+v", review, inform)
		}
		if app, _ := c.File["Application"].(map[string]any); app["Applicant"] != "Ann Builder" {
			t.Fatalf("case file = %v", c.File)
		}
		if len(c.Identifiers) != 1 || c.Identifiers[0].Value != "Ann Builder" {
			t.Errorf("identifiers = %+v", c.Identifiers)
		}
		if strings.Join(c.Team.CaseRoles, ",") != "Reviewer,Clerk" || len(c.Team.Users) != 2 || c.Team.Users[0].Origin != "Tenant" {
			t.Errorf("team = %+v", c.Team)
		}

		// Bob lacks the Reviewer role: he may not complete the review.
		resp := transition(env, "bob", id, review.ID, "complete")
		expect(t, resp, 400, "You do not have the permission to perform the task Review application")

		resp = env.Do(servertest.Request{Method: "POST", Path: "/cases/" + id + "/casefile/create/Decision", User: "alice",
			Body: map[string]any{"Approved": true, "Remark": "fine"}})
		expect(t, resp, 200, "{}")
		if !strings.HasSuffix(resp.Header.Get("Case-Last-Modified"), ";"+id) {
			t.Errorf("Case-Last-Modified = %q", resp.Header.Get("Case-Last-Modified"))
		}
		expect(t, transition(env, "alice", id, review.ID, "complete"), 200, "{}")
		// Completing it again changes nothing.
		expect(t, transition(env, "alice", id, review.ID, "complete"), 304, "")

		c = getCase(t, env, "bob", id)
		if got := itemByName(t, c, "Inform applicant").CurrentState; got != "Active" {
			t.Fatalf("inform applicant is %s after the review, want Active", got)
		}
		// By name, as the reference engine allows.
		expect(t, transition(env, "bob", id, "Inform applicant", "Complete"), 200, "{}")
		c = getCase(t, env, "alice", id)
		if c.State != "Completed" {
			t.Fatalf("case state %s after all tasks, want Completed; items %+v", c.State, c.PlanItems)
		}

		var hist [][]map[string]any
		resp = env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/history/planitems", User: "bob"})
		expect(t, resp, 200, "")
		resp.JSON(t, &hist)
		if len(hist) != len(c.PlanItems) {
			t.Errorf("history has %d plan items, case has %d", len(hist), len(c.PlanItems))
		}
		resp = env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/history/planitems/" + review.ID, User: "bob"})
		var reviewHist []map[string]any
		resp.JSON(t, &reviewHist)
		if last := reviewHist[len(reviewHist)-1]; last["currentState"] != "Completed" || last["transition"] != "Complete" {
			t.Errorf("review history ends with %v", last)
		}
	})
}

// TestCaseDefinitionIsCaseName: a case record's definition and name are
// the reference engine's deprecated copies of caseName (GraphQL's
// Case.definition differs: the definition's name).
func TestCaseDefinitionIsCaseName(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		var list []map[string]any
		env.Do(servertest.Request{Method: "GET", Path: "/cases", User: "alice"}).JSON(t, &list)
		var one map[string]any
		env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "alice"}).JSON(t, &one)
		for _, c := range append(list, one) {
			if c["caseName"] != "BuildingPermit" || c["definition"] != "BuildingPermit" || c["name"] != "BuildingPermit" {
				t.Fatalf("case = caseName %v, definition %v, name %v; want BuildingPermit for all three", c["caseName"], c["definition"], c["name"])
			}
		}
	})
}

func TestCaseVisibility(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		for _, path := range []string{"", "/planitems", "/casefile", "/definition", "/history/events", "/history/planitems", "/documentation/casefile"} {
			hidden := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + path, User: "zed"})
			unknown := env.Do(servertest.Request{Method: "GET", Path: "/cases/nosuchcase" + path, User: "zed"})
			expect(t, hidden, 404, "A case with id '"+id+"' cannot be found.")
			expect(t, unknown, 404, "A case with id 'nosuchcase' cannot be found.")
		}
		c := getCase(t, env, "alice", id)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/planitems/" + c.PlanItems[1].ID, User: "zed"}),
			404, "A plan item with id '"+c.PlanItems[1].ID+"' cannot be found.")
		expect(t, transition(env, "zed", id, c.PlanItems[1].ID, "complete"), 404, "A case with id '"+id+"' cannot be found.")

		var list []map[string]any
		resp := env.Do(servertest.Request{Method: "GET", Path: "/cases", User: "bob"})
		resp.JSON(t, &list)
		if len(list) != 1 || list[0]["id"] != id || list[0]["caseName"] != "BuildingPermit" {
			t.Fatalf("bob's cases = %s", resp.Body)
		}
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases", User: "zed"}), 200, "[]")
	})
}

// TestRestartContinuesCase stops the server in the middle of a case and
// starts a new one on the same database, which continues the case.
func TestRestartContinuesCase(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/cases/" + id + "/casefile/create/Decision", User: "alice",
			Body: map[string]any{"Approved": false}}), 200, "{}")
		dbURL := env.DatabaseURL
		env.Stop()

		env2 := servertest.Start(t, env.Flavor, func(c *server.Config) { c.DatabaseURL = dbURL })
		c := getCase(t, env2, "alice", id)
		expect(t, transition(env2, "alice", id, itemByName(t, c, "Review application").ID, "complete"), 200, "{}")
		expect(t, transition(env2, "bob", id, "Inform applicant", "complete"), 200, "{}")
		if c = getCase(t, env2, "alice", id); c.State != "Completed" {
			t.Fatalf("after restart the case ended %s", c.State)
		}
	})
}

func TestStartCaseErrors(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		team := func(users ...map[string]any) map[string]any { return map[string]any{"users": users} }
		tests := []struct {
			name   string
			body   map[string]any
			status int
			want   string
		}{
			{"unknown tenant", map[string]any{"definition": "permit", "tenant": "nosuch"}, 404, "An active tenant with id 'nosuch' cannot be found."},
			{"no definition", map[string]any{"tenant": "acme"}, 400, "Cannot find or load definition .xml"},
			{"unknown definition", map[string]any{"definition": "nope", "tenant": "acme"}, 400, "Cannot find or load definition nope.xml"},
			{"undefined role", map[string]any{"definition": "permit", "tenant": "acme",
				"caseTeam": team(map[string]any{"userId": "alice", "isOwner": true, "caseRoles": []string{"Pilot", "Clerk", "Cook"}})},
				400, "The following role(s) are not defined in the case: Pilot, Cook"},
			{"empty role", map[string]any{"definition": "permit", "tenant": "acme",
				"caseTeam": team(map[string]any{"userId": "alice", "isOwner": true, "caseRoles": []string{""}})}, 400, "An empty role is not permitted"},
			{"no owner", map[string]any{"definition": "permit", "tenant": "acme",
				"caseTeam": team(map[string]any{"userId": "alice"})}, 400, "The case team needs to have at least one owner"},
			{"duplicate users", map[string]any{"definition": "permit", "tenant": "acme",
				"caseTeam": team(map[string]any{"userId": "alice", "isOwner": true}, map[string]any{"userId": "alice"})},
				400, "The request content was malformed: Case team contains duplicate user entries: ['alice']"},
			{"duplicate case id", map[string]any{"definition": "permit", "tenant": "acme", "caseInstanceId": id},
				400, "Failure while handling message StartCase. Check the server logs for more details"},
			{"invalid case id", map[string]any{"definition": "permit", "tenant": "acme", "caseInstanceId": "a/b"}, 400, ""},
			{"unknown input", map[string]any{"definition": "permit", "tenant": "acme", "inputs": map[string]any{"Nope": 1}},
				400, "An input parameter with name Nope is not defined in the case"},
			{"unknown field", map[string]any{"definition": "permit", "tenant": "acme", "color": "blue"},
				400, `The request content was malformed: Unrecognized field "color"`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				expect(t, env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: tt.body}), tt.status, tt.want)
			})
		}
		// The seed's team format: a plain array of members.
		resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "bob", Body: map[string]any{
			"definition": "permit.xml", "tenant": "acme", "caseInstanceId": "seed_team",
			"caseTeam": []map[string]any{{"memberId": "bob", "isOwner": true}, {"memberId": "clerk", "memberType": "role", "caseRoles": []string{"Clerk"}}},
		}})
		expect(t, resp, 200, `{"caseInstanceId":"seed_team","name":"BuildingPermit"}`)
		// Without a team the starter is the only member and owner.
		resp = env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "carl", Body: map[string]any{"definition": "permit", "tenant": "acme", "caseInstanceId": "solo"}})
		expect(t, resp, 200, "")
		if c := getCase(t, env, "carl", "solo"); len(c.Team.Users) != 1 || !c.Team.Users[0].IsOwner || c.Team.Users[0].Origin != "IDP" {
			t.Fatalf("default team = %+v", c.Team)
		}
	})
}

func TestPlanItemTransitionErrors(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		expect(t, transition(env, "alice", id, "Review application", "dance"), 400, "Transition null is not valid")
		expect(t, transition(env, "alice", id, "nothing-here", "complete"), 400, "There is no plan item with identifier 'nothing-here' in case "+id)
		c := getCase(t, env, "alice", id)
		// The case plan has no resume: 304.
		expect(t, transition(env, "alice", id, c.PlanItems[0].ID, "resume"), 304, "")
		expect(t, transition(env, "alice", id, c.PlanItems[0].ID, "suspend"), 200, "{}")
		if c = getCase(t, env, "alice", id); c.State != "Suspended" {
			t.Fatalf("suspended case is %s", c.State)
		}
		expect(t, transition(env, "alice", id, c.PlanItems[0].ID, "reactivate"), 200, "{}")
		if c = getCase(t, env, "alice", id); c.State != "Active" {
			t.Fatalf("reactivated case is %s", c.State)
		}
	})
}

func TestCaseFileRoutes(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		do := func(method, op, path string, body any) *servertest.Response {
			return env.Do(servertest.Request{Method: method, Path: "/cases/" + id + "/casefile/" + op + path, User: "bob", Body: body})
		}
		expect(t, do("POST", "create", "/Application", map[string]any{"Applicant": "x"}), 400,
			"CreateCaseFileItem[Application] cannot be done because item is in state Available")
		expect(t, do("PUT", "update", "/Application", map[string]any{"Floors": 4}), 200, "{}")
		expect(t, do("PUT", "update", "/Application", map[string]any{"Floors": "four"}), 400, "")
		expect(t, do("POST", "create", "/Nowhere", map[string]any{}), 400, "The path 'Nowhere' is invalid, since the part 'Nowhere' is not defined in the case file")
		expect(t, do("PUT", "replace", "/Decision", map[string]any{"Approved": true}), 200, "{}")
		expect(t, do("DELETE", "delete", "/Decision", nil), 200, "{}")

		var file map[string]map[string]any
		resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/casefile", User: "bob"})
		resp.JSON(t, &file)
		if file["Application"]["Floors"] != float64(4) || file["Application"]["Applicant"] != "Ann Builder" {
			t.Fatalf("case file after update = %v", file)
		}
	})
}

// TestCaseFilePathsAsSent: a path with an empty, "." or ".." segment is
// taken as sent, as the reference engine takes it. ServeMux redirected it
// to the cleaned path before the token was checked, and a client that
// followed the redirect changed another item than it named.
func TestCaseFilePathsAsSent(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		file := func() string {
			resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/casefile", User: "bob"})
			expect(t, resp, 200, "")
			return resp.Body
		}
		before := file()
		for _, c := range []struct{ method, op, item, part string }{
			{"PUT", "update", "Application//Floors", ""},
			{"POST", "create", "/Decision", ""},
			{"PUT", "replace", "Decision//", ""},
			{"DELETE", "delete", "Application/../Decision", ".."},
			{"PUT", "update", "./Application", "."},
		} {
			var body any = map[string]any{"Floors": 9}
			if c.method == "DELETE" {
				body = nil
			}
			path := "/cases/" + id + "/casefile/" + c.op + "/" + c.item
			expect(t, env.Do(servertest.Request{Method: c.method, Path: path, User: "bob", Body: body}), 400,
				"The path '"+c.item+"' is invalid, since the part '"+c.part+"' is not defined in the case file")
			// Membership and the token come first, as on every route.
			expect(t, env.Do(servertest.Request{Method: c.method, Path: path, User: "zed", Body: body}), 404, "A case with id '"+id+"' cannot be found.")
			expect(t, env.Do(servertest.Request{Method: c.method, Path: path, Body: body}), 401, "")
		}
		if after := file(); after != before {
			t.Fatalf("the case file changed from %s to %s", before, after)
		}
		// Elsewhere such a path matches no route: no redirect either.
		resp := env.Do(servertest.Request{Method: "GET", Path: "/cases//" + id + "/casefile", User: "bob"})
		expect(t, resp, 404, "The requested resource could not be found but may be available again in the future.")
		if loc := resp.Header.Get("Location"); loc != "" {
			t.Errorf("Location %q", loc)
		}
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/cases/" + id + "/casefile/create/../../" + id + "/casefile/create/Decision", User: "bob",
			Body: map[string]any{"Approved": true}}), 400, "")
		resp = env.Do(servertest.Request{Method: "PUT", Path: "/cases/" + id + "//debug/true", User: "bob"})
		expect(t, resp, 405, "")
		if allow := resp.Header.Get("Allow"); allow != "GET, HEAD" {
			t.Errorf("Allow %q for a path no route serves, want GET, HEAD", allow)
		}
	})
}

func TestDebugMode(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		expect(t, env.Do(servertest.Request{Method: "PUT", Path: "/cases/" + id + "/debug/true", User: "bob"}), 200, "{}")
		expect(t, env.Do(servertest.Request{Method: "PUT", Path: "/cases/" + id + "/debug/maybe", User: "bob"}), 400, "")
		expect(t, env.Do(servertest.Request{Method: "PUT", Path: "/cases/" + id + "/debug/false", User: "zed"}), 404, "A case with id '"+id+"' cannot be found.")
		var events []struct{ Type string }
		env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/history/events", User: "bob"}).JSON(t, &events)
		if events[len(events)-2].Type != "DebugEnabled" || events[len(events)-1].Type != "CaseModified" {
			t.Fatalf("last events = %+v", events[len(events)-2:])
		}
	})
}

func TestDebugEvents(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		type modelEvent struct {
			Actor, ActorID, CorrelationID, Tenant, Timestamp string
			User                                             struct {
				UserID, Origin      string
				TenantRoles, Groups []string
			}
		}
		type entry struct {
			Nr      int64
			Offset  string
			Type    string
			Content struct {
				ModelEvent    modelEvent
				EngineVersion json.RawMessage
			}
		}
		var events []entry
		resp := env.Do(servertest.Request{Method: "GET", Path: "/debug/" + id, User: "bob"})
		expect(t, resp, 200, "")
		resp.JSON(t, &events)
		if len(events) < 3 || events[0].Type != "CaseDefinitionApplied" || events[0].Offset != "0" || events[0].Nr != 1 {
			t.Fatalf("events = %+v", events[:min(len(events), 3)])
		}
		me := events[0].Content.ModelEvent
		if me.Tenant != "acme" || me.ActorID != id || me.Actor != "Case["+id+"]" || me.User.UserID != "alice" ||
			me.User.Origin != "Tenant" || me.User.TenantRoles == nil || me.User.Groups == nil || me.CorrelationID == "" {
			t.Fatalf("modelEvent = %+v", me)
		}
		// Every event of one command shares the command's id.
		for _, e := range events {
			if e.Content.ModelEvent.CorrelationID != me.CorrelationID {
				t.Fatalf("event %d has correlation id %q, the start %q", e.Nr, e.Content.ModelEvent.CorrelationID, me.CorrelationID)
			}
		}
		// The version document, as text: clients compare the two so.
		version := env.Do(servertest.Request{Method: "GET", Path: "/version"}).Body
		if string(events[0].Content.EngineVersion) != version {
			t.Fatalf("engineVersion = %s, /version = %s", events[0].Content.EngineVersion, version)
		}
		if !strings.HasPrefix(version, `{"name":`) || !strings.Contains(version, `"builtAtString":"`) {
			t.Fatalf("/version = %s", version)
		}

		// from and to are event numbers, both included, as the
		// reference's journal query reads them.
		for query, want := range map[string][]int64{"?from=2&to=3": {2, 3}, "?from=1&to=1": {1}, "?to=0": nil, "?from=0&to=2": {1, 2}} {
			env.Do(servertest.Request{Method: "GET", Path: "/debug/" + id + query, User: "bob"}).JSON(t, &events)
			var got []int64
			for _, e := range events {
				got = append(got, e.Nr)
			}
			if !slices.Equal(got, want) {
				t.Errorf("GET /debug/%s%s: events %v, want %v", id, query, got, want)
			}
		}
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/debug/" + id + "?from=abc", User: "bob"}), 400,
			"The query parameter 'from' was malformed:\n'abc' is not a valid 64-bit signed integer value")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/debug/" + id + "?to=1.5", User: "bob"}), 400,
			"The query parameter 'to' was malformed:\n'1.5' is not a valid 64-bit signed integer value")

		// A CorrelationId header names every event of the request; a
		// request without one gets a fresh command id.
		env.Do(servertest.Request{Method: "GET", Path: "/debug/" + id, User: "bob"}).JSON(t, &events)
		n := len(events)
		expect(t, env.Do(servertest.Request{Method: "PUT", Path: "/cases/" + id + "/debug/true", User: "bob",
			Header: map[string]string{"CorrelationId": "my-request-1"}}), 200, "{}")
		expect(t, env.Do(servertest.Request{Method: "PUT", Path: "/cases/" + id + "/debug/false", User: "bob"}), 200, "{}")
		env.Do(servertest.Request{Method: "GET", Path: "/debug/" + id + "?from=" + strconv.Itoa(n+1), User: "bob"}).JSON(t, &events)
		if len(events) != 4 {
			t.Fatalf("events after %d = %+v", n, events)
		}
		for i, want := range []string{"my-request-1", "my-request-1"} {
			if got := events[i].Content.ModelEvent.CorrelationID; got != want {
				t.Errorf("event %d: correlation id %q, want %q", events[i].Nr, got, want)
			}
		}
		if c := events[2].Content.ModelEvent.CorrelationID; c == "my-request-1" || c == me.CorrelationID || c != events[3].Content.ModelEvent.CorrelationID {
			t.Errorf("the second command's correlation ids: %q, %q", c, events[3].Content.ModelEvent.CorrelationID)
		}
		// History shows the same entries.
		var history []entry
		env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/history/events", User: "bob"}).JSON(t, &history)
		if len(history) != n+4 || history[n].Content.ModelEvent.CorrelationID != "my-request-1" {
			t.Fatalf("history has %d events, correlation %+v", len(history), history[min(n, len(history)-1)].Content.ModelEvent)
		}
		long := strings.Repeat("x", 201)
		expect(t, env.Do(servertest.Request{Method: "PUT", Path: "/cases/" + id + "/debug/true", User: "bob",
			Header: map[string]string{"CorrelationId": long}}), 400, "The CorrelationId header must not be longer than 200 characters")
		expect(t, env.Do(servertest.Request{Method: "PUT", Path: "/cases/" + id + "/debug/true", User: "bob",
			Header: map[string]string{"CorrelationId": "a\xffb"}}), 400, "The CorrelationId header must be UTF-8 text")

		// The reference engine shows it to every user of the tenant and to
		// platform owners; here the team decides, as for every case read.
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice", Body: map[string]any{"userId": "carl"}}), 204, "")
		for _, u := range []string{"zed", "carl", admin} {
			expect(t, env.Do(servertest.Request{Method: "GET", Path: "/debug/" + id, User: u}), 404, "A case with id '"+id+"' cannot be found.")
		}
	})
}

// TestListPagingParameters: offset and numberOfResults are 32-bit
// integers as in the reference's routes: anything else is its 400; zero
// results are an empty list; a page has a bound.
func TestListPagingParameters(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		setupPermit(t, env)
		for _, list := range []string{"/cases", "/tasks", "/identifiers"} {
			get := func(query string) *servertest.Response {
				return env.Do(servertest.Request{Method: "GET", Path: list + query, User: "alice"})
			}
			expect(t, get("?numberOfResults=abc"), 400, "The query parameter 'numberOfResults' was malformed:\n'abc' is not a valid 32-bit signed integer value")
			expect(t, get("?offset=1e3"), 400, "The query parameter 'offset' was malformed:\n'1e3' is not a valid 32-bit signed integer value")
			expect(t, get("?numberOfResults=2147483648"), 400,
				"The query parameter 'numberOfResults' was malformed:\n'2147483648' is not a valid 32-bit signed integer value")
			expect(t, get("?numberOfResults=10001"), 400, "numberOfResults 10001 is over the limit of 10000; page through with offset")
			expect(t, get("?numberOfResults=0"), 200, "[]")
			if list == "/identifiers" {
				continue // the permit case has none
			}
			for _, query := range []string{"", "?numberOfResults=", "?numberOfResults=10000", "?numberOfResults=-1&offset=-5"} {
				if resp := get(query); resp.Status != 200 || resp.Body == "[]" {
					t.Errorf("GET %s%s: %d %s, want the case's row", list, query, resp.Status, resp.Body)
				}
			}
		}
	})
}

// TestOnlyTenantUsersStart: with CASEGRAPH_ONLY_TENANT_USERS_START, a
// caller who is not an enabled user of the tenant cannot start a case in
// it (nor learn which definitions it has): the answer of an unknown
// tenant. Its users still can. Without it, anyone with a valid token may,
// as in the reference engine (rest/compat TestCases).
func TestOnlyTenantUsersStart(t *testing.T) {
	forEachDBWith(t, func(c *server.Config) { c.OnlyTenantUsersStart = true }, func(t *testing.T, env *servertest.Env) {
		setupPermit(t, env)
		start := func(user, definition string) *servertest.Response {
			return env.Do(servertest.Request{Method: "POST", Path: "/cases", User: user,
				Body: map[string]any{"definition": definition, "tenant": "acme"}})
		}
		for _, definition := range []string{"permit", "nosuch"} {
			expect(t, start("zed", definition), 404, "An active tenant with id 'acme' cannot be found.")
		}
		expect(t, start("carol", "permit"), 401, "The user account carol has been disabled")
		if resp := start("bob", "permit"); resp.Status != 200 {
			t.Fatalf("bob, a user of acme: %d %s", resp.Status, resp.Body)
		}
		resp := env.Do(servertest.Request{Method: "GET", Path: "/cases", User: "zed"})
		expect(t, resp, 200, "[]")
	})
}
