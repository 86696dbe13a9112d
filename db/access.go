package db

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// CaseOfTask returns the id of the case of task id, whoever asks;
// ErrNotFound when there is no such task. It is only for telling a caller
// why a task the membership filter hid is refused, never for reading it.
func CaseOfTask(ctx context.Context, idb bun.IDB, id string) (string, error) {
	return caseOf(ctx, idb, "tasks", id)
}

// CaseOfPlanItem is CaseOfTask for a plan item.
func CaseOfPlanItem(ctx context.Context, idb bun.IDB, id string) (string, error) {
	return caseOf(ctx, idb, "plan_items", id)
}

func caseOf(ctx context.Context, idb bun.IDB, table, id string) (string, error) {
	var ids []string
	err := idb.NewSelect().TableExpr(table).ColumnExpr("case_id").Where("id = ?", id).Limit(1).Scan(ctx, &ids)
	if err != nil {
		return "", fmt.Errorf("db: select case of %s: %w", table, err)
	}
	if len(ids) == 0 {
		return "", ErrNotFound
	}
	return ids[0], nil
}
