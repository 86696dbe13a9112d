package db

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/engine"
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

// TaskCaseRead is TaskCaseRef with, for a member, the case itself and the
// member's account in its tenant (nil when the user has none there).
type TaskCaseRead struct {
	TaskCaseRef
	Record  CaseRecord
	Case    *engine.Case
	Account *TenantUser
}

// taskCaseWithCase is taskCaseOfMember reading, for a member, the case
// and the account too (caseAndAccount): the snapshot is sent only when
// the caller is a member, who will need it.
var taskCaseWithCase = newDialectStatement(func(idb bun.IDB, flavor Dialect) string {
	var cols []string
	for _, f := range idb.Dialect().Tables().Get(reflect.TypeFor[caseRow]()).Fields {
		col := "case_row." + f.Name
		if f.Name == "snapshot" {
			col = "CASE WHEN task_case.member THEN " + col + " ELSE '' END AS snapshot"
		}
		cols = append(cols, col)
	}
	// The membership is a lookup of the team's key, evaluated once: as a
	// join, the planner (without statistics, as after a bulk load) may
	// read all of the user's memberships instead.
	return "SELECT " + strings.Join(cols, ", ") + ", task_case.member, " + accountSelect(flavor) + `
	FROM (SELECT t.case_id, EXISTS (SELECT 1 FROM case_team_members AS m
		WHERE m.case_id = t.case_id AND m.member_type = 'user' AND m.member_id = ?0) AS member
		FROM tasks AS t WHERE t.id = ?1 LIMIT 1) AS task_case
	JOIN cases AS case_row ON case_row.id = task_case.case_id
	LEFT JOIN tenant_users AS u ON u.tenant = case_row.tenant AND u.user_id = ?0`
})

// TaskCaseWithCase is TaskCaseOfMember that also reads, when userID has
// a user row in the case's team, the case, unlocked, and userID's account
// in its tenant, in the same statement: a command on the task then starts
// from them instead of reading them again (one round trip less).
func TaskCaseWithCase(ctx context.Context, idb bun.IDB, userID, id string) (TaskCaseRead, error) {
	var rows []struct {
		caseRow
		Member bool `bun:"member"`
		accountColumns
	}
	if err := taskCaseWithCase.scan(ctx, idb, &rows, userID, id); err != nil {
		return TaskCaseRead{}, fmt.Errorf("db: select case of task: %w", err)
	}
	if len(rows) == 0 {
		return TaskCaseRead{}, ErrNotFound
	}
	row := rows[0]
	tc := TaskCaseRead{TaskCaseRef: TaskCaseRef{CaseID: row.ID, DefinitionHash: row.DefinitionHash, Member: row.Member}}
	if !row.Member {
		return tc, nil
	}
	c, err := decodeSnapshot(ctx, row.caseRow)
	if err != nil {
		return TaskCaseRead{}, err
	}
	tc.Record, tc.Case, tc.Account = row.record(), c, row.account(row.Tenant)
	return tc, nil
}
