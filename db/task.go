package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Task is a human task's read row.
type Task struct {
	ID           string
	CaseID       string
	Tenant       string
	CaseName     string
	TaskName     string
	TaskState    string
	Role         string
	Assignee     string
	Owner        string
	DueDate      *time.Time
	CreatedOn    time.Time
	CreatedBy    string
	ActivatedOn  time.Time
	LastModified time.Time
	ModifiedBy   string
	Input        string // JSON
	Output       string // JSON
	TaskModel    string
	// Documentation is the plan item's documentation text.
	Documentation string
}

func (r taskRow) task() Task {
	return Task{ID: r.ID, CaseID: r.CaseID, Tenant: r.Tenant, CaseName: r.CaseName, TaskName: r.TaskName, TaskState: r.TaskState,
		Role: r.Role, Assignee: r.Assignee, Owner: r.Owner, DueDate: r.DueDate, CreatedOn: r.CreatedOn, CreatedBy: r.CreatedBy,
		ActivatedOn: r.ActivatedOn, LastModified: r.LastModified, ModifiedBy: r.ModifiedBy, Input: r.Input, Output: r.Output, TaskModel: r.TaskModel,
		Documentation: r.Documentation}
}

// callerMembership matches a team membership row m to the caller: its
// user row, a tenant role the caller holds with an enabled account in
// tenant column tenantCol (or as a group role in a consent group of that
// tenant, as the reference does since 1.1.30), or a consent group with a mapping the caller
// falls under (callerMapping). An account disabled in that tenant matches
// nothing, not even its user row: disabling someone takes away every case
// of the tenant at once. Every case and task visibility rule goes through
// here. The user id is its one argument (?0).
func callerMembership(tenantCol string) string {
	return "(" + strings.Join(membershipBranches(tenantCol), "\n\t\tOR ") + ")"
}

// membershipBranches are callerMembership's alternatives, one per member
// type: a user row, a tenant-role row, a group row. Lists test each in an
// EXISTS of its own (anyMembership), so that each is one primary-key probe
// of the case's team, whatever the planner knows of the tables.
func membershipBranches(tenantCol string) []string {
	return []string{
		`(m.member_type = 'user' AND m.member_id = ?0 AND ` + notDisabled(tenantCol) + `)`,
		`(m.member_type = 'role' AND (m.member_id IN (
			SELECT r.role FROM tenant_user_roles AS r
			JOIN tenant_users AS u ON u.tenant = r.tenant AND u.user_id = r.user_id
			WHERE r.tenant = ` + tenantCol + ` AND r.user_id = ?0 AND u.enabled)
			OR (` + notDisabled(tenantCol) + ` AND m.member_id IN (
			SELECT gr.role FROM consent_group_member_roles AS gr
			JOIN consent_groups AS g ON g.id = gr.group_id
			WHERE g.tenant = ` + tenantCol + ` AND gr.user_id = ?0))))`,
		`(m.member_type = 'group' AND EXISTS (SELECT 1 FROM case_team_group_roles AS gr
			WHERE gr.case_id = m.case_id AND gr.group_id = m.member_id AND gr.case_role = '' AND ` + callerMapping(tenantCol) + `))`,
	}
}

// anyMembership holds when the case with id column caseCol has a team
// membership row m that callerMembership matches and that passes also:
// EXISTS over callerMembership's OR, written as an OR of one EXISTS per
// branch (the same rows match). Each EXISTS then names the member type,
// and the user row's one names the member id, so the planner probes the
// team's primary key per case rather than scanning every membership of
// the caller per case, a plan it took on tables without statistics.
func anyMembership(caseCol, tenantCol, also string) string {
	branches := membershipBranches(tenantCol)
	for i, b := range branches {
		branches[i] = `EXISTS (SELECT 1 FROM case_team_members AS m WHERE m.case_id = ` + caseCol + ` AND ` + b + also + `)`
	}
	return "(" + strings.Join(branches, "\n\tOR ") + ")"
}

// notDisabled holds unless the caller's account in tenant column tenantCol
// is disabled.
func notDisabled(tenantCol string) string {
	return `NOT EXISTS (SELECT 1 FROM tenant_users AS d WHERE d.tenant = ` + tenantCol + ` AND d.user_id = ?0 AND NOT d.enabled)`
}

// callerMapping matches a group mapping row gr to the caller: a member of
// the group, in tenant column tenantCol, who holds the mapping's group
// role, or any member when that role is "", or a group owner (who gets
// every mapping), with an account there that is not disabled. Removing
// the caller from the group, or taking the group role away, takes the
// case away at once.
func callerMapping(tenantCol string) string {
	return `EXISTS (SELECT 1 FROM consent_group_members AS gm
			JOIN consent_groups AS g ON g.id = gm.group_id
			WHERE gm.group_id = gr.group_id AND gm.user_id = ?0 AND g.tenant = ` + tenantCol + ` AND ` + notDisabled(tenantCol) + `
			AND (gm.is_owner OR gr.group_role = '' OR EXISTS (SELECT 1 FROM consent_group_member_roles AS gmr
				WHERE gmr.group_id = gm.group_id AND gmr.user_id = gm.user_id AND gmr.role = gr.group_role)))`
}

// membershipHolds is the role part of a task rule on a membership row m
// that callerMembership matched: the membership holds case role roleExpr
// (or, with owners, is a case owner). A user or tenant-role row holds its
// case_team_roles; a group row holds the roles of the mappings the caller
// falls under.
func membershipHolds(roleExpr, tenantCol string, owners bool) string {
	owner, groupOwner := "", ""
	if owners {
		owner, groupOwner = "m.is_owner OR ", " OR gr.is_owner"
	}
	return `((m.member_type <> 'group' AND (` + owner + `EXISTS (SELECT 1 FROM case_team_roles AS cr
			WHERE cr.case_id = m.case_id AND cr.member_type = m.member_type AND cr.member_id = m.member_id AND cr.role = ` + roleExpr + `)))
		OR (m.member_type = 'group' AND EXISTS (SELECT 1 FROM case_team_group_roles AS gr
			WHERE gr.case_id = m.case_id AND gr.group_id = m.member_id AND (gr.case_role = ` + roleExpr + groupOwner + `)
			AND ` + callerMapping(tenantCol) + `)))`
}

// visibleTask is the reference engine's task visibility: the caller
// reaches the task's case through a membership that holds the task's
// performer role, or is an owner; a task without a role needs plain
// membership. The user id is its one argument.
func visibleTaskFilter() string {
	return anyMembership("task_row.case_id", "task_row.tenant",
		` AND (task_row.role = '' OR `+membershipHolds("task_row.role", "task_row.tenant", true)+`)`)
}

// TaskFilter selects and orders tasks of a list.
type TaskFilter struct {
	Tenant      string
	CaseID      string
	Identifiers []IdentifierCondition
	CaseName    string
	TaskName    string
	TaskStates  []string
	// Assignee, when set, lists tasks assigned to that user, checked with
	// plain case membership (the reference engine's faster query).
	Assignee  string
	Owner     string
	DueFrom   *time.Time // inclusive
	DueBefore *time.Time // exclusive
	Offset    int
	Limit     int
	SortBy    string
	Ascending bool
	After     *Keyset // see CaseFilter.After
	// CaseChangedSince keeps the tasks of cases whose lastModified is at
	// or after it (every command moves it; a task's own does not).
	CaseChangedSince *time.Time
}

// TaskSortColumns maps the sort fields a client may name to columns.
var TaskSortColumns = map[string]string{
	"taskstate": "task_state", "assignee": "assignee", "owner": "owner", "duedate": "due_date", "createdon": "created_on",
	"createdby": "created_by", "modifiedby": "modified_by", "lastmodified": "last_modified", "taskname": "task_name",
}

// ListTasks returns the tasks visible to userID that pass f.
func ListTasks(ctx context.Context, idb bun.IDB, userID string, f TaskFilter) ([]Task, error) {
	var rows []taskRow
	q := idb.NewSelect().Model(&rows)
	if f.Assignee == "" && f.CaseID == "" {
		// The other two read by their own index.
		scope, err := scopeFor(ctx, idb, userID)
		if err != nil {
			return nil, err
		}
		q = scope.from(q, idb, "tasks", "task_row", "case_id")
	}
	q = filterTasks(q, userID, f)
	q = sortAndPage(q, taskOrder, f.SortBy, f.Ascending, f.Offset, f.Limit, f.After)
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("db: list tasks: %w", err)
	}
	out := make([]Task, len(rows))
	for i, r := range rows {
		out[i] = r.task()
	}
	return out, nil
}

// TaskCase returns the id of the case of task id, when the case is
// visible to userID; ErrNotFound otherwise.
func TaskCase(ctx context.Context, idb bun.IDB, userID, id string) (string, error) {
	var row taskRow
	err := idb.NewSelect().Model(&row).Column("case_id").
		Where("task_row.id = ?", id).
		Where(visibleCase("task_row.case_id", "task_row.tenant"), userID).
		Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("db: select task case: %w", err)
	}
	return row.CaseID, nil
}

// TaskCount is the reference engine's task count of a user.
type TaskCount struct {
	Claimed, Unclaimed int
}

// CountTasks is the reference engine's task count of userID: claimed are
// the tasks assigned to it that are not Completed or Terminated (the
// reference checks no membership here); unclaimed are the unassigned tasks
// not Completed or Terminated whose role equals one of the user's case-role
// rows for the task's case, where every membership also counts as a row
// with the empty role, so role-less tasks count for every member.
// Ownership adds nothing.
func CountTasks(ctx context.Context, idb bun.IDB, userID, tenant string) (TaskCount, error) {
	var c TaskCount
	// Like the reference, claimed checks no team membership; unlike it, a
	// tenant where the user's account is disabled counts nothing, as its
	// cases are hidden from that user everywhere else.
	q := idb.NewSelect().Model((*taskRow)(nil)).
		Where("task_row.assignee = ?", userID).
		Where("task_row.task_state NOT IN ('Completed', 'Terminated')").
		Where(`NOT EXISTS (SELECT 1 FROM tenant_users AS d
			WHERE d.tenant = task_row.tenant AND d.user_id = task_row.assignee AND NOT d.enabled)`)
	if tenant != "" {
		q = q.Where("task_row.tenant = ?", tenant)
	}
	n, err := q.Count(ctx)
	if err != nil {
		return c, fmt.Errorf("db: count claimed tasks: %w", err)
	}
	c.Claimed = int(n)
	scope, err := scopeFor(ctx, idb, userID)
	if err != nil {
		return c, err
	}
	q = scope.from(idb.NewSelect().Model((*taskRow)(nil)), idb, "tasks", "task_row", "case_id").
		Where("task_row.assignee = ''").
		Where("task_row.task_state NOT IN ('Completed', 'Terminated')").
		Where(`EXISTS (SELECT 1 FROM case_team_members AS m
			WHERE m.case_id = task_row.case_id AND `+callerMembership("task_row.tenant")+`
			AND (task_row.role = '' OR `+membershipHolds("task_row.role", "task_row.tenant", false)+`))`, userID)
	if tenant != "" {
		q = q.Where("task_row.tenant = ?", tenant)
	}
	if n, err = q.Count(ctx); err != nil {
		return c, fmt.Errorf("db: count unclaimed tasks: %w", err)
	}
	c.Unclaimed = int(n)
	return c, nil
}

// CaseTasks returns every task of a case, oldest first.
func CaseTasks(ctx context.Context, idb bun.IDB, caseID string) ([]Task, error) {
	var rows []taskRow
	if err := idb.NewSelect().Model(&rows).Where("case_id = ?", caseID).Order("created_on", "id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("db: select case tasks: %w", err)
	}
	out := make([]Task, len(rows))
	for i, r := range rows {
		out[i] = r.task()
	}
	return out, nil
}

var taskByKey = selectModel[taskRow]("WHERE case_id = ? AND id = ?")

// GetTask returns one task of a case.
func GetTask(ctx context.Context, idb bun.IDB, caseID, id string) (Task, error) {
	var row taskRow
	err := taskByKey.scan(ctx, idb, &row, caseID, id)
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, ErrNotFound
	}
	if err != nil {
		return Task{}, fmt.Errorf("db: select task: %w", err)
	}
	return row.task(), nil
}

// CountTaskList counts the tasks ListTasks would list without paging.
func CountTaskList(ctx context.Context, idb bun.IDB, userID string, f TaskFilter) (int, error) {
	n, err := filterTasks(idb.NewSelect().Model((*taskRow)(nil)), userID, f).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("db: count tasks: %w", err)
	}
	return int(n), nil
}

// filterTasks adds to q the visibility and the filters of f.
func filterTasks(q *bun.SelectQuery, userID string, f TaskFilter) *bun.SelectQuery {
	if f.Assignee != "" {
		q = q.Where("task_row.assignee = ?", f.Assignee).
			Where(visibleCase("task_row.case_id", "task_row.tenant"), userID)
	} else {
		q = q.Where(visibleTaskFilter(), userID)
	}
	if f.Tenant != "" {
		q = q.Where("task_row.tenant = ?", f.Tenant)
	}
	if f.CaseID != "" {
		q = q.Where("task_row.case_id = ?", f.CaseID)
	}
	for _, c := range f.Identifiers {
		q = identifierCondition(q, "task_row.case_id", c)
	}
	if f.CaseName != "" {
		q = q.Where("task_row.case_name = ?", f.CaseName)
	}
	if f.TaskName != "" {
		q = q.Where("task_row.task_name = ?", f.TaskName)
	}
	if len(f.TaskStates) > 0 {
		q = q.Where("task_row.task_state IN (?)", bun.List(f.TaskStates))
	}
	if f.Owner != "" {
		q = q.Where("task_row.owner = ?", f.Owner)
	}
	if f.DueFrom != nil {
		q = q.Where("task_row.due_date >= ?", *f.DueFrom)
	}
	if f.DueBefore != nil {
		q = q.Where("task_row.due_date < ?", *f.DueBefore)
	}
	if f.CaseChangedSince != nil {
		q = q.Where("EXISTS (SELECT 1 FROM cases AS cc WHERE cc.id = task_row.case_id AND cc.last_modified >= ?)", *f.CaseChangedSince)
	}
	return q
}
