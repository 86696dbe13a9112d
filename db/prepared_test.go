package db_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/engine"
	"github.com/uptrace/bun"
)

// TestStatementsArePrepared checks that the hot paths' statements are
// prepared once per connection on PostgreSQL and run with their values
// bound, and that a DATABASE_URL choosing its own query mode, or turning
// pgx's statement cache off, is obeyed: then nothing is prepared, and the
// answers are the same.
func TestStatementsArePrepared(t *testing.T) {
	if !slices.Contains(dbtest.Flavors(), db.Postgres) {
		t.Skip("prepared statements are PostgreSQL's")
	}
	for _, tc := range []struct {
		name, params string
		prepared     int
	}{
		{"by default", "", 1},
		{"mode chosen by the URL", "&default_query_exec_mode=simple_protocol", 0},
		// A URL for a pooler that cannot keep prepared statements may
		// turn pgx's statement cache off instead of choosing a mode:
		// pgx then refuses to run a query in the cache-statement mode.
		{"statement cache off in the URL", "&statement_cache_capacity=0", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var url string
			d := setup(t, func(t *testing.T) *db.DB {
				url = dbtest.URL(t, db.Postgres) + tc.params
				d, err := db.Open(ctx, url, "")
				must(t, err)
				t.Cleanup(func() { d.Close() })
				_, err = d.Migrate(ctx)
				must(t, err)
				return d
			})
			var w db.CaseWrite
			must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				for range 3 {
					u, err := db.GetTenantUser(ctx, tx, "acme", "alice")
					if err != nil {
						return err
					}
					if u.UserID != "alice" || !u.IsOwner || !slices.Equal(u.Roles, []string{"Clerk"}) {
						t.Errorf("GetTenantUser = %+v", u)
					}
				}
				if _, err := db.GetTenantUser(ctx, tx, "acme", "nobody"); err != db.ErrNotFound {
					t.Errorf("GetTenantUser(nobody) = %v, want ErrNotFound", err)
				}
				// A case's write batches: a new case's inserts, then an
				// update with an upsert of its task.
				due := t0.Add(time.Hour)
				rec, c := caseSpec{id: "c1", name: "P", members: []engine.Member{user("alice", true, "Clerk")},
					tasks: []*engine.PlanItem{humanTask("t1", "Review", "Clerk", "", engine.Unassigned, &due)}}.build()
				c.Sequence = 1
				w = db.CaseWrite{Record: rec, State: c, User: "alice", At: t0, Events: []engine.Event{{Type: "Started", Payload: map[string]any{}}}}
				v, err := db.SaveCase(ctx, tx, w)
				if err != nil {
					return err
				}
				before := cloneCase(t, c)
				c.PlanItems[1].Task.State, c.PlanItems[1].Task.Assignee, c.PlanItems[1].Task.DueDate = engine.Assigned, "alice", nil
				c.Sequence = 2
				rec.Version = v
				w = db.CaseWrite{Record: rec, State: c, User: "alice", At: t0, Before: &db.ReadState{State: before},
					Events: []engine.Event{{Type: "Claimed", Payload: map[string]any{}}}}
				if v, err = db.SaveCase(ctx, tx, w); err != nil || v != 2 {
					t.Fatalf("second save: version %d, %v", v, err)
				}
				task, err := db.GetTask(ctx, tx, "c1", "t1")
				if err != nil {
					return err
				}
				if task.TaskState != "Assigned" || task.Assignee != "alice" || task.DueDate != nil || task.Input != `{"in":"x"}` {
					t.Errorf("task after the upsert: %+v", task)
				}
				rec.Version = 1
				w.Record = rec
				return nil
			}))
			// A stale write is refused by the batch still (and ends its
			// transaction).
			err := d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				_, err := db.SaveCase(ctx, tx, w)
				return err
			})
			if err != db.ErrStaleVersion {
				t.Errorf("a stale save: %v, want ErrStaleVersion", err)
			}
			// On one connection, to see what it has prepared.
			must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				if _, err := db.GetTenantUser(ctx, tx, "acme", "alice"); err != nil {
					return err
				}
				// Notifications bind a list of payloads, whichever protocol.
				if err := db.NotifyAll(ctx, tx, "test_", []string{`{"c":"c1"}`, `{"c":"c2"}`}); err != nil {
					return err
				}
				rec, c := caseSpec{id: "c2", name: "P", members: []engine.Member{user("alice", true)}}.build()
				c.Sequence = 1
				if _, err := db.SaveCase(ctx, tx, db.CaseWrite{Record: rec, State: c, User: "alice", At: t0,
					Events: []engine.Event{{Type: "Started", Payload: map[string]any{}}}}); err != nil {
					return err
				}
				for _, like := range []string{"%FROM tenant_users AS u WHERE%", "%pg_notify%"} {
					var n int
					if err := tx.NewRaw("SELECT COUNT(*) FROM pg_prepared_statements WHERE statement LIKE ?", like).Scan(ctx, &n); err != nil {
						return err
					}
					if n != tc.prepared {
						t.Errorf("%q is prepared %d times on the connection, want %d", like, n, tc.prepared)
					}
				}
				return nil
			}))

			// A connection opened once the tables are there has the
			// writes of a command on a case prepared, and runs them (the
			// first connection, which migrated, had none: the batches
			// above ran in plain statements on whichever they got).
			d2, err := db.Open(ctx, url, "")
			must(t, err)
			defer d2.Close()
			must(t, d2.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				rec, c, err := db.LoadCase(ctx, tx, "c1")
				if err != nil {
					return err
				}
				before := cloneCase(t, c)
				c.PlanItems[1].Task.State, c.PlanItems[1].Task.Assignee = engine.Delegated, "bob"
				c.Sequence++
				if _, err := db.SaveCase(ctx, tx, db.CaseWrite{Record: rec, State: c, User: "alice", At: t0, Before: &db.ReadState{State: before},
					Events: []engine.Event{{Type: "Delegated", Payload: map[string]any{}}}}); err != nil {
					return err
				}
				var runs []struct {
					Name string `bun:"name"`
					Runs int    `bun:"runs"`
				}
				if err := tx.NewRaw("SELECT name, generic_plans + custom_plans AS runs FROM pg_prepared_statements WHERE name LIKE 'casegraph%' ORDER BY name").
					Scan(ctx, &runs); err != nil {
					return err
				}
				ran := map[string]int{}
				for _, r := range runs {
					// The name ends with a hash of the statement.
					ran[r.Name[:strings.LastIndexByte(r.Name, '_')]] = r.Runs
				}
				if tc.prepared == 0 {
					if len(runs) > 0 {
						t.Errorf("prepared writes on a connection that prepares nothing: %v", ran)
					}
					return nil
				}
				for _, name := range []string{"casegraph_update_case", "casegraph_insert_events", "casegraph_upsert_task"} {
					if ran[name] != 1 {
						t.Errorf("%s ran %d times, want 1 (prepared: %v)", name, ran[name], ran)
					}
				}
				return nil
			}))
			task, err := db.GetTask(ctx, d, "c1", "t1")
			must(t, err)
			if task.TaskState != "Delegated" || task.Assignee != "bob" {
				t.Errorf("task after the prepared upsert: %+v", task)
			}
		})
	}
}

// cloneCase returns a deep copy of c.
func cloneCase(t *testing.T, c *engine.Case) *engine.Case {
	t.Helper()
	b, err := json.Marshal(c)
	must(t, err)
	var out engine.Case
	must(t, json.Unmarshal(b, &out))
	return &out
}

// TestPreparedWritesWriteAsPlain checks that the EXECUTEs of prepared
// writes write exactly the rows their plain statements write: the same
// commands on a connection that prepares and on one that does not (a
// pooler's URL) leave the same rows, a stale update is refused by both,
// and a connection that lost its prepared writes (SQLSTATE 26000) fails
// the command with ErrRetry, nothing written, then writes plain.
func TestPreparedWritesWriteAsPlain(t *testing.T) {
	if !slices.Contains(dbtest.Flavors(), db.Postgres) {
		t.Skip("prepared writes are PostgreSQL's")
	}
	open := func(params string) func(t *testing.T) *db.DB {
		return func(t *testing.T) *db.DB {
			d, err := db.Open(ctx, dbtest.URL(t, db.Postgres)+params, "")
			must(t, err)
			t.Cleanup(func() { d.Close() })
			_, err = d.Migrate(ctx)
			must(t, err)
			return d
		}
	}
	// commands writes a case, then changes its task (a due date dropped),
	// a plan item, its timers and its file, then tries a stale update.
	commands := func(t *testing.T, d *db.DB) {
		due := t0.Add(time.Hour)
		rec, c := caseSpec{id: "c1", name: "P", members: []engine.Member{user("alice", true, "Clerk")},
			file:  map[string]any{"a": int64(1)},
			tasks: []*engine.PlanItem{humanTask("t1", "Review", "Clerk", "", engine.Unassigned, &due)}}.build()
		c.Sequence = 1
		v, err := db.SaveCase(ctx, d, db.CaseWrite{Record: rec, State: c, User: "alice", At: t0,
			Timers: []engine.Timer{{PlanItemID: "t1", Due: due}}, Events: []engine.Event{{Type: "Started", Payload: map[string]any{}}}})
		must(t, err)
		must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			before := c.Clone()
			c.PlanItems[1].Task.State, c.PlanItems[1].Task.Assignee, c.PlanItems[1].Task.DueDate = engine.Assigned, "alice", nil
			c.PlanItems[1].Task.Output = map[string]any{"o": "x"}
			c.PlanItems[0].State = engine.Completed
			c.File = map[string]any{"a": int64(2)}
			c.Sequence = 2
			rec.Version = v
			_, err := db.SaveCase(ctx, tx, db.CaseWrite{Record: rec, State: c, User: "bob", At: t0.Add(time.Minute),
				Before: &db.ReadState{State: before, Timers: []engine.Timer{{PlanItemID: "t1", Due: due}}},
				Timers: []engine.Timer{{PlanItemID: "t1", Due: due.Add(time.Hour)}}, Events: []engine.Event{{Type: "Claimed", Payload: map[string]any{"x": 1}}}})
			return err
		}))
		err = d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			_, err := db.SaveCase(ctx, tx, db.CaseWrite{Record: rec, State: c, User: "bob", At: t0,
				Events: []engine.Event{{Type: "Late", Payload: map[string]any{}}}})
			return err
		})
		if err != db.ErrStaleVersion {
			t.Errorf("a stale save: %v, want ErrStaleVersion", err)
		}
	}
	rows := func(t *testing.T, d *db.DB) map[string][]string {
		out := map[string][]string{}
		for _, table := range []string{"cases", "case_event_batches", "tasks", "plan_items", "case_timers", "case_files", "case_team_members", "case_team_roles"} {
			var got []string
			must(t, d.NewRaw("SELECT row_to_json(r)::text FROM "+table+" AS r ORDER BY row_to_json(r)::text").Scan(ctx, &got))
			out[table] = got
		}
		return out
	}
	// The connection that migrated is let go once it did (Migrate): the
	// ones opened after have the prepared writes.
	prepared := setup(t, open(""))
	plain := setup(t, open("&statement_cache_capacity=0"))
	commands(t, prepared)
	commands(t, plain)
	var ran int
	must(t, prepared.NewRaw("SELECT COUNT(*) FROM pg_prepared_statements WHERE name LIKE 'casegraph_update_case%'").Scan(ctx, &ran))
	if ran != 1 {
		t.Errorf("the connection that prepares has %d prepared case updates, want 1", ran)
	}
	want, got := rows(t, plain), rows(t, prepared)
	for table, w := range want {
		if !slices.Equal(w, got[table]) {
			t.Errorf("%s after prepared writes:\n%s\nafter plain ones:\n%s", table, got[table], w)
		}
	}

	// A connection that lost its prepared writes.
	conn, err := prepared.Conn(ctx)
	must(t, err)
	defer conn.Close()
	var names []string
	must(t, conn.NewRaw("SELECT name FROM pg_prepared_statements WHERE name LIKE 'casegraph%'").Scan(ctx, &names))
	for _, name := range names {
		_, err := conn.ExecContext(ctx, "DEALLOCATE "+name)
		must(t, err)
	}
	rec, c, err := db.LoadCase(ctx, conn, "c1")
	must(t, err)
	before := c.Clone()
	c.PlanItems[1].Task.Assignee = "carl"
	c.Sequence++
	write := func() error {
		return conn.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			_, err := db.SaveCase(ctx, tx, db.CaseWrite{Record: rec, State: c, User: "alice", At: t0, Before: &db.ReadState{State: before},
				Events: []engine.Event{{Type: "Delegated", Payload: map[string]any{}}}})
			return err
		})
	}
	if err := write(); !errors.Is(err, db.ErrRetry) {
		t.Fatalf("a write on a connection without its prepared writes: %v, want ErrRetry", err)
	}
	if task, err := db.GetTask(ctx, prepared, "c1", "t1"); err != nil || task.Assignee != "alice" {
		t.Fatalf("after the failed write: %+v %v", task, err)
	}
	must(t, write())
	if task, err := db.GetTask(ctx, prepared, "c1", "t1"); err != nil || task.Assignee != "carl" {
		t.Errorf("after the write run again: %+v %v", task, err)
	}
}
