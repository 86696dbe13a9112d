package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
)

func exerciseTimers(t *testing.T, open func(t *testing.T) *db.DB) {
	d := setup(t, open)
	min := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	claim := func(now time.Time) (db.DueTimer, bool) {
		t.Helper()
		var got db.DueTimer
		var ok bool
		must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
			got, ok, err = db.ClaimDueTimer(ctx, tx, d.Flavor, now)
			return err
		}))
		return got, ok
	}
	if _, ok, err := db.NextTimerDue(ctx, d); err != nil || ok {
		t.Fatalf("NextTimerDue without timers: %v %v", ok, err)
	}
	newCase(t, d, caseSpec{id: "c1", name: "A", timers: []engine.Timer{{PlanItemID: "late", Due: min(30)}, {PlanItemID: "soon", Due: min(10)}}})
	newCase(t, d, caseSpec{id: "c2", name: "B", timers: []engine.Timer{{PlanItemID: "mid", Due: min(20)}}})

	if due, ok, err := db.NextTimerDue(ctx, d); err != nil || !ok || !due.Equal(min(10)) {
		t.Errorf("NextTimerDue: %v %v %v, want %v", due, ok, err, min(10))
	}
	if got, ok := claim(min(9)); ok {
		t.Errorf("claimed %+v before any timer was due", got)
	}
	got, ok := claim(min(25))
	if !ok || got.CaseID != "c1" || got.PlanItemID != "soon" || !got.DueAt.Equal(min(10)) {
		t.Errorf("claim at +25m: %+v %v, want the earliest (c1 soon)", got, ok)
	}

	if d.Flavor == db.Postgres {
		// Two replicas claiming at once get different timers.
		must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			first, ok, err := db.ClaimDueTimer(ctx, tx, d.Flavor, min(25))
			if err != nil || !ok {
				return errors.Join(err, errors.New("first claim found nothing"))
			}
			return d.InTx(ctx, func(ctx context.Context, tx2 bun.Tx) error {
				second, ok, err := db.ClaimDueTimer(ctx, tx2, d.Flavor, min(25))
				if err != nil {
					return err
				}
				if !ok || second == first {
					t.Errorf("concurrent claims: %+v then %+v %v; want two different timers", first, second, ok)
				}
				return nil
			})
		}))
	}

	must(t, db.PostponeTimer(ctx, d, "c1", "soon", min(40)))
	got, ok = claim(min(25))
	if !ok || got.PlanItemID != "mid" {
		t.Errorf("claim after postponing soon: %+v %v, want mid", got, ok)
	}
	must(t, db.DeleteTimer(ctx, d, "c2", "mid"))
	if n := count(t, d, "case_timers", "1 = 1"); n != 2 {
		t.Errorf("%d timer rows after the delete, want 2", n)
	}
	if due, _, _ := db.NextTimerDue(ctx, d); !due.Equal(min(30)) {
		t.Errorf("next due after postpone and delete: %v, want %v", due, min(30))
	}

	t.Run("RootTimerWithCase", func(t *testing.T) {
		d := setup(t, open)
		newCase(t, d, caseSpec{id: "r1", name: "R", timers: []engine.Timer{{PlanItemID: "a", Due: min(5)}}})
		newCase(t, d, caseSpec{id: "s1", name: "S", parent: "r1", timers: []engine.Timer{{PlanItemID: "b", Due: min(1)}}})
		newCase(t, d, caseSpec{id: "r2", name: "R2", timers: []engine.Timer{{PlanItemID: "c", Due: min(7)}}})
		claimRoot := func(tx bun.Tx, now time.Time) (db.DueTimer, db.CaseRecord, bool) {
			t.Helper()
			tm, rec, c, ok, err := db.ClaimDueRootTimer(ctx, tx, d.Flavor, now)
			must(t, err)
			if ok && (c == nil || c.ID != rec.ID || rec.ID != tm.CaseID) {
				t.Errorf("timer %+v came with case %+v, state %v", tm, rec, c)
			}
			return tm, rec, ok
		}
		// The sub case's timer is due first: claimed, without its case;
		// ClaimDueTimer in the same transaction returns it again.
		must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			if tm, _, ok := claimRoot(tx, min(6)); ok {
				t.Errorf("root claim at +6m: %+v, want none (s1's timer is earliest)", tm)
			}
			tm, ok, err := db.ClaimDueTimer(ctx, tx, d.Flavor, min(6))
			if err != nil || !ok || tm.CaseID != "s1" || tm.PlanItemID != "b" {
				t.Errorf("claim after the root claim: %+v %v %v, want s1's timer b", tm, ok, err)
			}
			return err
		}))
		must(t, db.DeleteTimer(ctx, d, "s1", "b"))
		must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			tm, rec, ok := claimRoot(tx, min(6))
			if !ok || tm.CaseID != "r1" || tm.PlanItemID != "a" || !tm.DueAt.Equal(min(5)) || rec.Name != "R" || rec.Version != 1 {
				t.Errorf("root claim at +6m: %+v %+v %v, want r1's timer a with its case", tm, rec, ok)
			}
			return nil
		}))
		must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			if tm, _, ok := claimRoot(tx, min(2)); ok {
				t.Errorf("root claim at +2m found %+v; none is due", tm)
			}
			return nil
		}))
		if d.Flavor != db.Postgres {
			return
		}
		// A case a command holds is not waited for.
		must(t, d.InTx(ctx, func(ctx context.Context, held bun.Tx) error {
			if _, _, err := db.LockAndLoadCase(ctx, held, d.Flavor, "r1", false); err != nil {
				return err
			}
			err := d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				_, _, _, _, err := db.ClaimDueRootTimer(ctx, tx, d.Flavor, min(8))
				return err
			})
			wantErr(t, "root claim with r1 held", err, db.ErrLocked)
			return nil
		}))
	})
}

func exerciseArchive(t *testing.T, open func(t *testing.T) *db.DB) {
	d := setup(t, open)
	members := []engine.Member{user("alice", true), role("Clerk", "Viewer")}
	newCase(t, d, caseSpec{id: "root", name: "R", members: members, identifiers: []db.Identifier{{Name: "ref", Value: "1"}},
		tasks: []*engine.PlanItem{humanTask("t1", "Review", "", "", engine.Unassigned, nil)}, timers: []engine.Timer{{PlanItemID: "tm", Due: t0}}})
	newCase(t, d, caseSpec{id: "sub", name: "S", parent: "root", members: members})
	newCase(t, d, caseSpec{id: "keep", name: "K", members: members})

	a, err := db.ExportCaseTree(ctx, d, "root")
	must(t, err)
	wantIDs(t, "archived ids", a.IDs(), []string{"root", "sub"})
	if a.Tenant != "acme" || len(a.Events) != 2 || len(a.Tasks) != 1 || len(a.Timers) != 1 || !a.HasMember("user", "alice") || a.HasMember("user", "bob") {
		t.Errorf("archive: %+v", a)
	}
	_, err = db.ExportCaseTree(ctx, d, "nope")
	wantErr(t, "export an unknown case", err, db.ErrNotFound)

	ids, err := db.RemoveCaseTree(ctx, d, "root", "acme", true, t0)
	must(t, err)
	wantIDs(t, "removed ids", ids, []string{"root", "sub"})
	for _, table := range []string{"case_event_batches", "case_team_members", "case_team_roles", "case_team_group_roles", "plan_items", "tasks", "case_files", "case_identifiers", "case_timers", "process_outbox"} {
		if n := count(t, d, table, "case_id IN ('root', 'sub')"); n != 0 {
			t.Errorf("%s keeps %d rows of the removed tree", table, n)
		}
	}
	if n := count(t, d, "cases", "1 = 1"); n != 1 {
		t.Errorf("%d cases left, want 1 (keep)", n)
	}
	if retired, archived, err := db.IDRetired(ctx, d, "sub"); err != nil || !retired || !archived {
		t.Errorf("IDRetired(sub) = %v %v %v, want retired and archived", retired, archived, err)
	}
	if retired, _, err := db.IDRetired(ctx, d, "keep"); err != nil || retired {
		t.Errorf("IDRetired(keep) = %v %v", retired, err)
	}

	must(t, db.ImportCaseTree(ctx, d, a))
	must(t, db.UnretireIDs(ctx, d, a.IDs()))
	if retired, _, _ := db.IDRetired(ctx, d, "root"); retired {
		t.Error("a restored id stays retired")
	}
	rec, c, err := db.LoadCase(ctx, d, "sub")
	must(t, err)
	if rec.ParentCaseID != "root" || c.ID != "sub" {
		t.Errorf("restored sub case: %+v", rec)
	}
	if got, _ := db.VisibleCaseIDs(ctx, d, "alice", []string{"root", "sub"}); len(got) != 2 {
		t.Errorf("restored cases visible to alice: %v", got)
	}

	must(t, db.DeleteTenant(ctx, d, "acme", t0))
	for _, table := range []string{"cases", "tenant_users", "tenant_user_roles", "case_event_batches"} {
		if n := count(t, d, table, "1 = 1"); n != 0 && table != "tenant_users" {
			t.Errorf("%s keeps %d rows after the tenant was deleted", table, n)
		}
	}
	if n := count(t, d, "tenant_users", "tenant = ?", "acme"); n != 0 {
		t.Errorf("%d acme accounts after the tenant was deleted", n)
	}
	if _, err := db.GetTenant(ctx, d, "acme"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("deleted tenant: %v", err)
	}
	if retired, archived, _ := db.IDRetired(ctx, d, "keep"); !retired || archived {
		t.Errorf("a deleted tenant's case id: retired %v archived %v, want retired, not archived", retired, archived)
	}
	// The document no definition, deployment or case uses any more is gone.
	if _, err := db.Document(ctx, d, docHash); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("unused definition document after the tenant delete: %v", err)
	}
}

func exerciseFaults(t *testing.T, open func(t *testing.T) *db.DB) {
	d := setup(t, open)
	_, err := d.NewInsert().Model(&map[string]any{"name": "acme", "enabled": true, "created_at": t0, "created_by": "",
		"last_modified": t0, "modified_by": "", "version": 1}).TableExpr("tenants").Exec(ctx)
	if !db.IsUniqueViolation(err) {
		t.Errorf("a second tenant row named acme: %v is no unique violation", err)
	}
	if db.IsUnavailable(err) || db.IsUnavailable(nil) {
		t.Error("a unique violation or no error counts as unavailable")
	}
	closed := open(t)
	closed.Close()
	_, err = db.GetTenant(ctx, closed, "acme")
	if err == nil || !db.IsUnavailable(err) {
		t.Errorf("a query on a closed database: %v is not unavailable", err)
	}
	if err := closed.Ping(ctx); err == nil {
		t.Error("Ping of a closed database answered")
	}
}
