package db_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/engine"
)

// TestStorage runs the storage conformance suite once per database, as
// river runs riverdrivertest once per driver: a change to the store is
// checked here, without going through HTTP.
func TestStorage(t *testing.T) {
	for _, flavor := range dbtest.Flavors() {
		t.Run(string(flavor), func(t *testing.T) {
			t.Parallel()
			exercise(t, func(t *testing.T) *db.DB { return dbtest.Open(t, flavor) })
		})
	}
}

// exercise runs every query and command of the store against databases
// made by open, each subtest on a fresh one.
func exercise(t *testing.T, open func(t *testing.T) *db.DB) {
	t.Run("Tenants", func(t *testing.T) { exerciseTenants(t, open) })
	t.Run("Definitions", func(t *testing.T) { exerciseDefinitions(t, open) })
	t.Run("Cases", func(t *testing.T) { exerciseCases(t, open) })
	t.Run("TeamChanges", func(t *testing.T) { exerciseTeamChanges(t, open) })
	t.Run("Visibility", func(t *testing.T) { exerciseVisibility(t, open) })
	t.Run("Tasks", func(t *testing.T) { exerciseTasks(t, open) })
	t.Run("CaseList", func(t *testing.T) { exerciseCaseList(t, open) })
	t.Run("Identifiers", func(t *testing.T) { exerciseIdentifiers(t, open) })
	t.Run("Timers", func(t *testing.T) { exerciseTimers(t, open) })
	t.Run("Outbox", func(t *testing.T) { exerciseOutbox(t, open) })
	t.Run("EventBatches", func(t *testing.T) { exerciseEventBatches(t, open) })
	t.Run("Storage", func(t *testing.T) { exerciseArchive(t, open) })
	t.Run("Faults", func(t *testing.T) { exerciseFaults(t, open) })
}

var (
	ctx = context.Background()
	// t0 is the suite's clock: every time is an offset from it.
	t0 = time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
)

const docHash = "0000000000000000000000000000000000000000000000000000000000000001"

// setup gives a database with tenant acme and its accounts: alice (owner,
// tenant role Clerk), bob (role Manager), carl (role Clerk, disabled) and
// dave (no roles); tenant other with alice; and one stored definition
// document the cases point at.
func setup(t *testing.T, open func(t *testing.T) *db.DB) *db.DB {
	t.Helper()
	d := open(t)
	must(t, db.CreateTenant(ctx, d, db.Tenant{Name: "acme", Enabled: true, CreatedAt: t0, CreatedBy: "admin", LastModified: t0, ModifiedBy: "admin"},
		[]db.TenantUser{
			{UserID: "alice", Name: "Alice", IsOwner: true, Enabled: true, Roles: []string{"Clerk"}},
			{UserID: "bob", Name: "Bob", Enabled: true, Roles: []string{"Manager"}},
			{UserID: "carl", Name: "Carl", Enabled: false, Roles: []string{"Clerk"}},
			{UserID: "dave", Name: "Dave", Enabled: true},
		}))
	must(t, db.CreateTenant(ctx, d, db.Tenant{Name: "other", Enabled: true, CreatedAt: t0, LastModified: t0},
		[]db.TenantUser{{UserID: "alice", IsOwner: true, Enabled: true}}))
	must(t, db.SaveDocument(ctx, d, docHash, "<definitions/>", t0))
	return d
}

// caseSpec describes a case for newCase.
type caseSpec struct {
	id, tenant, name, parent string
	state                    string // default Active
	modified                 time.Time
	members                  []engine.Member
	tasks                    []*engine.PlanItem
	failures                 int
	identifiers              []db.Identifier
	timers                   []engine.Timer
	file                     map[string]any
}

func user(id string, owner bool, caseRoles ...string) engine.Member {
	return engine.Member{ID: id, Type: engine.UserMember, IsOwner: owner, CaseRoles: caseRoles}
}

func role(id string, caseRoles ...string) engine.Member {
	return engine.Member{ID: id, Type: engine.RoleMember, CaseRoles: caseRoles}
}

// humanTask is an active human task plan item.
func humanTask(id, name, role, assignee string, state engine.TaskState, due *time.Time) *engine.PlanItem {
	return &engine.PlanItem{ID: id, DefinitionID: "pi_" + name, Name: name, Type: "HumanTask", StageID: "cp", State: engine.Active,
		CreatedOn: t0, LastModified: t0, ModifiedBy: "alice",
		Task: &engine.HumanTask{Role: role, State: state, Assignee: assignee, Owner: assignee, DueDate: due,
			Input: map[string]any{"in": "x"}, ActivatedOn: t0, CreatedBy: "alice"}}
}

func (s caseSpec) build() (db.CaseRecord, *engine.Case) {
	tenant := cmpOr(s.tenant, "acme")
	modified := s.modified
	if modified.IsZero() {
		modified = t0
	}
	// A case plan has its case's id, as the engine makes it.
	items := []*engine.PlanItem{{ID: s.id, DefinitionID: "cp", Name: s.name, Type: "CasePlan", State: engine.Active,
		CreatedOn: t0, LastModified: modified, ModifiedBy: "alice"}}
	for _, p := range s.tasks {
		p.StageID = items[0].ID
		items = append(items, p)
	}
	root := s.id
	if s.parent != "" {
		root = s.parent
	}
	c := &engine.Case{ID: s.id, Tenant: tenant, Name: s.name, DefinitionID: "cp", ParentID: s.parent, RootID: root,
		CreatedOn: t0, CreatedBy: "alice", LastModified: modified, ModifiedBy: "alice", PlanItems: items,
		File: s.file, Team: engine.Team{Members: s.members}, Failures: s.failures}
	rec := db.CaseRecord{ID: s.id, Tenant: tenant, Name: s.name, DefinitionName: s.name + ".xml", DefinitionHash: docHash,
		State: cmpOr(s.state, string(engine.Active)), Failures: s.failures, ParentCaseID: s.parent, RootCaseID: root,
		CreatedOn: t0, CreatedBy: "alice", LastModified: modified, ModifiedBy: "alice"}
	return rec, c
}

// newCase stores a new case made of s with one event, and returns its
// state.
func newCase(t *testing.T, d *db.DB, s caseSpec) *engine.Case {
	t.Helper()
	rec, c := s.build()
	c.Sequence = 1
	_, err := db.SaveCase(ctx, d, db.CaseWrite{Record: rec, State: c, User: "alice", At: rec.LastModified,
		Events:      []engine.Event{{Type: "CaseDefinitionApplied", Payload: map[string]any{"name": s.name}}},
		Identifiers: s.identifiers, Timers: s.timers})
	must(t, err)
	return c
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

func wantIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if got == nil {
		got = []string{}
	}
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

// count returns the number of rows of table matching where.
func count(t *testing.T, d *db.DB, table, where string, args ...any) int {
	t.Helper()
	n, err := d.NewSelect().TableExpr(table).Where(where, args...).Count(ctx)
	must(t, err)
	return int(n)
}
