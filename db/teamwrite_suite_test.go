package db_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
)

// exerciseTeamChanges saves a case through a run of team changes, each
// written as the difference to the team before, and checks after each
// that the team rows are exactly those a full rewrite gives: an owner
// flag changed in place keeps the member's roles, a member gone takes its
// roles along, a group's mappings change row by row.
func exerciseTeamChanges(t *testing.T, open func(t *testing.T) *db.DB) {
	d := setup(t, open)
	group := func(mappings ...engine.GroupMapping) engine.Member { return engine.NewGroupMember("g1", mappings) }
	teams := [][]engine.Member{
		{user("alice", true, "Worker")},
		{user("alice", true, "Worker"), user("bob", false, "Worker")},
		{user("alice", true, "Worker"), user("bob", true, "Worker", "Approver")},
		{user("alice", false, "Worker"), user("bob", true, "Approver"), role("Clerk", "Worker")},
		{user("bob", true, "Approver"), role("Clerk"), group(engine.GroupMapping{GroupRole: "lead", IsOwner: true, CaseRoles: []string{"Worker"}})},
		{user("bob", true, "Approver"), role("Clerk"), group(engine.GroupMapping{GroupRole: "lead", CaseRoles: []string{"Worker", "Approver"}},
			engine.GroupMapping{GroupRole: "", CaseRoles: []string{"Viewer"}})},
		{user("bob", true, "Approver"), user("alice", false)},
	}
	spec := caseSpec{id: "c1", name: "Team", members: teams[0]}
	prev := newCase(t, d, spec)
	rec, _ := spec.build()
	for i, team := range teams[1:] {
		spec.members = team
		_, next := spec.build()
		next.Sequence = prev.Sequence + 1
		rec.Version = int64(i + 1)
		_, err := db.SaveCase(ctx, d, db.CaseWrite{Record: rec, State: next, User: "alice", At: t0.Add(time.Duration(i) * time.Minute),
			Events: []engine.Event{{Type: "CaseTeamChanged", Payload: map[string]any{}}}, Before: &db.ReadState{State: prev}})
		must(t, err)
		written := teamRows(t, d)
		must(t, db.RebuildCaseReadRows(ctx, d, rec, db.ReadState{State: next}))
		if rebuilt := teamRows(t, d); !slices.Equal(written, rebuilt) {
			t.Errorf("team %d: the rows written\n  %v\ndiffer from a full rewrite\n  %v", i+1, written, rebuilt)
		}
		prev = next
	}
}

// teamRows lists the team rows of case c1, sorted.
func teamRows(t *testing.T, d *db.DB) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		"SELECT 'member ' || member_type || ' ' || member_id || ' owner=' || CASE WHEN is_owner THEN 'y' ELSE 'n' END || ' ' || origin FROM case_team_members WHERE case_id = 'c1'",
		"SELECT 'role ' || member_type || ' ' || member_id || ' ' || role FROM case_team_roles WHERE case_id = 'c1'",
		"SELECT 'group ' || group_id || ' ' || group_role || ' ' || case_role || ' owner=' || CASE WHEN is_owner THEN 'y' ELSE 'n' END FROM case_team_group_roles WHERE case_id = 'c1'",
	} {
		var rows []string
		if err := d.NewRaw(q).Scan(ctx, &rows); err != nil {
			t.Fatal(fmt.Errorf("%s: %w", q, err))
		}
		out = append(out, rows...)
	}
	slices.Sort(out)
	return out
}
