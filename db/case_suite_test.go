package db_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/engine"
)

func exerciseDefinitions(t *testing.T, open func(t *testing.T) *db.DB) {
	d := setup(t, open)
	const h2 = "0000000000000000000000000000000000000000000000000000000000000002"
	must(t, db.SaveDocument(ctx, d, h2, "<v2/>", t0))
	must(t, db.SaveDocument(ctx, d, h2, "<ignored/>", t0)) // same hash: no-op
	if xml, err := db.Document(ctx, d, h2); err != nil || xml != "<v2/>" {
		t.Errorf("document %s: %q %v", h2, xml, err)
	}
	_, err := db.Document(ctx, d, "missing")
	wantErr(t, "an unknown document", err, db.ErrNotFound)
	docs, err := db.Documents(ctx, d, []string{docHash, h2, "missing"})
	must(t, err)
	if len(docs) != 2 || docs[h2] != "<v2/>" {
		t.Errorf("Documents: %v", docs)
	}

	def := db.Definition{Tenant: "acme", Name: "permit.xml", Hash: docHash, CaseName: "Permit", DeployedAt: t0, DeployedBy: "alice"}
	v1, err := db.DeployDefinition(ctx, d, def)
	must(t, err)
	again, err := db.DeployDefinition(ctx, d, def)
	must(t, err)
	def.Hash = h2
	v2, err := db.DeployDefinition(ctx, d, def)
	must(t, err)
	if v1.Version != 1 || again.Version != 1 || v2.Version != 2 {
		t.Errorf("versions: first %d, redeploy of the same hash %d, new hash %d; want 1, 1, 2", v1.Version, again.Version, v2.Version)
	}
	if n := count(t, d, "definition_deployments", "tenant = ? AND name = ?", "acme", "permit.xml"); n != 2 {
		t.Errorf("%d deployments recorded, want 2", n)
	}
	must(t, func() error {
		_, err := db.DeployDefinition(ctx, d, db.Definition{Tenant: "acme", Name: "a.xml", Hash: docHash, DeployedAt: t0})
		return err
	}())
	got, err := db.GetDefinition(ctx, d, "acme", "permit.xml")
	must(t, err)
	if got.Hash != h2 || got.Version != 2 || got.CaseName != "Permit" {
		t.Errorf("current definition: %+v", got)
	}
	_, err = db.GetDefinition(ctx, d, "other", "permit.xml")
	wantErr(t, "a definition of another tenant", err, db.ErrNotFound)
	defs, err := db.Definitions(ctx, d, "acme")
	must(t, err)
	if len(defs) != 2 || defs[0].Name != "a.xml" || defs[1].Name != "permit.xml" {
		t.Errorf("acme's definitions by name: %+v", defs)
	}
}

func exerciseCases(t *testing.T, open func(t *testing.T) *db.DB) {
	t.Run("SaveLoadVersion", func(t *testing.T) {
		d := setup(t, open)
		spec := caseSpec{id: "c1", name: "Permit", members: []engine.Member{user("alice", true, "Approver"), role("Clerk", "Approver", "Viewer")},
			tasks: []*engine.PlanItem{humanTask("t1", "Review", "Approver", "", engine.Unassigned, nil)},
			file:  map[string]any{"Application": map[string]any{"Floors": 3.0}}}
		newCase(t, d, spec)
		rec, c, err := db.LoadCase(ctx, d, "c1")
		must(t, err)
		if rec.Version != 1 || rec.Name != "Permit" || rec.DefinitionHash != docHash || !rec.CreatedOn.Equal(t0) {
			t.Errorf("record: %+v", rec)
		}
		if c.ID != "c1" || len(c.PlanItems) != 2 || c.PlanItems[1].Task.Role != "Approver" || len(c.Team.Members) != 2 || c.Sequence != 1 {
			t.Errorf("state: %+v", c)
		}
		if n := count(t, d, "case_team_members", "case_id = ?", "c1"); n != 2 {
			t.Errorf("%d team member rows, want 2", n)
		}
		if n := count(t, d, "case_team_roles", "case_id = ?", "c1"); n != 3 {
			t.Errorf("%d team role rows, want 3", n)
		}
		if n := count(t, d, "tasks", "case_id = ? AND role = ? AND task_state = ?", "c1", "Approver", "Unassigned"); n != 1 {
			t.Errorf("%d task rows, want 1", n)
		}
		var file string
		must(t, d.NewSelect().TableExpr("case_files").Column("data").Where("case_id = ?", "c1").Scan(ctx, &file))
		if file != `{"Application":{"Floors":3}}` {
			t.Errorf("case file row: %s", file)
		}

		// A second command: claim the task, with the version read.
		before := db.ReadState{State: c}
		_, next := spec.build()
		next.PlanItems[1].Task.Assignee, next.PlanItems[1].Task.State = "alice", engine.Assigned
		next.Sequence = 3
		rec.ModifiedBy = "alice"
		evs := []engine.Event{{Type: "HumanTaskClaimed", Payload: map[string]any{"taskId": "t1"}}, {Type: "CaseModified", Payload: map[string]any{}}}
		v, err := db.SaveCase(ctx, d, db.CaseWrite{Record: rec, State: next, Events: evs, User: "alice", At: t0.Add(time.Minute),
			CorrelationID: "req-2", Before: &before})
		must(t, err)
		if v != 2 {
			t.Errorf("version after the second command: %d, want 2", v)
		}
		_, err = db.SaveCase(ctx, d, db.CaseWrite{Record: rec, State: next, User: "bob", At: t0})
		wantErr(t, "a write with the version read before another", err, db.ErrStaleVersion)
		task, err := db.GetTask(ctx, d, "c1", "t1")
		must(t, err)
		if task.Assignee != "alice" || task.TaskState != "Assigned" || task.Input != `{"in":"x"}` {
			t.Errorf("task row after the claim: %+v", task)
		}
		tasks, err := db.CaseTasks(ctx, d, "c1")
		must(t, err)
		if len(tasks) != 1 || tasks[0].ID != "t1" {
			t.Errorf("CaseTasks: %+v", tasks)
		}
		_, err = db.GetTask(ctx, d, "c1", "nope")
		wantErr(t, "an unknown task", err, db.ErrNotFound)

		events, err := db.CaseEvents(ctx, d, "c1")
		must(t, err)
		if len(events) != 3 || events[0].Seq != 1 || events[2].Seq != 3 || events[1].Type != "HumanTaskClaimed" ||
			events[1].CorrelationID != "req-2" || !events[2].At.Equal(t0.Add(time.Minute)) {
			t.Errorf("events: %+v", events)
		}
		var payload map[string]any
		if err := json.Unmarshal(events[1].Payload, &payload); err != nil || payload["taskId"] != "t1" {
			t.Errorf("payload of the claim: %s", events[1].Payload)
		}

		_, err = db.SaveCase(ctx, d, db.CaseWrite{Record: db.CaseRecord{ID: "c1", Tenant: "acme", DefinitionHash: docHash}, State: next})
		wantErr(t, "a new case with a taken id", err, db.ErrExists)
		_, _, err = db.LoadCase(ctx, d, "nope")
		wantErr(t, "load an unknown case", err, db.ErrNotFound)
		if ok, err := db.CaseExists(ctx, d, "c1"); err != nil || !ok {
			t.Errorf("CaseExists(c1) = %v %v", ok, err)
		}
		if ok, err := db.PlanItemExists(ctx, d, "t1"); err != nil || !ok {
			t.Errorf("PlanItemExists(t1) = %v %v", ok, err)
		}
		if ok, err := db.PlanItemExists(ctx, d, "c1"); err != nil || !ok {
			t.Errorf("PlanItemExists(c1), a case plan = %v %v", ok, err)
		}
		if ok, err := db.PlanItemExists(ctx, d, "nope"); err != nil || ok {
			t.Errorf("PlanItemExists(nope) = %v %v", ok, err)
		}
		if id, err := db.CaseOfTask(ctx, d, "t1"); err != nil || id != "c1" {
			t.Errorf("CaseOfTask(t1) = %q %v", id, err)
		}
		for _, item := range []string{"t1", "c1"} {
			if id, err := db.CaseOfPlanItem(ctx, d, item); err != nil || id != "c1" {
				t.Errorf("CaseOfPlanItem(%s) = %q %v", item, id, err)
			}
		}
		_, err = db.CaseOfPlanItem(ctx, d, "nope")
		wantErr(t, "the case of an unknown plan item", err, db.ErrNotFound)
	})

	t.Run("FileTooLarge", func(t *testing.T) {
		d := setup(t, open)
		rec, c := caseSpec{id: "big", name: "Big", file: map[string]any{"Text": "0123456789"}}.build()
		_, err := db.SaveCase(ctx, d, db.CaseWrite{Record: rec, State: c, MaxFileSize: 10})
		var tooLarge *db.FileTooLargeError
		if !errors.As(err, &tooLarge) || tooLarge.Limit != 10 {
			t.Fatalf("a case file over the limit: %v", err)
		}
	})

	t.Run("RebuildReadRows", func(t *testing.T) {
		d := setup(t, open)
		c := newCase(t, d, caseSpec{id: "c1", name: "P", members: []engine.Member{user("alice", true)},
			tasks: []*engine.PlanItem{humanTask("t1", "Review", "", "", engine.Unassigned, nil)}})
		_, err := d.NewDelete().TableExpr("tasks").Where("case_id = ?", "c1").Exec(ctx)
		must(t, err)
		rec, _, err := db.LoadCase(ctx, d, "c1")
		must(t, err)
		must(t, db.RebuildCaseReadRows(ctx, d, rec, db.ReadState{State: c}))
		if n := count(t, d, "tasks", "case_id = ?", "c1"); n != 1 {
			t.Errorf("%d task rows after the rebuild, want 1", n)
		}
	})

	t.Run("Ancestors", func(t *testing.T) {
		d := setup(t, open)
		newCase(t, d, caseSpec{id: "root", name: "R"})
		newCase(t, d, caseSpec{id: "mid", name: "M", parent: "root"})
		newCase(t, d, caseSpec{id: "leaf", name: "L", parent: "mid"})
		chain, err := db.CaseAncestors(ctx, d, "leaf")
		must(t, err)
		wantIDs(t, "ancestors of leaf", chain, []string{"root", "mid", "leaf"})
	})

	t.Run("Locks", func(t *testing.T) {
		d := setup(t, open)
		newCase(t, d, caseSpec{id: "c1", name: "P"})
		must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			rec, _, err := db.LoadCaseForUpdate(ctx, tx, d.Flavor, "c1")
			if err == nil && rec.ID != "c1" {
				t.Errorf("LoadCaseForUpdate: %+v", rec)
			}
			if err != nil || d.Flavor != db.Postgres {
				return err
			}
			// Another transaction that will not wait is told the case is held.
			// The failed statement aborts the other transaction: roll it back.
			err = d.InTx(ctx, func(ctx context.Context, other bun.Tx) error {
				_, _, err := db.LoadCaseIfFree(ctx, other, d.Flavor, "c1")
				return err
			})
			wantErr(t, "LoadCaseIfFree on a held case", err, db.ErrLocked)
			return nil
		}))
		must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			_, _, err := db.LoadCaseIfFree(ctx, tx, d.Flavor, "c1")
			return err
		}))
	})

	t.Run("LockAndLoadAs", func(t *testing.T) {
		d := setup(t, open)
		newCase(t, d, caseSpec{id: "root", name: "R", members: []engine.Member{user("alice", true)}})
		newCase(t, d, caseSpec{id: "sub", name: "S", parent: "root", members: []engine.Member{user("alice", true)}})
		alice := &db.TenantUser{Tenant: "acme", UserID: "alice", Roles: []string{"Clerk"}, IsOwner: true, Enabled: true}
		for _, tc := range []struct {
			caseID, user string
			want         *db.TenantUser
		}{
			{"root", "alice", alice},
			{"root", "carl", &db.TenantUser{Tenant: "acme", UserID: "carl", Roles: []string{"Clerk"}, Enabled: false}},
			{"root", "dave", &db.TenantUser{Tenant: "acme", UserID: "dave", Roles: []string{}, Enabled: true}},
			{"root", "stranger", nil},
			{"sub", "alice", alice}, // a sub case: its root is locked first, the account read apart
			{"sub", "stranger", nil},
		} {
			must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				rec, c, acct, err := db.LockAndLoadCaseAs(ctx, tx, d.Flavor, tc.caseID, tc.user)
				if err != nil {
					return err
				}
				if rec.ID != tc.caseID || c.ID != tc.caseID {
					t.Errorf("%s as %s: case %s/%s", tc.caseID, tc.user, rec.ID, c.ID)
				}
				if acct != nil {
					// Names and emails are the setup's; compare the rest.
					acct.Name, acct.Email = "", ""
				}
				if (acct == nil) != (tc.want == nil) || acct != nil && !reflect.DeepEqual(*acct, *tc.want) {
					t.Errorf("%s as %s: account %+v, want %+v", tc.caseID, tc.user, acct, tc.want)
				}
				return nil
			}))
		}
		if d.Flavor == db.Postgres {
			// It locks the case as LoadCaseForUpdate does.
			must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				if _, _, _, err := db.LockAndLoadCaseAs(ctx, tx, d.Flavor, "root", "alice"); err != nil {
					return err
				}
				err := d.InTx(ctx, func(ctx context.Context, other bun.Tx) error {
					_, _, err := db.LoadCaseIfFree(ctx, other, d.Flavor, "root")
					return err
				})
				wantErr(t, "LoadCaseIfFree on a case LockAndLoadCaseAs holds", err, db.ErrLocked)
				return nil
			}))
		}
		err := d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			_, _, _, err := db.LockAndLoadCaseAs(ctx, tx, d.Flavor, "nope", "alice")
			return err
		})
		wantErr(t, "LockAndLoadCaseAs of an unknown case", err, db.ErrNotFound)
	})

	// A start case on PostgreSQL writes outside a transaction block: its
	// batch, one multi-statement query, must be all or nothing by itself.
	t.Run("NewCaseBatchIsAtomic", func(t *testing.T) {
		d := setup(t, open)
		if d.Flavor != db.Postgres {
			t.Skip("SQLite runs a batch statement by statement, in a transaction")
		}
		// A stray event row (no foreign key refuses it) makes the batch's
		// event insert, after the case row's, fail.
		_, err := d.ExecContext(ctx, "INSERT INTO case_event_batches (case_id, first_seq, last_seq, user_id, at, events) VALUES ('c1', 1, 1, 'x', ?, '[]')", t0)
		must(t, err)
		rec, c := caseSpec{id: "c1", name: "P", members: []engine.Member{user("alice", true)}}.build()
		c.Sequence = 1
		_, err = db.SaveCase(ctx, d, db.CaseWrite{Record: rec, State: c, User: "alice", At: t0,
			Events: []engine.Event{{Type: "CaseDefinitionApplied", Payload: map[string]any{}}}})
		if err == nil {
			t.Fatal("SaveCase over a taken event key succeeded")
		}
		for _, table := range []string{"cases", "plan_items", "case_team_members"} {
			if n := count(t, d, table, "1 = 1"); n != 0 {
				t.Errorf("%s keeps %d rows of the failed batch", table, n)
			}
		}
	})

	// A command on a root case on PostgreSQL reads the case unlocked and
	// writes outside a transaction block (service.caseChange): its batch
	// must apply nothing when the case changed, or was removed, after the
	// read, even where no event key stands in its way.
	t.Run("UnlockedWriteChecksVersion", func(t *testing.T) {
		d := setup(t, open)
		if d.Flavor != db.Postgres {
			t.Skip("SQLite runs a batch statement by statement, in a transaction")
		}
		newCase(t, d, caseSpec{id: "c1", name: "P", members: []engine.Member{user("alice", true)}})
		rec, c, err := db.LoadCase(ctx, d, "c1")
		must(t, err)
		// join saves a command that read rec and c and adds member id,
		// its events numbered from seq.
		join := func(rec db.CaseRecord, c *engine.Case, id string, seq int64) error {
			next := c.Clone()
			next.Team.Members = append(next.Team.Members, user(id, false, "Clerk"))
			next.Sequence = seq
			_, err := db.SaveCase(ctx, d, db.CaseWrite{Record: rec, State: next, User: "alice", At: t0,
				Events: []engine.Event{{Type: "CaseTeamMembersChanged", Payload: map[string]any{"id": id}}}, Before: &db.ReadState{State: c}})
			return err
		}
		must(t, join(rec, c, "bob", c.Sequence+1))
		wantErr(t, "a write from the version before", join(rec, c, "carol", c.Sequence+10), db.ErrStaleVersion)
		if n := count(t, d, "case_team_members", "case_id = 'c1' AND member_id = 'carol'"); n != 0 {
			t.Errorf("the stale write left %d member rows", n)
		}
		if n := count(t, d, "case_event_batches", "case_id = 'c1'"); n != 2 {
			t.Errorf("%d event rows, want the start's and the first write's", n)
		}
		current, c, err := db.LoadCase(ctx, d, "c1")
		must(t, err)
		must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			_, err := db.RemoveCaseTree(ctx, tx, "c1", "acme", false, t0)
			return err
		}))
		wantErr(t, "a write to a case removed since its read", join(current, c, "dave", c.Sequence+1), db.ErrStaleVersion)
		for _, table := range []string{"case_event_batches", "case_team_members", "case_team_roles", "plan_items"} {
			if n := count(t, d, table, "case_id = 'c1'"); n != 0 {
				t.Errorf("%s keeps %d rows of the removed case", table, n)
			}
		}
		if n := count(t, d, "cases", "id = 'c1'"); n != 0 {
			t.Errorf("the removed case is back: %d rows", n)
		}
	})

	// No foreign key cascades a case's rows away on PostgreSQL (migration
	// 00016): removing a case must wait for a command holding its lock, or
	// the rows the command writes after the delete passed their table
	// would outlive the case.
	t.Run("RemoveWaitsForCommand", func(t *testing.T) {
		d := setup(t, open)
		if d.Flavor != db.Postgres {
			t.Skip("SQLite runs one write transaction at a time")
		}
		newCase(t, d, caseSpec{id: "c1", name: "P"})
		removed := make(chan error, 1)
		must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			if _, _, err := db.LoadCaseForUpdate(ctx, tx, d.Flavor, "c1"); err != nil {
				return err
			}
			go func() {
				removed <- d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
					_, err := db.RemoveCaseTree(ctx, tx, "c1", "acme", false, t0)
					return err
				})
			}()
			dbtest.Until(t, 10*time.Second, "the removal waits for the lock", func() (bool, error) {
				var waiting int
				err := d.NewRaw("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'").Scan(ctx, &waiting)
				return waiting > 0, err
			})
			_, err := tx.ExecContext(ctx, "INSERT INTO case_timers (case_id, plan_item_id, due_at) VALUES ('c1', 'late', ?)", t0)
			return err
		}))
		must(t, <-removed)
		for _, table := range []string{"cases", "case_timers"} {
			if n := count(t, d, table, "1 = 1"); n != 0 {
				t.Errorf("%s keeps %d rows of the removed case", table, n)
			}
		}
	})
}
