package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/db"
)

func exerciseOutbox(t *testing.T, open func(t *testing.T) *db.DB) {
	d := setup(t, open)
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	claim := func(now time.Time) (db.OutboxCall, bool) {
		t.Helper()
		var got db.OutboxCall
		var ok bool
		must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
			got, ok, err = db.ClaimOutboxCall(ctx, tx, d.Flavor, now, 5*time.Minute)
			return err
		}))
		return got, ok
	}
	newCase(t, d, caseSpec{id: "c1", name: "A"})
	must(t, db.AddOutboxCall(ctx, d, db.OutboxCall{CallID: "k2", CaseID: "c1", TaskID: "t", Payload: "{}", CreatedAt: at(2)}))
	must(t, db.AddOutboxCall(ctx, d, db.OutboxCall{CallID: "k1", CaseID: "c1", TaskID: "t", Payload: "{}", CreatedAt: at(1)}))
	if due, ok, err := db.NextOutboxDue(ctx, d, at(3)); err != nil || !ok || !due.Equal(at(3)) {
		t.Errorf("NextOutboxDue with unclaimed rows = %v %v %v", due, ok, err)
	}
	first, ok := claim(at(3))
	if !ok || first.CallID != "k1" || first.Attempts != 1 {
		t.Fatalf("first claim = %+v %v, want the oldest", first, ok)
	}
	second, ok := claim(at(3))
	if !ok || second.CallID != "k2" {
		t.Fatalf("second claim = %+v %v", second, ok)
	}
	if got, ok := claim(at(4)); ok {
		t.Fatalf("claimed %+v while both leases run", got)
	}
	if due, ok, err := db.NextOutboxDue(ctx, d, at(4)); err != nil || !ok || !due.Equal(at(8)) {
		t.Errorf("NextOutboxDue = %v %v %v, want the first lease's end", due, ok, err)
	}
	// A lease that ended is claimed again, counting the attempt.
	again, ok := claim(at(9))
	if !ok || again.CallID != "k1" || again.Attempts != 2 {
		t.Fatalf("claim after the lease = %+v %v", again, ok)
	}
	if there, err := db.DeleteOutboxCall(ctx, d, "k1"); err != nil || !there {
		t.Fatalf("delete = %v %v", there, err)
	}
	if there, err := db.DeleteOutboxCall(ctx, d, "k1"); err != nil || there {
		t.Fatalf("second delete = %v %v", there, err)
	}
	if d.Flavor == db.Postgres {
		must(t, db.ExpireOutboxLeases(ctx, d, at(0)))
		must(t, db.AddOutboxCall(ctx, d, db.OutboxCall{CallID: "k3", CaseID: "c1", TaskID: "t", Payload: "{}", CreatedAt: at(3)}))
		// Two replicas claiming at once get different rows, not a wait.
		must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			a, ok, err := db.ClaimOutboxCall(ctx, tx, d.Flavor, at(20), time.Minute)
			if err != nil || !ok {
				return errors.Join(err, errors.New("first claim found nothing"))
			}
			return d.InTx(ctx, func(ctx context.Context, tx2 bun.Tx) error {
				b, ok, err := db.ClaimOutboxCall(ctx, tx2, d.Flavor, at(20), time.Minute)
				if err != nil {
					return err
				}
				if !ok || a.CallID == b.CallID {
					t.Errorf("concurrent claims: %+v then %+v %v", a, b, ok)
				}
				return nil
			})
		}))
	}
	// The rows go with their case.
	if _, err := db.RemoveCaseTree(ctx, d, "c1", "world", false, at(30)); err != nil {
		t.Fatal(err)
	}
	if rows, err := db.OutboxCalls(ctx, d, "c1"); err != nil || len(rows) != 0 {
		t.Fatalf("rows after the case went = %+v %v", rows, err)
	}
}
