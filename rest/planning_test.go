package rest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

type discretionaryJSON struct {
	CaseInstanceID string `json:"caseInstanceId"`
	Name           string `json:"name"`
	Items          []struct {
		Name, DefinitionID, Type, ParentName, ParentType, ParentID string
	} `json:"discretionaryItems"`
}

func discretionary(t *testing.T, env *servertest.Env, user, id string) discretionaryJSON {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/discretionaryitems", User: user})
	expect(t, resp, 200, "")
	if !strings.HasSuffix(resp.Header.Get("Case-Last-Modified"), ";"+id) {
		t.Errorf("Case-Last-Modified = %q", resp.Header.Get("Case-Last-Modified"))
	}
	var d discretionaryJSON
	resp.JSON(t, &d)
	return d
}

func names(d discretionaryJSON) string {
	var n []string
	for _, it := range d.Items {
		n = append(n, it.Name)
	}
	return strings.Join(n, ",")
}

func TestDiscretionaryItems(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "incident.xml", readModel(t, "incident.xml")), 204, "")
		id := startMatrixCase(t, env) // severity 3: "Call customer" applies
		c := getCase(t, env, "alice", id)
		plan := c.PlanItems[0]

		d := discretionary(t, env, "dora", id)
		if d.CaseInstanceID != id || d.Name != "Incident" || names(d) != "Write post mortem,Call customer" {
			t.Fatalf("dora's items = %+v", d)
		}
		if it := d.Items[0]; it.DefinitionID != "di_postmortem" || it.Type != "HumanTask" || it.ParentID != plan.ID || it.ParentType != "CasePlan" || it.ParentName != "Incident" {
			t.Fatalf("post mortem item = %+v", it)
		}
		if got := names(discretionary(t, env, "bob", id)); got != "Call customer" {
			t.Fatalf("bob (no Manager role) may plan %q", got)
		}
		if got := names(discretionary(t, env, "alice", id)); got != "Write post mortem,Call customer" {
			t.Fatalf("the owner may plan %q", got)
		}
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/discretionaryitems", User: "zed"}), 404, "A case with id '"+id+"' cannot be found.")

		planIt := func(user string, body map[string]any) *servertest.Response {
			return env.Do(servertest.Request{Method: "POST", Path: "/cases/" + id + "/discretionaryitems/plan", User: user, Body: body})
		}
		expect(t, planIt("bob", map[string]any{"name": "Write post mortem", "definitionId": "di_postmortem", "parentId": plan.ID}),
			400, "No authorization available to plan a discretionary item named 'Write post mortem'")
		resp := planIt("dora", map[string]any{"name": "Write post mortem", "definitionId": "di_postmortem", "parentId": plan.ID, "planItemId": "pm_1"})
		expect(t, resp, 200, `{"planItemId":"pm_1","planitemId":"pm_1"}`)
		c = getCase(t, env, "dora", id)
		if p := itemByName(t, c, "Write post mortem"); p.ID != "pm_1" || p.CurrentState != "Active" || p.StageID != plan.ID {
			t.Fatalf("planned item = %+v", p)
		}
		resp = planIt("dora", map[string]any{"name": "Write post mortem", "definitionId": "di_postmortem", "parentId": plan.ID, "planItemId": "pm_1"})
		expect(t, resp, 400, "Cannot plan a discretionary item named 'Write post mortem' with the specified id pm_1, because the case already has a plan item with that id")
		resp = planIt("dora", map[string]any{"name": "Write post mortem", "definitionId": "di_postmortem", "parentId": "nowhere"})
		if resp.Status != 400 || !strings.Contains(resp.Body, "nowhere") {
			t.Fatalf("unknown parent: %d %s", resp.Status, resp.Body)
		}
		// Planned twice: two items.
		resp = planIt("alice", map[string]any{"name": "Write post mortem", "definitionId": "di_postmortem", "parentId": plan.ID})
		var planned map[string]string
		resp.JSON(t, &planned)
		if planned["planItemId"] == "" || planned["planItemId"] != planned["planitemId"] {
			t.Fatalf("second planning answered %s", resp.Body)
		}
		c = getCase(t, env, "alice", id)
		count := 0
		for _, p := range c.PlanItems {
			if p.Name == "Write post mortem" {
				count++
			}
		}
		if count != 2 {
			t.Fatalf("%d post mortem items, want 2", count)
		}

		// A less severe incident: "Call customer" does not apply.
		low := setupIncidentLow(t, env)
		if got := names(discretionary(t, env, "dora", low)); got != "Write post mortem" {
			t.Fatalf("items of a low incident: %q", got)
		}
		lowPlan := getCase(t, env, "dora", low).PlanItems[0]
		resp = env.Do(servertest.Request{Method: "POST", Path: "/cases/" + low + "/discretionaryitems/plan", User: "dora",
			Body: map[string]any{"name": "Call customer", "definitionId": "di_call", "parentId": lowPlan.ID}})
		if resp.Status != 400 || !strings.Contains(resp.Body, "It may not be applicable at this moment") {
			t.Fatalf("planning an inapplicable item: %d %s", resp.Status, resp.Body)
		}
	})
}

func setupIncidentLow(t *testing.T, env *servertest.Env) string {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: map[string]any{
		"definition": "incident", "tenant": "acme",
		"inputs": map[string]any{"Incident": map[string]any{"Title": "Typo", "Severity": 1}},
		"caseTeam": map[string]any{"users": []map[string]any{
			{"userId": "alice", "isOwner": true}, {"userId": "dora", "caseRoles": []string{"Manager"}},
		}},
	}})
	expect(t, resp, 200, "")
	var started struct{ CaseInstanceID string }
	resp.JSON(t, &started)
	return started.CaseInstanceID
}

// TestTaskValidator runs a task whose definition names a validator
// service: valid, invalid, failing and unreachable.
func TestTaskValidator(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		var mode string
		var lastBody map[string]any
		validator := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			lastBody = nil
			_ = json.Unmarshal(b, &lastBody)
			switch mode {
			case "valid":
				_, _ = io.WriteString(w, `{}`)
			case "invalid":
				_, _ = io.WriteString(w, `{"Amount":"too high"}`)
			default:
				http.Error(w, "validator broke", http.StatusInternalServerError)
			}
		}))
		t.Cleanup(validator.Close)
		createTenant(t, env, "acme")
		model := strings.Replace(readModel(t, "expense.xml"), "VALIDATOR_URL", validator.URL+"/validate", 1)
		expect(t, deploy(env, "alice", "expense.xml", model), 204, "")
		resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: map[string]any{"definition": "expense", "tenant": "acme"}})
		expect(t, resp, 200, "")
		var started struct{ CaseInstanceID string }
		resp.JSON(t, &started)
		task := taskNamed(t, env, "alice", started.CaseInstanceID, "Approve")
		output := map[string]any{"Claim": map[string]any{"Amount": 900, "Approved": true}}

		mode = "valid"
		expect(t, taskDo(env, "alice", "POST", task.ID, "", output), 202, "{}")
		meta, _ := lastBody["metadata"].(map[string]any)
		if lastBody["task-output"] == nil || meta["taskId"] != task.ID || meta["user"] != "alice" || meta["caseInstanceId"] != started.CaseInstanceID {
			t.Fatalf("the validator got %v", lastBody)
		}
		mode = "invalid"
		expect(t, taskDo(env, "alice", "POST", task.ID, "", output), 202, `{"Amount":"too high"}`)
		// The reference engine's messages (reference-rules §12).
		expect(t, taskDo(env, "alice", "POST", task.ID, "complete", output), 400, "Output for task Approve is invalid\n"+`{"Amount":"too high"}`)
		mode = "failing"
		expect(t, taskDo(env, "alice", "POST", task.ID, "", output), 400, "Unexpected http response code 500")
		expect(t, taskDo(env, "alice", "POST", task.ID, "complete", output), 400, "Output for task Approve could not be validated due to an error")
		mode = "valid"
		expect(t, taskDo(env, "alice", "POST", task.ID, "complete", output), 202, "{}")
		if c := getCase(t, env, "alice", started.CaseInstanceID); c.State != "Completed" {
			t.Fatalf("case after approval: %s", c.State)
		}
	})

	// Unreachable.
	env := servertest.Start(t, "sqlite")
	createTenant(t, env, "acme")
	expect(t, deploy(env, "alice", "expense.xml", strings.Replace(readModel(t, "expense.xml"), "VALIDATOR_URL", "http://127.0.0.1:1/validate", 1)), 204, "")
	resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: map[string]any{"definition": "expense", "tenant": "acme"}})
	var started struct{ CaseInstanceID string }
	resp.JSON(t, &started)
	task := taskNamed(t, env, "alice", started.CaseInstanceID, "Approve")
	resp = taskDo(env, "alice", "POST", task.ID, "", map[string]any{})
	if resp.Status != 400 || !strings.Contains(resp.Body, "could not be reached") {
		t.Fatalf("unreachable validator: %d %s", resp.Status, resp.Body)
	}
	expect(t, taskDo(env, "alice", "POST", task.ID, "complete", map[string]any{}), 400, "Output for task Approve could not be validated due to an error")
}
