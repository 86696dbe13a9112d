package rest_test

import (
	"slices"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// TestCaseIDOfATenant pins reference §11: cases and tenants share one id
// space, so a case cannot take a tenant's name.
func TestCaseIDOfATenant(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "inbox.xml", readModel(t, "inbox.xml")), 204, "")
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice",
			Body: map[string]any{"definition": "inbox", "tenant": "acme", "caseInstanceId": "acme"}}), 400,
			"Failure while handling message StartCase. Check the server logs for more details")
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice",
			Body: map[string]any{"definition": "inbox", "tenant": "acme", "caseInstanceId": "acme2"}}), 200, "")
	})
}

// TestPlanItemHistoryRows pins reference §10: one row per creation,
// transition, repetition-rule and required-rule event of the item.
func TestPlanItemHistoryRows(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupInbox(t, env)
		c := getCase(t, env, "alice", id)
		history := func(name string) []map[string]any {
			t.Helper()
			resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/history/planitems/" + itemByName(t, c, name).ID, User: "alice"})
			expect(t, resp, 200, "")
			var rows []map[string]any
			resp.JSON(t, &rows)
			return rows
		}
		eventTypes := func(rows []map[string]any) []string {
			var out []string
			for _, r := range rows {
				out = append(out, r["eventType"].(string))
			}
			return out
		}
		active := history("Approve")
		want := []string{"PlanItemCreated", "PlanItemTransitioned", "RepetitionRuleEvaluated", "RequiredRuleEvaluated", "PlanItemTransitioned"}
		if got := eventTypes(active); !slices.Equal(got, want) {
			t.Fatalf("active task history = %v, want %v", got, want)
		}
		if r := active[2]; r["currentState"] != "Available" || r["transition"] != "Create" || r["repeating"] != false || r["name"] != "Approve" {
			t.Errorf("repetition row = %v", r)
		}
		if r := active[4]; r["currentState"] != "Active" || r["transition"] != "Start" {
			t.Errorf("start row = %v", r)
		}
		if got := eventTypes(history("Follow up")); !slices.Equal(got, want[:4]) {
			t.Fatalf("available task history = %v, want %v", got, want[:4])
		}
		expect(t, taskDo(env, "carl", "POST", itemByName(t, c, "Approve").ID, "complete", map[string]any{}), 202, "{}")
		if got := history("Approve"); len(got) != 6 || got[5]["currentState"] != "Completed" {
			t.Errorf("completed task history = %v", eventTypes(got))
		}
		if got := history("Follow up"); len(got) != 5 || got[4]["currentState"] != "Active" {
			t.Errorf("started follow-up history = %v", eventTypes(got))
		}
	})
}
