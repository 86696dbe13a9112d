package db_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
)

// visibilityCases stores cases whose teams reach the accounts of setup in
// each way: c1 holds alice as a user and the tenant role Clerk (so carl's
// disabled account would reach it both ways); c2 holds bob; c3 holds carl
// as a user; c4 is in tenant other and holds alice.
func visibilityCases(t *testing.T, d *db.DB) {
	t.Helper()
	newCase(t, d, caseSpec{id: "c1", name: "One", members: []engine.Member{user("alice", true), role("Clerk", "Approver")}})
	newCase(t, d, caseSpec{id: "c2", name: "Two", members: []engine.Member{user("bob", true)}})
	newCase(t, d, caseSpec{id: "c3", name: "Three", members: []engine.Member{user("carl", true)}})
	newCase(t, d, caseSpec{id: "c4", tenant: "other", name: "Four", members: []engine.Member{user("alice", true)}})
}

func exerciseVisibility(t *testing.T, open func(t *testing.T) *db.DB) {
	d := setup(t, open)
	visibilityCases(t, d)
	all := []string{"c1", "c2", "c3", "c4", "missing"}
	for _, tc := range []struct {
		user string
		want []string
	}{
		{"alice", []string{"c1", "c4"}},
		{"bob", []string{"c2"}},
		{"carl", nil}, // disabled in acme: neither the user row nor the role reaches a case
		{"dave", nil},
		{"stranger", nil},
	} {
		got, err := db.VisibleCaseIDs(ctx, d, tc.user, all)
		must(t, err)
		ids := slices.Sorted(maps.Keys(got))
		wantIDs(t, "cases visible to "+tc.user, ids, tc.want)

		loaded, err := db.LoadVisibleCases(ctx, d, tc.user, all)
		must(t, err)
		wantIDs(t, "cases loaded for "+tc.user, slices.Sorted(maps.Keys(loaded)), tc.want)

		listed, err := db.ListCases(ctx, d, tc.user, db.CaseFilter{SortBy: "id", Ascending: true}, false)
		must(t, err)
		var listedIDs []string
		for _, c := range listed {
			listedIDs = append(listedIDs, c.Record.ID)
		}
		wantIDs(t, "cases listed for "+tc.user, listedIDs, tc.want)

		events, err := db.VisibleCaseEvents(ctx, d, tc.user, all)
		must(t, err)
		wantIDs(t, "cases whose events "+tc.user+" reads", slices.Sorted(maps.Keys(events)), tc.want)
	}

	// Enabling carl opens both ways in.
	must(t, db.UpsertTenantUser(ctx, d, db.TenantUser{Tenant: "acme", UserID: "carl", Enabled: true, Roles: []string{"Clerk"}}))
	got, err := db.VisibleCaseIDs(ctx, d, "carl", all)
	must(t, err)
	wantIDs(t, "cases visible to carl enabled", slices.Sorted(maps.Keys(got)), []string{"c1", "c3"})

	if id, err := db.PlanItemCase(ctx, d, "alice", "c1"); err != nil || id != "c1" {
		t.Errorf("PlanItemCase of a case plan for a member: %q %v", id, err)
	}
	_, err = db.PlanItemCase(ctx, d, "bob", "c1")
	wantErr(t, "PlanItemCase for a non-member", err, db.ErrNotFound)

	events, err := db.VisibleCaseEvents(ctx, d, "alice", []string{"c4"})
	must(t, err)
	if len(events["c4"]) != 1 || events["c4"][0].Tenant != "other" || events["c4"][0].Type != "CaseDefinitionApplied" {
		t.Errorf("c4's events for alice: %+v", events)
	}

	// Member accounts: only enabled accounts of the case's tenant, and only
	// for a caller with an enabled account there.
	must(t, db.UpsertTenantUser(ctx, d, db.TenantUser{Tenant: "acme", UserID: "carl", Enabled: false, Roles: []string{"Clerk"}}))
	newCase(t, d, caseSpec{id: "c5", name: "Five", members: []engine.Member{user("alice", true), user("carl", false), user("ghost", false)}})
	accounts, err := db.CaseMemberAccounts(ctx, d, "alice", []string{"c5", "c2"})
	must(t, err)
	if len(accounts) != 1 || len(accounts["c5"]) != 1 || !slices.Equal(accounts["c5"]["alice"].Roles, []string{"Clerk"}) {
		t.Errorf("member accounts of c5 for alice: %+v", accounts)
	}
}
