package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// CaseArchive is every row of a case tree (a case and its sub cases), as
// archived: restoring it puts back exactly these rows. Events are one per
// event, as they were stored before a command's events became one row:
// archives of either time restore alike.
type CaseArchive struct {
	CaseID     string
	Tenant     string
	ArchivedAt time.Time
	Cases      []caseRow
	// Events are in order by case and sequence number.
	Events      []caseEventRow
	Members     []teamMemberRow
	Roles       []teamRoleRow
	GroupRoles  []teamGroupRoleRow
	PlanItems   []planItemRow
	Tasks       []taskRow
	Files       []caseFileRow
	Identifiers []identifierRow
	Timers      []timerRow
}

// caseTreeIDs returns id and the ids of its sub cases, at any depth.
func caseTreeIDs(ctx context.Context, idb bun.IDB, id string) ([]string, error) {
	ids := []string{id}
	for level := []string{id}; len(level) > 0 && len(ids) < 100000; {
		var next []string
		// The condition of the partial index cases_parent (PostgreSQL's
		// migration 00017), said again: past 100 values the planner no
		// longer proves the IN list implies it, and would scan every case.
		err := idb.NewSelect().Model((*caseRow)(nil)).Column("id").
			Where("parent_case_id IN (?) AND parent_case_id <> ''", bun.List(level)).Scan(ctx, &next)
		if err != nil {
			return nil, fmt.Errorf("db: select sub cases: %w", err)
		}
		ids = append(ids, next...)
		level = next
	}
	return ids, nil
}

// ExportCaseTree reads every row of the case tree rooted at id.
func ExportCaseTree(ctx context.Context, idb bun.IDB, id string) (CaseArchive, error) {
	ids, err := caseTreeIDs(ctx, idb, id)
	if err != nil {
		return CaseArchive{}, err
	}
	a := CaseArchive{CaseID: id}
	if err := idb.NewSelect().Model(&a.Cases).Where("id IN (?)", bun.List(ids)).Order("id").Scan(ctx); err != nil {
		return CaseArchive{}, fmt.Errorf("db: export cases: %w", err)
	}
	if len(a.Cases) == 0 {
		return CaseArchive{}, ErrNotFound
	}
	a.Tenant = a.Cases[0].Tenant
	var batches []caseEventBatchRow
	if err := idb.NewSelect().Model(&batches).Where("case_id IN (?)", bun.List(ids)).Order("case_id", "first_seq").Scan(ctx); err != nil {
		return CaseArchive{}, fmt.Errorf("db: export case events: %w", err)
	}
	for _, b := range batches {
		events, err := b.expand()
		if err != nil {
			return CaseArchive{}, err
		}
		a.Events = append(a.Events, events...)
	}
	for _, m := range []any{&a.Members, &a.Roles, &a.GroupRoles, &a.PlanItems, &a.Tasks, &a.Files, &a.Identifiers, &a.Timers} {
		if err := idb.NewSelect().Model(m).Where("case_id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
			return CaseArchive{}, fmt.Errorf("db: export case rows: %w", err)
		}
	}
	return a, nil
}

// ImportCaseTree puts back the rows of an archive. The ids must be free.
func ImportCaseTree(ctx context.Context, idb bun.IDB, a CaseArchive) error {
	batches, err := batchesOf(a.Events)
	if err != nil {
		return err
	}
	// Parents before children: the foreign keys point at cases and members.
	for _, t := range []struct {
		rows any
		n    int
	}{{&a.Cases, len(a.Cases)}, {&batches, len(batches)}, {&a.Members, len(a.Members)}, {&a.Roles, len(a.Roles)}, {&a.GroupRoles, len(a.GroupRoles)},
		{&a.PlanItems, len(a.PlanItems)}, {&a.Tasks, len(a.Tasks)}, {&a.Files, len(a.Files)},
		{&a.Identifiers, len(a.Identifiers)}, {&a.Timers, len(a.Timers)}} {
		if t.n == 0 {
			continue // bun refuses an empty insert
		}
		if _, err := idb.NewInsert().Model(t.rows).Exec(ctx); err != nil {
			return fmt.Errorf("db: import case rows: %w", err)
		}
	}
	return nil
}

// caseRowTables are the tables holding a case's rows besides cases,
// children first.
var caseRowTables = []string{"case_team_roles", "case_team_group_roles", "case_team_members", "case_event_batches", "plan_items", "tasks", "case_files",
	"case_identifiers", "case_timers", "process_outbox"}

// deleteCaseRows deletes every row of the cases ids, not counting on
// the database to cascade (SQLite may run without foreign keys).
func deleteCaseRows(ctx context.Context, idb bun.IDB, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	for _, t := range caseRowTables {
		if _, err := idb.NewDelete().TableExpr(t).Where("case_id IN (?)", bun.List(ids)).Exec(ctx); err != nil {
			return fmt.Errorf("db: delete %s: %w", t, err)
		}
	}
	if _, err := idb.NewDelete().TableExpr("cases").Where("id IN (?)", bun.List(ids)).Exec(ctx); err != nil {
		return fmt.Errorf("db: delete cases: %w", err)
	}
	return nil
}

type retiredIDRow struct {
	bun.BaseModel `bun:"table:retired_case_ids"`

	ID        string    `bun:"id,pk"`
	Tenant    string    `bun:"tenant"`
	Archived  bool      `bun:"archived"`
	RetiredAt time.Time `bun:"retired_at"`
}

// RemoveCaseTree deletes every row of the case tree rooted at id and
// retires its ids: archived marks them restorable. It returns the ids.
func RemoveCaseTree(ctx context.Context, idb bun.IDB, id, tenant string, archived bool, at time.Time) ([]string, error) {
	// A command on the tree holds its root's lock while it writes the
	// tree's rows: taken here first, no command can write a row after
	// the delete has passed its table (no foreign key cascades to catch
	// it since migration 00016). Archive and delete already hold it;
	// deleting a tenant does not.
	if idb.Dialect().Name() == dialect.PG {
		if _, err := idb.NewSelect().Model((*caseRow)(nil)).Column("id").Where("id = ?", id).For("UPDATE").Exec(ctx); err != nil {
			return nil, fmt.Errorf("db: lock case tree: %w", err)
		}
	}
	ids, err := caseTreeIDs(ctx, idb, id)
	if err != nil {
		return nil, err
	}
	if err := deleteCaseRows(ctx, idb, ids); err != nil {
		return nil, err
	}
	rows := make([]retiredIDRow, len(ids))
	for i, cid := range ids {
		rows[i] = retiredIDRow{ID: cid, Tenant: tenant, Archived: archived, RetiredAt: at}
	}
	if _, err := idb.NewInsert().Model(&rows).Exec(ctx); err != nil {
		return nil, fmt.Errorf("db: retire case ids: %w", err)
	}
	return ids, nil
}

// IDRetired reports whether a case id belonged to an archived or deleted
// case, and whether it was archived.
func IDRetired(ctx context.Context, idb bun.IDB, id string) (retired, archived bool, err error) {
	var row retiredIDRow
	err = idb.NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("db: select retired id: %w", err)
	}
	return true, row.Archived, nil
}

// UnretireIDs frees the ids of a restored archive.
func UnretireIDs(ctx context.Context, idb bun.IDB, ids []string) error {
	if _, err := idb.NewDelete().Model((*retiredIDRow)(nil)).Where("id IN (?)", bun.List(ids)).Exec(ctx); err != nil {
		return fmt.Errorf("db: free retired ids: %w", err)
	}
	return nil
}

// IDs returns the ids of the archive's cases.
func (a CaseArchive) IDs() []string {
	ids := make([]string, len(a.Cases))
	for i, c := range a.Cases {
		ids[i] = c.ID
	}
	return ids
}

// DeleteTenant deletes a tenant with everything in it: its cases (their
// ids retired), definitions, deployments, users and roles, and the
// definition documents nothing uses any more.
func DeleteTenant(ctx context.Context, idb bun.IDB, tenant string, at time.Time) error {
	var roots []string
	if err := idb.NewSelect().Model((*caseRow)(nil)).Column("id").Where("tenant = ? AND parent_case_id = ''", tenant).Scan(ctx, &roots); err != nil {
		return fmt.Errorf("db: select tenant cases: %w", err)
	}
	for _, id := range roots {
		if _, err := RemoveCaseTree(ctx, idb, id, tenant, false, at); err != nil {
			return err
		}
	}
	for _, t := range []string{"tenant_user_roles", "tenant_users", "definitions", "definition_deployments"} {
		if _, err := idb.NewDelete().TableExpr(t).Where("tenant = ?", tenant).Exec(ctx); err != nil {
			return fmt.Errorf("db: delete %s: %w", t, err)
		}
	}
	if _, err := idb.NewDelete().TableExpr("tenants").Where("name = ?", tenant).Exec(ctx); err != nil {
		return fmt.Errorf("db: delete tenant: %w", err)
	}
	_, err := idb.NewDelete().TableExpr("definition_documents AS d").
		Where("NOT EXISTS (SELECT 1 FROM definitions AS x WHERE x.hash = d.hash)").
		Where("NOT EXISTS (SELECT 1 FROM definition_deployments AS x WHERE x.hash = d.hash)").
		Where("NOT EXISTS (SELECT 1 FROM cases AS x WHERE x.definition_hash = d.hash)").Exec(ctx)
	if err != nil {
		return fmt.Errorf("db: delete unused definition documents: %w", err)
	}
	return nil
}

// HasGroupMapping reports whether the archived root case's team has a
// mapping of consent group groupID that a member of it with roles (a
// group owner when owner) falls under.
func (a CaseArchive) HasGroupMapping(groupID string, owner bool, roles []string) bool {
	for _, r := range a.GroupRoles {
		if r.CaseID == a.CaseID && r.GroupID == groupID && (owner || r.GroupRole == "" || slices.Contains(roles, r.GroupRole)) {
			return true
		}
	}
	return false
}

// HasMember reports whether the archived root case's team holds the
// member of the type (a user id, a tenant role) with that id.
func (a CaseArchive) HasMember(memberType, id string) bool {
	for _, m := range a.Members {
		if m.CaseID == a.CaseID && m.MemberType == memberType && m.MemberID == id {
			return true
		}
	}
	return false
}
