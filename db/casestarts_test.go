package db_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/engine"
)

// TestCaseStartsTogether checks the group commit of started cases on
// PostgreSQL: cases started at the same time are written with one
// statement a table, each still gets its own answer when one of them
// fails the statement (a taken id, twice the same id), and a start whose
// caller gave up before its turn is not written.
func TestCaseStartsTogether(t *testing.T) {
	if !slices.Contains(dbtest.Flavors(), db.Postgres) {
		t.Skip("SQLite writes each case on its own")
	}
	d := setup(t, func(t *testing.T) *db.DB { return dbtest.Open(t, db.Postgres) })
	newCase(t, d, caseSpec{id: "taken", name: "P"})
	inserts := &dbtest.Statements{Match: `INSERT INTO "cases"`}
	//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
	d.AddQueryHook(inserts)

	start := func(ctx context.Context, id string) error {
		rec, c := caseSpec{id: id, name: "P", members: []engine.Member{user("alice", true, "Clerk")},
			tasks: []*engine.PlanItem{humanTask("t_"+id, "Review", "Clerk", "", engine.Unassigned, nil)}}.build()
		c.Sequence = 1
		_, err := db.SaveCase(ctx, d, db.CaseWrite{Record: rec, State: c, User: "alice", At: t0,
			Timers: []engine.Timer{{PlanItemID: "t_" + id, Due: t0.Add(time.Hour)}},
			Events: []engine.Event{{Type: "CaseDefinitionApplied", Payload: map[string]any{"name": "P"}}}})
		return err
	}
	startAll := func(ctx context.Context, ids []string) map[string]error {
		queued, release := d.HoldCaseStarts()
		var mu sync.Mutex
		out := map[string]error{}
		var wg sync.WaitGroup
		for i, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := start(ctx, id)
				mu.Lock()
				out[fmt.Sprint(i, id)] = err
				mu.Unlock()
			}()
		}
		for deadline := time.Now().Add(10 * time.Second); queued() < len(ids); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d starts queued after 10 s", queued(), len(ids))
			}
		}
		release()
		wg.Wait()
		return out
	}
	countRows := func(table, caseID string) int {
		n, err := d.NewSelect().TableExpr(table).Where("case_id = ?", caseID).Count(ctx)
		must(t, err)
		return int(n)
	}

	var ids []string
	for i := range 10 {
		ids = append(ids, fmt.Sprintf("g%d", i))
	}
	for key, err := range startAll(ctx, ids) {
		if err != nil {
			t.Errorf("start %s: %v", key, err)
		}
	}
	if n := inserts.Count(); n != 1 {
		t.Errorf("ten cases started together took %d case inserts, want 1", n)
	}
	for _, id := range ids {
		if ok, err := db.CaseExists(ctx, d, id); err != nil || !ok {
			t.Errorf("case %s after the start: %v %v", id, ok, err)
		}
		for table, want := range map[string]int{"plan_items": 2, "tasks": 1, "case_team_members": 1, "case_team_roles": 1,
			"case_files": 1, "case_timers": 1, "case_event_batches": 1} {
			if n := countRows(table, id); n != want {
				t.Errorf("case %s has %d rows in %s, want %d", id, n, table, want)
			}
		}
	}

	// A taken id and an id started twice fail the statement; every case
	// is then written on its own.
	got := startAll(ctx, []string{"h1", "taken", "h2", "twin", "twin", "h3"})
	var twins []error
	for key, err := range got {
		switch key {
		case "1taken":
			if !errors.Is(err, db.ErrExists) {
				t.Errorf("start of a taken id: %v, want ErrExists", err)
			}
		case "3twin", "4twin":
			twins = append(twins, err)
		default:
			if err != nil {
				t.Errorf("start %s beside a failing one: %v", key, err)
			}
		}
	}
	if len(twins) != 2 || (twins[0] == nil) == (twins[1] == nil) || !errors.Is(errors.Join(twins...), db.ErrExists) {
		t.Errorf("the same id started twice: %v, want one started and one ErrExists", twins)
	}
	for id, want := range map[string]int{"taken": 1, "twin": 2, "h1": 2, "h2": 2, "h3": 2} {
		if n := countRows("plan_items", id); n != want {
			t.Errorf("case %s has %d plan items, want %d: nothing of a failed start stays", id, n, want)
		}
	}

	// A caller that gives up before its turn is answered at once and
	// not written.
	queued, release := d.HoldCaseStarts()
	gone, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := start(gone, "late"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("start of a caller gone: %v", err)
	}
	if n := queued(); n != 0 {
		t.Errorf("%d starts queued after their callers left", n)
	}
	release()
	if ok, err := db.CaseExists(ctx, d, "late"); err != nil || ok {
		t.Errorf("the case of a caller gone exists: %v %v", ok, err)
	}
}
