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

var taskCaseOfMember = newStatement(`SELECT t.case_id, c.definition_hash, EXISTS (SELECT 1 FROM case_team_members AS m
	WHERE m.case_id = t.case_id AND m.member_type = 'user' AND m.member_id = ?) AS member
	FROM tasks AS t JOIN cases AS c ON c.id = t.case_id WHERE t.id = ? LIMIT 1`)

// TaskCaseRef is where a task is: its case, the hash of the case's definition
// document, and whether the caller has a user row in the case's team.
type TaskCaseRef struct {
	CaseID, DefinitionHash string
	Member                 bool
}

// TaskCaseOfMember returns the case of task id, the case's definition
// hash, and whether userID has a user row in its team (whatever the state
// of the account): the one membership a key lookup confirms. ErrNotFound
// for an unknown task.
func TaskCaseOfMember(ctx context.Context, idb bun.IDB, userID, id string) (TaskCaseRef, error) {
	var rows []struct {
		CaseID         string `bun:"case_id"`
		DefinitionHash string `bun:"definition_hash"`
		Member         bool   `bun:"member"`
	}
	if err := taskCaseOfMember.scan(ctx, idb, &rows, userID, id); err != nil {
		return TaskCaseRef{}, fmt.Errorf("db: select case of task: %w", err)
	}
	if len(rows) == 0 {
		return TaskCaseRef{}, ErrNotFound
	}
	return TaskCaseRef{CaseID: rows[0].CaseID, DefinitionHash: rows[0].DefinitionHash, Member: rows[0].Member}, nil
}
