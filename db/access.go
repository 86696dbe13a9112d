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

var taskCaseOfMember = newStatement(`SELECT t.case_id, EXISTS (SELECT 1 FROM case_team_members AS m
	WHERE m.case_id = t.case_id AND m.member_type = 'user' AND m.member_id = ?) AS member
	FROM tasks AS t WHERE t.id = ? LIMIT 1`)

// TaskCaseOfMember returns the case of task id and whether userID has a
// user row in its team (whatever the state of the account): the one
// membership a key lookup confirms. ErrNotFound for an unknown task.
func TaskCaseOfMember(ctx context.Context, idb bun.IDB, userID, id string) (caseID string, member bool, err error) {
	var rows []struct {
		CaseID string `bun:"case_id"`
		Member bool   `bun:"member"`
	}
	err = taskCaseOfMember.scan(ctx, idb, &rows, userID, id)
	if err != nil {
		return "", false, fmt.Errorf("db: select case of task: %w", err)
	}
	if len(rows) == 0 {
		return "", false, ErrNotFound
	}
	return rows[0].CaseID, rows[0].Member, nil
}
