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
	return caseOf(ctx, idb, "task", "(SELECT case_id, FALSE AS case_plan FROM tasks WHERE id = ?0)", id)
}

// CaseOfPlanItem is CaseOfTask for a plan item.
func CaseOfPlanItem(ctx context.Context, idb bun.IDB, id string) (string, error) {
	return caseOf(ctx, idb, "plan item", planItemsByID, id)
}

// planItemsByID is the plan items with id ?0 whatever their case, case
// plans included, read by key: a case plan has its case's id, so it is
// found by the primary key (case_id, id), every other plan item by
// plan_items_id, whose condition the first arm repeats for the planner.
const planItemsByID = `(SELECT case_id, FALSE AS case_plan FROM plan_items WHERE id = ?0 AND type <> 'CasePlan'
	UNION ALL SELECT case_id, TRUE FROM plan_items WHERE case_id = ?0 AND id = ?0 AND type = 'CasePlan')`

// caseOf returns the case_id of the first row of rows, a subquery of
// the rows of what with id ?0: a case task rather than the case plan of
// its sub case, which has the same id.
func caseOf(ctx context.Context, idb bun.IDB, what, rows, id string) (string, error) {
	var ids []string
	err := idb.NewSelect().TableExpr(rows+" AS r", id).ColumnExpr("r.case_id").OrderExpr("r.case_plan").Limit(1).Scan(ctx, &ids)
	if err != nil {
		return "", fmt.Errorf("db: select case of %s: %w", what, err)
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
