package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
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
	var row timerRow
	q := tx.NewSelect().Model(&row).Where("due_at <= ?", now).Order("due_at", "case_id", "plan_item_id").Limit(1)
	err := claimQuery(q, flavor).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return DueTimer{}, false, nil
	}
	if err != nil {
		return DueTimer{}, false, fmt.Errorf("db: claim due timer: %w", err)
	}
	return DueTimer{CaseID: row.CaseID, PlanItemID: row.PlanItemID, DueAt: row.DueAt}, true, nil
}

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
