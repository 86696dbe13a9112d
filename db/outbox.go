package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

type outboxRow struct {
	bun.BaseModel `bun:"table:process_outbox"`

	CallID       string     `bun:"call_id,pk"`
	CaseID       string     `bun:"case_id"`
	TaskID       string     `bun:"task_id"`
	Payload      string     `bun:"payload"`
	CreatedAt    time.Time  `bun:"created_at"`
	ClaimedUntil *time.Time `bun:"claimed_until"`
	Attempts     int        `bun:"attempts"`
	LastError    string     `bun:"last_error"`
}

// OutboxCall is a process task's call waiting in the outbox.
type OutboxCall struct {
	CallID, CaseID, TaskID string
	// Payload is the call as the engine asked for it (JSON).
	Payload string
	// Attempts counts the claims of the row, this one included: more than
	// one means an earlier worker may have made the call already.
	Attempts  int
	CreatedAt time.Time
}

// AddOutboxCall stores a call in the command's transaction; it becomes
// visible to workers when that commits.
func AddOutboxCall(ctx context.Context, idb bun.IDB, c OutboxCall) error {
	row := outboxRow{CallID: c.CallID, CaseID: c.CaseID, TaskID: c.TaskID, Payload: c.Payload, CreatedAt: c.CreatedAt}
	if _, err := idb.NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("db: add outbox call: %w", err)
	}
	return nil
}

// ClaimOutboxCall claims the oldest call that nobody holds (never claimed,
// or its lease ended before now) until now+lease, counting the attempt.
// On PostgreSQL the row is read FOR UPDATE SKIP LOCKED, so replicas
// claiming at once each get another; SQLite has one writer. ok is false
// when there is nothing to claim.
func ClaimOutboxCall(ctx context.Context, tx bun.Tx, flavor Dialect, now time.Time, lease time.Duration) (OutboxCall, bool, error) {
	var row outboxRow
	q := tx.NewSelect().Model(&row).Where("claimed_until IS NULL OR claimed_until <= ?", now).Order("created_at", "call_id").Limit(1)
	err := claimQuery(q, flavor).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return OutboxCall{}, false, nil
	}
	if err != nil {
		return OutboxCall{}, false, fmt.Errorf("db: claim outbox call: %w", err)
	}
	until := now.Add(lease)
	row.Attempts++
	if _, err := tx.NewUpdate().Model((*outboxRow)(nil)).Set("claimed_until = ?", until).Set("attempts = ?", row.Attempts).
		Where("call_id = ?", row.CallID).Exec(ctx); err != nil {
		return OutboxCall{}, false, fmt.Errorf("db: claim outbox call: %w", err)
	}
	return OutboxCall{CallID: row.CallID, CaseID: row.CaseID, TaskID: row.TaskID, Payload: row.Payload, Attempts: row.Attempts, CreatedAt: row.CreatedAt}, true, nil
}

// NextOutboxDue returns when the next call may be claimed: now for one
// never claimed, else the end of the earliest lease. ok is false when the
// outbox is empty.
func NextOutboxDue(ctx context.Context, idb bun.IDB, now time.Time) (due time.Time, ok bool, err error) {
	var rows []outboxRow
	err = idb.NewSelect().Model(&rows).Column("claimed_until").
		OrderExpr("claimed_until IS NOT NULL, claimed_until").Limit(1).Scan(ctx)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("db: select next outbox call: %w", err)
	}
	if len(rows) == 0 {
		return time.Time{}, false, nil
	}
	if rows[0].ClaimedUntil == nil {
		return now, true, nil
	}
	return *rows[0].ClaimedUntil, true, nil
}

// DeleteOutboxCall removes a call whose outcome was reported; it reports
// whether the row was still there (a case deleted meanwhile takes its rows
// with it).
func DeleteOutboxCall(ctx context.Context, idb bun.IDB, callID string) (bool, error) {
	res, err := idb.NewDelete().Model((*outboxRow)(nil)).Where("call_id = ?", callID).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("db: delete outbox call: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// NoteOutboxError records why the last attempt of a call could not report
// its outcome, for operators; the row is retried when its lease ends.
func NoteOutboxError(ctx context.Context, idb bun.IDB, callID, reason string) error {
	if len(reason) > 1000 {
		reason = reason[:1000]
	}
	_, err := idb.NewUpdate().Model((*outboxRow)(nil)).Set("last_error = ?", reason).Where("call_id = ?", callID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("db: note outbox error: %w", err)
	}
	return nil
}

// OutboxCalls lists the calls of a case waiting in the outbox, oldest first.
func OutboxCalls(ctx context.Context, idb bun.IDB, caseID string) ([]OutboxCall, error) {
	var rows []outboxRow
	if err := idb.NewSelect().Model(&rows).Where("case_id = ?", caseID).Order("created_at", "call_id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("db: list outbox calls: %w", err)
	}
	out := make([]OutboxCall, len(rows))
	for i, r := range rows {
		out[i] = OutboxCall{CallID: r.CallID, CaseID: r.CaseID, TaskID: r.TaskID, Payload: r.Payload, Attempts: r.Attempts, CreatedAt: r.CreatedAt}
	}
	return out, nil
}

// ExpireOutboxLeases ends the leases of every claimed call, as if their
// workers had died: tests of recovery use it.
func ExpireOutboxLeases(ctx context.Context, idb bun.IDB, at time.Time) error {
	_, err := idb.NewUpdate().Model((*outboxRow)(nil)).Set("claimed_until = ?", at).Where("claimed_until IS NOT NULL").Exec(ctx)
	if err != nil {
		return fmt.Errorf("db: expire outbox leases: %w", err)
	}
	return nil
}
