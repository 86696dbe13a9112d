package compat_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// deployV2 deploys the next version of the compat model as tom.
func deployV2(t *testing.T, f *fixture, _ *caseRef) {
	mustStatus(t, f.deploy(t, "compat_v2"), http.StatusNoContent)
}

// migratedToV2 checks that the case now runs compat_v2: its name, its
// plan items (kept, renamed, removed, added) and the definition it serves.
func migratedToV2(t *testing.T, f *fixture, c *caseRef, _ *servertest.Response) {
	t.Helper()
	resp := f.as(t, caseOwner, "GET", "/cases/{case}", nil, c)
	mustStatus(t, resp, http.StatusOK)
	var got struct {
		CaseName  string
		PlanItems []struct{ ID, Name, CurrentState string } `json:"planitems"`
	}
	resp.JSON(t, &got)
	if got.CaseName != "Compat v2" {
		t.Errorf("caseName %q, want Compat v2", got.CaseName)
	}
	states := map[string]string{}
	ids := map[string]string{}
	for _, p := range got.PlanItems {
		states[p.Name], ids[p.Name] = p.CurrentState, p.ID
	}
	for name, want := range map[string]string{"Review": "Active", "Open item": "Active", "Follow up": "Active", "Note": "Terminated"} {
		if states[name] != want {
			t.Errorf("%s is %q, want %s; plan items %v", name, states[name], want, states)
		}
	}
	if ids["Open item"] != c.items["Open"] || ids["Review"] != c.items["Review"] {
		t.Errorf("Open item and Review are %s and %s, want the same items as before: %s and %s",
			ids["Open item"], ids["Review"], c.items["Open"], c.items["Review"])
	}
	def := f.as(t, caseOwner, "GET", "/cases/{case}/definition", nil, c)
	mustStatus(t, def, http.StatusOK)
	if !strings.Contains(def.Body, `name="Compat v2"`) {
		t.Errorf("the case serves the definition %.200q, want compat_v2", def.Body)
	}
	// The case goes on under the new definition, after a reload.
	mustStatus(t, f.as(t, caseOwner, "POST", "/cases/{case}/planitems/"+ids["Follow up"]+"/complete", nil, c), http.StatusOK)
	item := f.as(t, caseOwner, "GET", "/cases/{case}/planitems/"+ids["Follow up"], nil, c)
	if !strings.Contains(item.Body, `"currentState":"Completed"`) {
		t.Errorf("Follow up after complete: %s", item.Body)
	}
	// The renamed item's history shows the migration as its last row.
	hist := f.as(t, caseOwner, "GET", "/cases/{case}/history/planitems/"+ids["Open item"], nil, c)
	mustStatus(t, hist, http.StatusOK)
	var rows []struct{ Name, EventType, CurrentState string }
	hist.JSON(t, &rows)
	if n := len(rows); n == 0 || rows[n-1].Name != "Open item" || !strings.HasSuffix(rows[n-1].EventType, "PlanItemMigrated") ||
		rows[n-1].CurrentState != "Active" {
		t.Errorf("history of Open item: %s", hist.Body)
	}
	// The history records the migration.
	events := f.as(t, caseOwner, "GET", "/cases/{case}/history/events", nil, c)
	mustStatus(t, events, http.StatusOK)
	if !strings.Contains(events.Body, "CaseDefinitionMigrated") || !strings.Contains(events.Body, "PlanItemMigrated") {
		t.Errorf("history lacks the migration: %.300s", events.Body)
	}
}

func TestMigrateDefinition(t *testing.T) {
	const path = "/cases/{case}/migrate-definition"
	notFound := "A case with id '{case}' cannot be found."
	v2 := readModel(t, "compat_v2")
	ok := func(r row) row {
		r.fresh, r.status, r.json, r.lastModified = true, 200, emptyObject, "Case"
		return r
	}
	forEachDB(t, []row{
		// §1.11: any member may migrate, by deployed name or by document.
		ok(row{name: "by name", caller: caseOwner, method: "POST", path: path, body: map[string]any{"newDefinition": "compat_v2"},
			before: deployV2, after: migratedToV2}),
		ok(row{name: "by document", caller: caseMember, method: "POST", path: path, body: map[string]any{"newDefinition": v2},
			after: migratedToV2}),
		ok(row{name: "new team", caller: caseOwner, method: "POST", path: path, after: sees(caseMember, 404),
			body: map[string]any{"newDefinition": v2, "newTeam": team(map[string]any{"userId": "carla", "isOwner": true},
				map[string]any{"userId": "abe", "caseRoles": []string{"Approver"}})}}),
		{name: "new team", caller: caseMember, method: "POST", path: path, fresh: true,
			body:   map[string]any{"newDefinition": v2, "newTeam": team(map[string]any{"userId": "mike", "isOwner": true})},
			status: 401, text: "Only case team owners can perform this action"},
		{name: "empty team", caller: caseOwner, method: "POST", path: path, body: map[string]any{"newDefinition": v2, "newTeam": map[string]any{}},
			status: 400, text: "The new case team cannot be empty"},
		{name: "team without owners", caller: caseOwner, method: "POST", path: path,
			body:   map[string]any{"newDefinition": v2, "newTeam": team(map[string]any{"userId": "carla"})},
			status: 400, text: "The new case team must have owners"},
		{caller: nonMember, method: "POST", path: path, body: map[string]any{"newDefinition": v2}, status: 404, text: notFound},
		{caller: tenantOwner, method: "POST", path: path, body: map[string]any{"newDefinition": v2}, status: 404, text: notFound},
		{name: "unknown case", caller: caseOwner, method: "POST", path: "/cases/no-such-case/migrate-definition",
			body: map[string]any{"newDefinition": v2}, status: 404, text: "A case with id 'no-such-case' cannot be found."},
		{name: "invalid document", caller: caseOwner, method: "POST", path: path,
			body:   map[string]any{"newDefinition": `<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL"><case id="x"/></definitions>`},
			status: 400, text: "Cannot migrate case {case}: the new definition is invalid.\n", prefix: true},
		{name: "not XML", caller: caseOwner, method: "POST", path: path, body: map[string]any{"newDefinition": "<definitions"},
			status: 400, text: "Cannot migrate case {case}: the new definition is invalid.\n", prefix: true},
		{name: "invalid document, stranger", caller: nonMember, method: "POST", path: path,
			body: map[string]any{"newDefinition": "<definitions"}, status: 404, text: notFound},
		{name: "unknown name", caller: caseOwner, method: "POST", path: path, body: map[string]any{"newDefinition": "nope"},
			status: 400, text: "Cannot find or load definition nope.xml"},
		{name: "no definition", caller: caseOwner, method: "POST", path: path, body: map[string]any{},
			status: 400, text: "The new definition is missing: give its CMMN document, or the name of a definition deployed to the tenant"},
		{name: "unknown field", caller: caseOwner, method: "POST", path: path, body: map[string]any{"definition": "compat_v2"},
			status: 400, text: "The request content was malformed: ", prefix: true},
	})
}
