package rest_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// TestPlanItemIDsAreGlobal: a caller-chosen plan item id cannot shadow an
// item of another case (ids are looked up without their case).
func TestPlanItemIDsAreGlobal(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "incident.xml", readModel(t, "incident.xml")), 204, "")
		victim := startMatrixCase(t, env)
		triage := taskNamed(t, env, "alice", victim, "Triage").ID
		mine := startMatrixCase(t, env)
		plan := getCase(t, env, "dora", mine).PlanItems[0].ID
		resp := env.Do(servertest.Request{Method: "POST", Path: "/cases/" + mine + "/discretionaryitems/plan", User: "dora",
			Body: map[string]any{"name": "Write post mortem", "definitionId": "di_postmortem", "parentId": plan, "planItemId": triage}})
		expect(t, resp, 400, "Cannot plan a discretionary item named 'Write post mortem' with the specified id "+triage+
			", because the case already has a plan item with that id")
		if tk := taskNamed(t, env, "carl", victim, "Triage"); tk.CaseID != victim {
			t.Fatalf("the victim's task now belongs to %s", tk.CaseID)
		}
	})
}

// TestConcurrentWritesToOneCase: commands on one case queue; none fails
// for losing a race.
func TestConcurrentWritesToOneCase(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		var wg sync.WaitGroup
		statuses := make([]int, 30)
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = env.Do(servertest.Request{Method: "PUT", Path: "/cases/" + id + "/casefile/update/Application", User: "bob",
					Body: map[string]any{"Floors": i}}).Status
			}()
		}
		wg.Wait()
		for i, s := range statuses {
			if s != http.StatusOK {
				t.Fatalf("update %d answered %d", i, s)
			}
		}
	})
}

func TestHostileInput(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		for _, path := range []string{"/cases/%00", "/tenant/a%00/owners", "/identifiers?name=%00", "/tasks/user/count?tenant=%00"} {
			if resp := env.Do(servertest.Request{Method: "GET", Path: path, User: "alice"}); resp.Status != http.StatusBadRequest {
				t.Errorf("GET %s: %d %s", path, resp.Status, resp.Body)
			}
		}
		// Bytes that are not UTF-8, in an id of the path or a value of the
		// query: PostgreSQL refuses them in a query (it answered 500).
		for _, req := range []servertest.Request{
			{Method: "GET", Path: "/cases/a%ffb"}, {Method: "PUT", Path: "/tasks/a%ffb/claim"},
			{Method: "POST", Path: "/tasks/a%ffb/complete", Body: "{}", ContentType: "application/json"},
			{Method: "GET", Path: "/tasks?tenant=a%ff"}, {Method: "GET", Path: "/cases?a%ff=1"}, {Method: "GET", Path: "/tasks?x=%zz&tenant=a%ff"},
		} {
			req.User = "alice"
			if resp := env.Do(req); resp.Status != http.StatusBadRequest || !strings.Contains(resp.Body, "not UTF-8") {
				t.Errorf("%s %s: %d %s", req.Method, req.Path, resp.Status, resp.Body)
			}
		}
		for _, body := range []string{`{"userId":"u\u0000"}`, `{"userId":"u","roles":["r\u0000"]}`} {
			resp := env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice", Body: body, ContentType: "application/json"})
			if resp.Status != http.StatusBadRequest || !strings.Contains(resp.Body, "NUL") {
				t.Errorf("body %s: %d %s", body, resp.Status, resp.Body)
			}
		}
		big := `{"query":"{ platform { version { name } } }","variables":{"x":"` + strings.Repeat("a", 17<<20) + `"}}`
		resp := env.Do(servertest.Request{Method: "POST", Path: "/graphql", Body: big, ContentType: "application/json"})
		if resp.Status < 400 {
			t.Errorf("a 17 MiB GraphQL body was accepted: %d", resp.Status)
		}
		// A case name with LIKE wildcards matches literally.
		var list []map[string]any
		env.Do(servertest.Request{Method: "GET", Path: "/cases?caseName=g_P", User: "alice"}).JSON(t, &list)
		if len(list) != 0 {
			t.Errorf("'g_P' matched %d cases named BuildingPermit", len(list))
		}
		env.Do(servertest.Request{Method: "GET", Path: "/cases?caseName=ingperm", User: "alice"}).JSON(t, &list)
		if len(list) != 1 || list[0]["id"] != id {
			t.Errorf("'ingperm' matched %v", list)
		}

	})
}
