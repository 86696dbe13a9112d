package rest_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// clock is a test clock that only moves when told.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// setupIncident starts an incident case: alice owner and Agent, bob
// Engineer, carl Engineer, dora Manager.
func setupIncident(t *testing.T, env *servertest.Env, severity int) string {
	t.Helper()
	createTenant(t, env, "acme")
	expect(t, deploy(env, "alice", "incident.xml", readModel(t, "incident.xml")), 204, "")
	return startIncident(t, env, severity)
}

// startIncident starts one more case of the incident model deployed by
// setupIncident.
func startIncident(t *testing.T, env *servertest.Env, severity int) string {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: map[string]any{
		"definition": "incident", "tenant": "acme",
		"inputs": map[string]any{"Incident": map[string]any{"Title": "Mail down", "Severity": severity, "Reporter": "eve"}},
		"caseTeam": map[string]any{"users": []map[string]any{
			{"userId": "alice", "isOwner": true, "caseRoles": []string{"Agent"}},
			{"userId": "bob", "caseRoles": []string{"Engineer"}},
			{"userId": "carl", "caseRoles": []string{"Engineer"}},
			{"userId": "dora", "caseRoles": []string{"Manager"}},
		}},
	}})
	expect(t, resp, http.StatusOK, "")
	var started struct{ CaseInstanceID string }
	resp.JSON(t, &started)
	return started.CaseInstanceID
}

func TestUserEventsAndMilestones(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupIncident(t, env, 1)
		expect(t, transition(env, "bob", id, "Escalate", "occur"), 401, "User 'bob' does not have the permission to raise the event Escalate")
		expect(t, transition(env, "dora", id, "Escalate", "Occur"), 200, "{}")
		c := getCase(t, env, "bob", id)
		if e, m := itemByName(t, c, "Escalate"), itemByName(t, c, "Escalated"); e.CurrentState != "Completed" || m.CurrentState != "Completed" {
			t.Fatalf("escalate %+v, escalated %+v", e, m)
		}
	})
}

func TestTimerFires(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		clk := &clock{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
		env = servertest.Start(t, env.Flavor, func(c *server.Config) { c.Now = clk.Now })
		id := setupIncident(t, env, 1)
		svc := env.Server.Service()
		if n, err := svc.FireDueTimers(context.Background()); err != nil || n != 0 {
			t.Fatalf("timers fired before their time: %d %v", n, err)
		}
		clk.Add(4*time.Hour + time.Second)
		if n, err := svc.FireDueTimers(context.Background()); err != nil || n != 1 {
			t.Fatalf("fired %d timers (%v), want 1", n, err)
		}
		c := getCase(t, env, "alice", id)
		if sla, notify := itemByName(t, c, "SLA breached"), itemByName(t, c, "Notify customer"); sla.CurrentState != "Completed" || notify.CurrentState != "Active" {
			t.Fatalf("after 4h: sla %+v, notify %+v", sla, notify)
		}
		// Once.
		if n, _ := svc.FireDueTimers(context.Background()); n != 0 {
			t.Fatalf("the timer fired again")
		}
	})
}

func TestDocumentationIdentifiersAndHistory(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupIncident(t, env, 3)
		c := getCase(t, env, "bob", id)
		triage := itemByName(t, c, "Triage")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/documentation/planitems/" + triage.ID, User: "bob"}),
			200, `{"textFormat":"text/plain","text":"Decide how bad it is"}`)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/documentation/planitems/" + itemByName(t, c, "Fix").ID, User: "bob"}),
			200, `null`)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/documentation/casefile", User: "bob"}),
			200, `[{"path":"Incident","documentation":{"textFormat":"text/markdown","text":"What was reported"}}]`)

		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/identifiers", User: "bob"}),
			200, `[{"caseInstanceId":"`+id+`","tenant":"acme","name":"Title","value":"Mail down"}]`)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/identifiers", User: "zed"}), 200, `[]`)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/identifiers/names?tenant=acme", User: "bob"}), 200, `["Title"]`)

		// Filter cases by identifier.
		var list []map[string]any
		env.Do(servertest.Request{Method: "GET", Path: "/cases?identifiers=Title%3DMail%20down", User: "bob"}).JSON(t, &list)
		if len(list) != 1 {
			t.Fatalf("cases with Title=Mail down: %d", len(list))
		}
		env.Do(servertest.Request{Method: "GET", Path: "/cases?identifiers=Title%3DOther", User: "bob"}).JSON(t, &list)
		if len(list) != 0 {
			t.Fatalf("cases with Title=Other: %d", len(list))
		}
		env.Do(servertest.Request{Method: "GET", Path: "/cases?caseName=cid&state=Active&tenant=acme", User: "bob"}).JSON(t, &list)
		if len(list) != 1 {
			t.Fatalf("cases named like 'cid': %d", len(list))
		}

		var events []struct {
			Nr      int64          `json:"nr"`
			Type    string         `json:"type"`
			Content map[string]any `json:"content"`
		}
		env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/history/events", User: "bob"}).JSON(t, &events)
		if len(events) < 5 || events[0].Nr != 1 || events[len(events)-1].Type != "CaseModified" {
			t.Fatalf("events = %+v", events)
		}
		for i, e := range events {
			if e.Nr != int64(i+1) {
				t.Fatalf("event %d has number %d", i, e.Nr)
			}
		}
		resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/definition", User: "bob"})
		expect(t, resp, 200, readModel(t, "incident.xml"))
	})
}
