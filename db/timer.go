package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/engine"
)

// DueTimer is a case timer whose time has come.
type DueTimer struct {
	CaseID     string
	PlanItemID string
	DueAt      time.Time
}

// ClaimDueTimer returns the earliest timer due at now, locked for the
// transaction: on PostgreSQL with FOR UPDATE SKIP LOCKED, so that replicas
// firing timers at the same time each get a different one and none fires
// twice; SQLite has one writer, whose transaction already excludes others.
// ok is false when no timer is due.
func ClaimDueTimer(ctx context.Context, tx bun.Tx, flavor Dialect, now time.Time) (DueTimer, bool, error) {
	// A fixed text, prepared per connection: a replica behind on its
	// timers runs it once per timer.
	var rows []timerRow
	if err := claimTimer.scan(ctx, tx, &rows, now); err != nil {
		return DueTimer{}, false, fmt.Errorf("db: claim due timer: %w", err)
	}
	if len(rows) == 0 {
		return DueTimer{}, false, nil
	}
	return DueTimer{CaseID: rows[0].CaseID, PlanItemID: rows[0].PlanItemID, DueAt: rows[0].DueAt}, true, nil
}

// claimTimerSQL is the earliest due timer, claimed on PostgreSQL.
func claimTimerSQL(flavor Dialect) string {
	claim := " FOR UPDATE SKIP LOCKED"
	if flavor != Postgres {
		claim = ""
	}
	return `SELECT case_id, plan_item_id, due_at FROM case_timers WHERE due_at <= ?
	ORDER BY due_at, case_id, plan_item_id LIMIT 1` + claim
}

var claimTimer = newDialectStatement(func(_ bun.IDB, flavor Dialect) string { return claimTimerSQL(flavor) })

// ClaimDueRootTimer is ClaimDueTimer with the timer's case, locked and
// loaded, in one statement where the claim and the case's lock and load
// took two, for the timer of a case that is its own root. ok is false
// when no timer is due, and also when the earliest one claimed is a sub
// case's (whose root must be locked first) or a case's that is gone: the
// timer stays claimed by tx, and ClaimDueTimer in tx returns it again.
// ErrLocked: a command holds the case.
func ClaimDueRootTimer(ctx context.Context, tx bun.Tx, flavor Dialect, now time.Time) (DueTimer, CaseRecord, *engine.Case, bool, error) {
	var rows []struct {
		caseRow
		TimerCaseID     string    `bun:"timer_case_id"`
		TimerPlanItemID string    `bun:"timer_plan_item_id"`
		TimerDueAt      time.Time `bun:"timer_due_at"`
	}
	if err := rootTimer.scan(ctx, tx, &rows, now); err != nil {
		if lockNotAvailable(err) {
			return DueTimer{}, CaseRecord{}, nil, false, ErrLocked
		}
		return DueTimer{}, CaseRecord{}, nil, false, fmt.Errorf("db: claim due timer with its case: %w", err)
	}
	if len(rows) == 0 {
		return DueTimer{}, CaseRecord{}, nil, false, nil
	}
	row := rows[0]
	c, err := decodeSnapshot(ctx, row.caseRow)
	if err != nil {
		return DueTimer{}, CaseRecord{}, nil, false, err
	}
	return DueTimer{CaseID: row.TimerCaseID, PlanItemID: row.TimerPlanItemID, DueAt: row.TimerDueAt}, row.record(), c, true, nil
}

// rootTimer claims the timer alone first, as ClaimDueTimer does (one row
// at most: the case is then found by its key whatever the planner knows),
// and locks its case without waiting.
var rootTimer = newDialectStatement(func(idb bun.IDB, flavor Dialect) string {
	lock := " FOR UPDATE OF case_row NOWAIT"
	if flavor != Postgres {
		lock = ""
	}
	return "WITH t AS (" + claimTimerSQL(flavor) + ")\nSELECT " + modelColumns(idb, reflect.TypeFor[caseRow]()) + `,
	t.case_id AS timer_case_id, t.plan_item_id AS timer_plan_item_id, t.due_at AS timer_due_at
	FROM t JOIN cases AS case_row ON case_row.id = t.case_id
	WHERE case_row.root_case_id = case_row.id OR case_row.root_case_id = ''` + lock
})

// NextTimerDue returns when the earliest timer is due; ok is false when
// there is none.
func NextTimerDue(ctx context.Context, idb bun.IDB) (due time.Time, ok bool, err error) {
	var row timerRow
	err = idb.NewSelect().Model(&row).Column("due_at").Order("due_at").Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("db: select next timer: %w", err)
	}
	return row.DueAt, true, nil
}

// DeleteTimer removes a timer that cannot fire.
func DeleteTimer(ctx context.Context, idb bun.IDB, caseID, planItemID string) error {
	_, err := idb.NewDelete().Model((*timerRow)(nil)).Where("case_id = ? AND plan_item_id = ?", caseID, planItemID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("db: delete timer: %w", err)
	}
	return nil
}

// PostponeTimer moves a timer's due time, for a timer that failed to fire.
func PostponeTimer(ctx context.Context, idb bun.IDB, caseID, planItemID string, due time.Time) error {
	_, err := idb.NewUpdate().Model((*timerRow)(nil)).Set("due_at = ?", due).
		Where("case_id = ? AND plan_item_id = ?", caseID, planItemID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("db: postpone timer: %w", err)
	}
	return nil
}

// claimQuery makes q, which selects the next row of a work queue (timers,
// outbox calls), claim it: on PostgreSQL FOR UPDATE SKIP LOCKED, so that
// replicas claiming at once each get another row; SQLite has one writer,
// whose transaction already excludes the others.
func claimQuery(q *bun.SelectQuery, flavor Dialect) *bun.SelectQuery {
	if flavor == Postgres {
		return q.For("UPDATE SKIP LOCKED")
	}
	return q
}
