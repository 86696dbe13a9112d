package db_test

import (
	"slices"
	"testing"
	"time"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
)

func day(n int) *time.Time {
	t := t0.Add(time.Duration(n) * 24 * time.Hour)
	return &t
}

func taskIDs(tasks []db.Task) []string {
	var ids []string
	for _, t := range tasks {
		ids = append(ids, t.ID)
	}
	return ids
}

func exerciseTasks(t *testing.T, open func(t *testing.T) *db.DB) {
	d := setup(t, open)
	// alice owns the case (and holds tenant role Clerk, a member with case
	// role Viewer); bob performs Approver; dave is a plain member.
	newCase(t, d, caseSpec{id: "c1", name: "Permit",
		members: []engine.Member{user("alice", true), user("bob", false, "Approver"), user("dave", false), role("Clerk", "Viewer")},
		tasks: []*engine.PlanItem{
			humanTask("t1", "Review", "Approver", "", engine.Unassigned, day(1)),
			humanTask("t2", "Sign", "", "dave", engine.Assigned, day(3)),
			humanTask("t3", "Archive", "Approver", "bob", engine.TaskCompleted, nil),
			humanTask("t4", "Check", "Viewer", "", engine.Unassigned, nil),
			humanTask("t5", "Approve", "Approver", "bob", engine.Assigned, nil),
			humanTask("t6", "Tidy", "Viewer", "carl", engine.Assigned, nil),
		}})
	newCase(t, d, caseSpec{id: "c2", name: "Hidden", members: []engine.Member{user("eve", true)},
		tasks: []*engine.PlanItem{humanTask("t7", "Secret", "", "", engine.Unassigned, nil)}})

	for _, tc := range []struct {
		name string
		user string
		f    db.TaskFilter
		want []string
	}{
		{"owner sees every role", "alice", db.TaskFilter{}, []string{"t1", "t2", "t3", "t4", "t5", "t6"}},
		{"performer sees its role and role-less tasks", "bob", db.TaskFilter{}, []string{"t1", "t2", "t3", "t5"}},
		{"plain member sees role-less tasks", "dave", db.TaskFilter{}, []string{"t2"}},
		{"disabled account sees nothing", "carl", db.TaskFilter{}, nil},
		{"non-member sees nothing", "stranger", db.TaskFilter{}, nil},
		{"assignee filter needs plain membership", "dave", db.TaskFilter{Assignee: "bob"}, []string{"t3", "t5"}},
		{"states", "alice", db.TaskFilter{TaskStates: []string{"Unassigned"}}, []string{"t1", "t4"}},
		{"owner filter", "alice", db.TaskFilter{Owner: "dave"}, []string{"t2"}},
		{"due from, inclusive", "alice", db.TaskFilter{DueFrom: day(3)}, []string{"t2"}},
		{"due before, exclusive", "alice", db.TaskFilter{DueBefore: day(3)}, []string{"t1"}},
		{"task name", "alice", db.TaskFilter{TaskName: "Sign"}, []string{"t2"}},
		{"case and tenant", "alice", db.TaskFilter{CaseID: "c1", Tenant: "acme", CaseName: "Permit", TaskStates: []string{"Assigned"}}, []string{"t2", "t5", "t6"}},
		{"other case", "alice", db.TaskFilter{CaseID: "c2"}, nil},
		{"sorted by name, paged", "alice", db.TaskFilter{SortBy: "taskName", Ascending: true, Offset: 1, Limit: 2}, []string{"t3", "t4"}},
		{"keyset after a name", "alice", db.TaskFilter{SortBy: "taskname", Ascending: true, Limit: 2, After: &db.Keyset{Value: "Check", ID: "t4"}}, []string{"t1", "t2"}},
		{"keyset puts NULL due dates last", "alice", db.TaskFilter{SortBy: "dueDate", Ascending: true, After: &db.Keyset{Value: *day(3), ID: "t2"}}, []string{"t3", "t4", "t5", "t6"}},
		{"keyset inside the NULLs", "alice", db.TaskFilter{SortBy: "dueDate", Ascending: true, After: &db.Keyset{ID: "t4"}}, []string{"t5", "t6"}},
		{"keyset descending", "alice", db.TaskFilter{SortBy: "dueDate", After: &db.Keyset{Value: *day(3), ID: "t2"}}, []string{"t1", "t6", "t5", "t4", "t3"}},
	} {
		f := tc.f
		if f.SortBy == "" {
			f.SortBy, f.Ascending = "id", true
			// id is no task sort column: ties on last_modified fall back to id.
		}
		got, err := db.ListTasks(ctx, d, tc.user, f)
		must(t, err)
		ids := taskIDs(got)
		if tc.f.SortBy == "" {
			ids = slices.Sorted(slices.Values(ids))
		}
		wantIDs(t, tc.name, ids, tc.want)
		if tc.f.Limit == 0 && tc.f.After == nil && tc.f.Offset == 0 {
			n, err := db.CountTaskList(ctx, d, tc.user, tc.f)
			must(t, err)
			if n != len(tc.want) {
				t.Errorf("%s: CountTaskList %d, want %d", tc.name, n, len(tc.want))
			}
		}
	}

	for _, tc := range []struct {
		user, tenant string
		want         db.TaskCount
	}{
		{"bob", "", db.TaskCount{Claimed: 1, Unclaimed: 1}},
		{"dave", "acme", db.TaskCount{Claimed: 1}},
		{"dave", "other", db.TaskCount{}},
		// Ownership adds nothing; the Clerk membership's Viewer role does.
		{"alice", "", db.TaskCount{Unclaimed: 1}},
		{"carl", "", db.TaskCount{}},
	} {
		got, err := db.CountTasks(ctx, d, tc.user, tc.tenant)
		must(t, err)
		if got != tc.want {
			t.Errorf("CountTasks(%s, %q) = %+v, want %+v", tc.user, tc.tenant, got, tc.want)
		}
	}

	if id, err := db.TaskCase(ctx, d, "dave", "t1"); err != nil || id != "c1" {
		t.Errorf("TaskCase for a member: %q %v", id, err)
	}
	_, err := db.TaskCase(ctx, d, "alice", "t7")
	wantErr(t, "TaskCase for a non-member", err, db.ErrNotFound)
}

func caseIDs(cases []db.LoadedCase) []string {
	var ids []string
	for _, c := range cases {
		ids = append(ids, c.Record.ID)
	}
	return ids
}

func exerciseCaseList(t *testing.T, open func(t *testing.T) *db.DB) {
	d := setup(t, open)
	alice := []engine.Member{user("alice", true)}
	hour := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Hour) }
	newCase(t, d, caseSpec{id: "k1", name: "Building_Permit", modified: hour(1), members: alice, identifiers: []db.Identifier{{Name: "ref", Value: "A1"}}})
	newCase(t, d, caseSpec{id: "k2", name: "BuildingXPermit", modified: hour(2), members: alice, failures: 1, identifiers: []db.Identifier{{Name: "ref", Value: "B2"}}})
	newCase(t, d, caseSpec{id: "k3", name: "Other", modified: hour(3), members: alice, state: "Completed"})
	newCase(t, d, caseSpec{id: "k4", tenant: "other", name: "Permit", modified: hour(4), members: alice})
	newCase(t, d, caseSpec{id: "k5", name: "Permit", modified: hour(5), members: []engine.Member{user("bob", true)}})

	for _, tc := range []struct {
		name string
		f    db.CaseFilter
		want []string
	}{
		{"newest first by default", db.CaseFilter{}, []string{"k4", "k3", "k2", "k1"}},
		{"tenant", db.CaseFilter{Tenant: "acme"}, []string{"k3", "k2", "k1"}},
		{"failed means failures", db.CaseFilter{State: "Failed"}, []string{"k2"}},
		{"state, any case", db.CaseFilter{State: "completed"}, []string{"k3"}},
		{"name substring, any case", db.CaseFilter{CaseName: "permit"}, []string{"k4", "k2", "k1"}},
		{"name with a literal underscore", db.CaseFilter{CaseName: "g_P"}, []string{"k1"}},
		{"identifier value", db.CaseFilter{Identifiers: []db.IdentifierCondition{{Name: "ref", Values: []string{"A1", "Z"}}}}, []string{"k1"}},
		{"identifier not value", db.CaseFilter{Identifiers: []db.IdentifierCondition{{Name: "ref", Values: []string{"A1"}, Not: true}}}, []string{"k2"}},
		{"identifier present", db.CaseFilter{Identifiers: []db.IdentifierCondition{{Name: "ref"}}}, []string{"k2", "k1"}},
		{"sorted ascending, paged", db.CaseFilter{SortBy: "lastModified", Ascending: true, Offset: 1, Limit: 2}, []string{"k2", "k3"}},
		{"unknown sort field sorts by last modified", db.CaseFilter{SortBy: "bogus", Limit: 1}, []string{"k4"}},
		{"keyset ascending", db.CaseFilter{SortBy: "lastmodified", Ascending: true, After: &db.Keyset{Value: hour(2), ID: "k2"}}, []string{"k3", "k4"}},
		{"keyset descending", db.CaseFilter{SortBy: "lastmodified", After: &db.Keyset{Value: hour(3), ID: "k3"}}, []string{"k2", "k1"}},
		{"keyset on failures ties by id", db.CaseFilter{SortBy: "failures", Ascending: true, After: &db.Keyset{Value: 0, ID: "k3"}}, []string{"k4", "k2"}},
	} {
		got, err := db.ListCases(ctx, d, "alice", tc.f, false)
		must(t, err)
		wantIDs(t, tc.name, caseIDs(got), tc.want)
		if tc.f.Limit == 0 && tc.f.After == nil && tc.f.Offset == 0 {
			n, err := db.CountCases(ctx, d, "alice", tc.f)
			must(t, err)
			if n != len(tc.want) {
				t.Errorf("%s: CountCases %d, want %d", tc.name, n, len(tc.want))
			}
		}
	}
	withState, err := db.ListCases(ctx, d, "alice", db.CaseFilter{Tenant: "other"}, true)
	must(t, err)
	if len(withState) != 1 || withState[0].State == nil || withState[0].State.ID != "k4" {
		t.Errorf("list with states: %+v", withState)
	}
	if without, _ := db.ListCases(ctx, d, "alice", db.CaseFilter{Tenant: "other"}, false); len(without) != 1 || without[0].State != nil {
		t.Errorf("list without states: %+v", without)
	}
}

func exerciseIdentifiers(t *testing.T, open func(t *testing.T) *db.DB) {
	d := setup(t, open)
	newCase(t, d, caseSpec{id: "c1", name: "A", members: []engine.Member{user("alice", true)},
		identifiers: []db.Identifier{{Name: "ref", Value: "A1"}, {Name: "zip", Value: "1000"}, {Name: "ref", Value: "A1"}}})
	newCase(t, d, caseSpec{id: "c2", name: "B", members: []engine.Member{user("alice", true), user("bob", false)},
		identifiers: []db.Identifier{{Name: "ref", Value: "B2"}}})
	if n := count(t, d, "case_identifiers", "case_id = ?", "c1"); n != 2 {
		t.Errorf("c1 has %d identifier rows, want 2 (a repeated identifier is stored once)", n)
	}
	got, err := db.Identifiers(ctx, d, "alice", "acme", "ref", 0, 0, "value", false)
	must(t, err)
	if len(got) != 2 || got[0].Value != "B2" || got[1].Value != "A1" || got[1].CaseID != "c1" || got[0].Tenant != "acme" {
		t.Errorf("alice's ref identifiers by value descending: %+v", got)
	}
	got, err = db.Identifiers(ctx, d, "bob", "", "", 0, 10, "", true)
	must(t, err)
	if len(got) != 1 || got[0].CaseID != "c2" {
		t.Errorf("bob's identifiers: %+v", got)
	}
	got, err = db.Identifiers(ctx, d, "alice", "", "", 1, 1, "name", true)
	must(t, err)
	if len(got) != 1 || got[0].Name != "ref" || got[0].CaseID != "c2" {
		t.Errorf("alice's identifiers, second by name: %+v", got)
	}
	// Ties keep ascending case order whatever the sort's direction.
	got, err = db.Identifiers(ctx, d, "alice", "", "", 0, 0, "name", false)
	must(t, err)
	if len(got) != 3 || got[0].Name != "zip" || got[1].CaseID != "c1" || got[2].CaseID != "c2" {
		t.Errorf("alice's identifiers by name descending: %+v", got)
	}
	names, err := db.IdentifierNames(ctx, d, "alice", "")
	must(t, err)
	wantIDs(t, "alice's identifier names", names, []string{"ref", "zip"})
	names, err = db.IdentifierNames(ctx, d, "bob", "acme")
	must(t, err)
	wantIDs(t, "bob's identifier names", names, []string{"ref"})
	names, err = db.IdentifierNames(ctx, d, "carl", "")
	must(t, err)
	wantIDs(t, "a disabled account's identifier names", names, nil)
}
