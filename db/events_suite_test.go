package db_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/engine"
)

// wantEvents compares events read back with those expected, field by
// field, payloads byte for byte.
func wantEvents(t *testing.T, what string, got, want []db.CaseEvent) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d: %+v", what, len(got), len(want), got)
	}
	for i, g := range got {
		w := want[i]
		if g.CaseID != w.CaseID || g.Tenant != w.Tenant || g.Seq != w.Seq || g.Type != w.Type || string(g.Payload) != string(w.Payload) ||
			g.UserID != w.UserID || !g.At.Equal(w.At) || g.CorrelationID != w.CorrelationID {
			t.Errorf("%s: event %d is\n%+v (payload %s), want\n%+v (payload %s)", what, i, g, g.Payload, w, w.Payload)
		}
	}
}

// withTenant returns events with their tenant set, as VisibleCaseEvents
// gives them.
func withTenant(events []db.CaseEvent, tenant string) []db.CaseEvent {
	out := slices.Clone(events)
	for i := range out {
		out[i].Tenant = tenant
	}
	return out
}

func exerciseEventBatches(t *testing.T, open func(t *testing.T) *db.DB) {
	d := setup(t, open)
	newCase(t, d, caseSpec{id: "c1", name: "P", members: []engine.Member{user("alice", true)}})
	rec, c, err := db.LoadCase(ctx, d, "c1")
	must(t, err)
	at := t0.Add(time.Minute)
	// write saves a command that read rec and c.
	write := func(rec db.CaseRecord, c *engine.Case, userID string, events ...engine.Event) error {
		next := *c
		next.Sequence += int64(len(events))
		_, err := db.SaveCase(ctx, d, db.CaseWrite{Record: rec, State: &next, Events: events, User: userID, At: at,
			CorrelationID: "req-" + userID, Before: &db.ReadState{State: c}})
		return err
	}
	events := []engine.Event{
		{Type: `Odd"<Type>`, Payload: map[string]any{"note": "<b>&</b> é \u2028", "n": 1.5}},
		{Type: "Null"},
		{Type: "Empty", Payload: []any{}},
	}
	must(t, write(rec, c, "alice", events...))
	if n := count(t, d, "case_event_batches", "case_id = ?", "c1"); n != 2 {
		t.Errorf("%d event rows after two commands, want one each", n)
	}
	want := []db.CaseEvent{{CaseID: "c1", Seq: 1, Type: "CaseDefinitionApplied", Payload: json.RawMessage(`{"name":"P"}`), UserID: "alice", At: t0}}
	for i, e := range events {
		payload, err := e.MarshalPayload()
		must(t, err)
		want = append(want, db.CaseEvent{CaseID: "c1", Seq: int64(i + 2), Type: e.Type, Payload: payload, UserID: "alice", At: at, CorrelationID: "req-alice"})
	}
	got, err := db.CaseEvents(ctx, d, "c1")
	must(t, err)
	wantEvents(t, "CaseEvents", got, want)
	visible, err := db.VisibleCaseEvents(ctx, d, "alice", []string{"c1", "missing"})
	must(t, err)
	wantIDs(t, "cases with visible events", slices.Sorted(maps.Keys(visible)), []string{"c1"})
	wantEvents(t, "VisibleCaseEvents", visible["c1"], withTenant(want, "acme"))

	// A second command from the version the first read is stale; so is
	// one that passes the version check with sequence numbers taken: the
	// key refuses it on its own. Neither writes a thing.
	wantErr(t, "a second command from the same read version", write(rec, c, "bob", engine.Event{Type: "Late"}), db.ErrStaleVersion)
	current, _, err := db.LoadCase(ctx, d, "c1")
	must(t, err)
	wantErr(t, "a command whose sequence numbers are taken", write(current, c, "bob", engine.Event{Type: "Late"}), db.ErrStaleVersion)
	got, err = db.CaseEvents(ctx, d, "c1")
	must(t, err)
	wantEvents(t, "events after the stale writes", got, want)
	if after, _, err := db.LoadCase(ctx, d, "c1"); err != nil || after.Version != current.Version {
		t.Errorf("version after the stale writes: %d %v, want %d", after.Version, err, current.Version)
	}

	// A unique violation that is not a race (a read row the write adds is
	// there already) is an error of its own, not a stale version: retrying
	// it would fail the same way.
	current, c2, err := db.LoadCase(ctx, d, "c1")
	must(t, err)
	_, err = d.ExecContext(ctx, "INSERT INTO case_team_roles (case_id, member_type, member_id, role) VALUES ('c1', 'user', 'alice', 'Clerk')")
	must(t, err)
	next := *c2
	next.Sequence++
	next.Team.Members = []engine.Member{user("alice", true, "Clerk")}
	err = d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := db.SaveCase(ctx, tx, db.CaseWrite{Record: current, State: &next, Events: []engine.Event{{Type: "RoleAdded"}}, User: "alice",
			At: at, Before: &db.ReadState{State: c2}})
		return err
	})
	if err == nil || errors.Is(err, db.ErrStaleVersion) || !db.IsUniqueViolation(err) {
		t.Errorf("a write colliding with a stray read row: %v, want the unique violation itself", err)
	}
	_, err = d.ExecContext(ctx, "DELETE FROM case_team_roles WHERE case_id = 'c1' AND role = 'Clerk'")
	must(t, err)

	t.Run("Archive", func(t *testing.T) { exerciseEventArchive(t, d, want) })
}

// exerciseEventArchive archives case c1 holding events want, and restores
// it from its archive and from one written before events were batched.
func exerciseEventArchive(t *testing.T, d *db.DB, want []db.CaseEvent) {
	a, err := db.ExportCaseTree(ctx, d, "c1")
	must(t, err)
	blob, err := json.Marshal(a)
	must(t, err)
	// The archive holds one entry per event, as archives always did.
	var doc map[string]json.RawMessage
	must(t, json.Unmarshal(blob, &doc))
	var entries []map[string]any
	must(t, json.Unmarshal(doc["Events"], &entries))
	if len(entries) != len(want) {
		t.Fatalf("archive holds %d events, want %d: %s", len(entries), len(want), doc["Events"])
	}
	for i, e := range entries {
		keys := slices.Sorted(maps.Keys(e))
		if !slices.Equal(keys, []string{"At", "CaseID", "CorrelationID", "Payload", "Seq", "Type", "UserID"}) ||
			e["Seq"] != float64(want[i].Seq) || e["Type"] != want[i].Type || e["Payload"] != string(want[i].Payload) {
			t.Errorf("archived event %d: %v", i, e)
		}
	}

	restore := func(blob []byte) error {
		_, err := db.RemoveCaseTree(ctx, d, "c1", "acme", true, t0)
		must(t, err)
		var a db.CaseArchive
		must(t, json.Unmarshal(blob, &a))
		if err := db.ImportCaseTree(ctx, d, a); err != nil {
			return err
		}
		return db.UnretireIDs(ctx, d, a.IDs())
	}
	must(t, restore(blob))
	got, err := db.CaseEvents(ctx, d, "c1")
	must(t, err)
	wantEvents(t, "events restored", got, want)
	if n := count(t, d, "case_event_batches", "case_id = ?", "c1"); n != 2 {
		t.Errorf("%d event rows restored, want the 2 commands'", n)
	}

	// An archive written when events were a row each, in no order:
	// each command's events become one row again.
	doc["Events"] = json.RawMessage(`[
		{"CaseID":"c1","Seq":3,"Type":"B","Payload":"{\"x\": [1, 2],  \"y\":\"é\"}","UserID":"bob","At":"2025-03-04T10:05:00Z","CorrelationID":"r2"},
		{"CaseID":"c1","Seq":1,"Type":"A","Payload":"{}","UserID":"alice","At":"2025-03-04T10:00:00Z","CorrelationID":""},
		{"CaseID":"c1","Seq":2,"Type":"A\"2","Payload":"null","UserID":"bob","At":"2025-03-04T10:05:00Z","CorrelationID":"r2"}]`)
	old, err := json.Marshal(doc)
	must(t, err)
	must(t, restore(old))
	got, err = db.CaseEvents(ctx, d, "c1")
	must(t, err)
	at := t0.Add(5 * time.Minute)
	wantEvents(t, "events of an old archive", got, []db.CaseEvent{
		{CaseID: "c1", Seq: 1, Type: "A", Payload: json.RawMessage(`{}`), UserID: "alice", At: t0},
		{CaseID: "c1", Seq: 2, Type: `A"2`, Payload: json.RawMessage(`null`), UserID: "bob", At: at, CorrelationID: "r2"},
		{CaseID: "c1", Seq: 3, Type: "B", Payload: json.RawMessage(`{"x": [1, 2],  "y":"é"}`), UserID: "bob", At: at, CorrelationID: "r2"},
	})
	if n := count(t, d, "case_event_batches", "case_id = ?", "c1"); n != 2 {
		t.Errorf("%d event rows from the old archive, want 2 (seq 1, seq 2-3)", n)
	}

	// A damaged archive is refused, not half restored.
	doc["Events"] = json.RawMessage(`[{"CaseID":"c1","Seq":1,"Type":"A","Payload":"{not json","UserID":"alice","At":"2025-03-04T10:00:00Z"}]`)
	damaged, err := json.Marshal(doc)
	must(t, err)
	if err := restore(damaged); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("an archive with a payload that is not JSON: %v", err)
	}
}

// oldEventRow is an event as builds before migration 00015 stored it.
type oldEventRow struct {
	bun.BaseModel `bun:"table:case_events"`

	CaseID        string    `bun:"case_id,pk"`
	Seq           int64     `bun:"seq,pk"`
	Type          string    `bun:"type"`
	Payload       string    `bun:"payload"`
	UserID        string    `bun:"user_id"`
	At            time.Time `bun:"at"`
	CorrelationID string    `bun:"correlation_id"`
}

// TestEventBatchMigration writes events the way builds before migration
// 00015 did, one row each, and migrates: each command's events become one
// row, and read back as they were written.
func TestEventBatchMigration(t *testing.T) {
	for _, flavor := range dbtest.Flavors() {
		t.Run(string(flavor), func(t *testing.T) {
			t.Parallel()
			d := setup(t, func(t *testing.T) *db.DB {
				d, err := db.Open(ctx, dbtest.URL(t, flavor), "")
				must(t, err)
				t.Cleanup(func() { d.Close() })
				must(t, d.MigrateBefore(ctx, "00015"))
				return d
			})
			for id, seq := range map[string]int64{"c1": 6, "c2": 2, "c3": 0} {
				rec, c := caseSpec{id: id, name: "P", members: []engine.Member{user("alice", true)}}.build()
				c.Sequence = seq
				_, err := db.SaveCase(ctx, d, db.CaseWrite{Record: rec, State: c})
				must(t, err)
			}
			t1 := t0.Add(time.Second)
			old := []oldEventRow{
				// c1: a command of 3 events, one of 1 at the same time by
				// another user, and 2 more with the first's user, time and
				// correlation id (a batch of their own: seq 4 is between).
				{CaseID: "c1", Seq: 1, Type: "CaseDefinitionApplied", Payload: `{"name":"P"}`, UserID: "alice", At: t0, CorrelationID: "a"},
				{CaseID: "c1", Seq: 2, Type: `Odd"Type`, Payload: `{"note": "é <x> \"q\"",  "n": 1.50}`, UserID: "alice", At: t0, CorrelationID: "a"},
				{CaseID: "c1", Seq: 3, Type: "Null", Payload: `null`, UserID: "alice", At: t0, CorrelationID: "a"},
				{CaseID: "c1", Seq: 4, Type: "Claimed", Payload: `{}`, UserID: "bob", At: t0, CorrelationID: "b"},
				{CaseID: "c1", Seq: 5, Type: "X", Payload: `[]`, UserID: "alice", At: t0, CorrelationID: "a"},
				{CaseID: "c1", Seq: 6, Type: "Y", Payload: `[1]`, UserID: "alice", At: t0, CorrelationID: "a"},
				{CaseID: "c2", Seq: 1, Type: "CaseDefinitionApplied", Payload: `{}`, UserID: "alice", At: t1},
				{CaseID: "c2", Seq: 2, Type: "Later", Payload: `{}`, UserID: "alice", At: t1.Add(time.Minute)},
			}
			_, err := d.NewInsert().Model(&old).Exec(ctx)
			must(t, err)

			applied, err := d.Migrate(ctx)
			must(t, err)
			// 00015 and whatever came after it.
			if len(applied) == 0 || applied[0] != "00015" {
				t.Fatalf("migrations applied: %q, want 00015 first", applied)
			}
			for id, n := range map[string]int{"c1": 3, "c2": 2, "c3": 0} {
				if got := count(t, d, "case_event_batches", "case_id = ?", id); got != n {
					t.Errorf("case %s: %d event rows, want %d", id, got, n)
				}
			}
			if _, err := d.NewSelect().TableExpr("case_events").Count(ctx); err == nil {
				t.Error("table case_events is still there")
			}
			for _, id := range []string{"c1", "c2", "c3"} {
				var want []db.CaseEvent
				for _, e := range old {
					if e.CaseID == id {
						want = append(want, db.CaseEvent{CaseID: id, Seq: e.Seq, Type: e.Type, Payload: json.RawMessage(e.Payload),
							UserID: e.UserID, At: e.At, CorrelationID: e.CorrelationID})
					}
				}
				got, err := db.CaseEvents(ctx, d, id)
				must(t, err)
				wantEvents(t, "events of "+id, got, want)
			}

			// The migrated rows hold their sequence numbers: a command
			// goes on after them, and one that would reuse them is stale.
			rec, c, err := db.LoadCase(ctx, d, "c1")
			must(t, err)
			for _, seq := range []int64{7, 5} {
				next := *c
				next.Sequence = seq
				_, err := db.SaveCase(ctx, d, db.CaseWrite{Record: rec, State: &next, Events: []engine.Event{{Type: "Next"}}, User: "alice", At: t1,
					Before: &db.ReadState{State: c}})
				if seq == 7 {
					must(t, err)
					rec.Version++
				} else {
					wantErr(t, "a command reusing a migrated sequence number", err, db.ErrStaleVersion)
				}
			}
			if got, err := db.CaseEvents(ctx, d, "c1"); err != nil || len(got) != 7 || got[6].Type != "Next" {
				t.Errorf("events after the migration and a command: %+v %v", got, err)
			}
		})
	}
}
