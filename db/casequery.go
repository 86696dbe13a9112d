package db

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/engine"
)

// visibleCase is the membership filter of every case read: the case with
// id column caseCol in tenant column tenantCol is visible to a caller one
// of whose memberships (callerMembership) is in its team. The user id is
// its one argument.
func visibleCase(caseCol, tenantCol string) string {
	return anyMembership(caseCol, tenantCol, "")
}

// CaseFilter selects and orders cases of a list.
type CaseFilter struct {
	Tenant   string // "" for all tenants
	State    string // "" for any; "Failed" means failures > 0
	CaseName string // case-insensitive substring; "" for any
	// Identifiers are business-identifier conditions, all of which must
	// hold.
	Identifiers []IdentifierCondition
	Offset      int
	Limit       int
	SortBy      string // a cases column
	Ascending   bool
	// After, when set, pages by keyset: the rows after this one in the
	// sort order, whatever was inserted before it since.
	After *Keyset
}

// Keyset is a row's place in a sorted list: the value of the sort column
// (nil for NULL) and the id that breaks ties. Paging by keyset puts NULLs
// last in both directions, on both databases.
type Keyset struct {
	Value any
	ID    string
}

// IdentifierCondition is one name of an identifiers filter: with Values,
// the case has the identifier with one of them (Not: with none of them);
// without, the case has the identifier with a non-empty value.
type IdentifierCondition struct {
	Name   string
	Values []string
	Not    bool
}

// CaseSortColumns maps the sort fields a client may name to columns.
var CaseSortColumns = map[string]string{
	"id": "id", "definition": "name", "casename": "name", "name": "name", "status": "state", "state": "state",
	"tenant": "tenant", "failures": "failures", "parentcaseid": "parent_case_id", "rootcaseid": "root_case_id",
	"createdon": "created_on", "createdby": "created_by", "lastmodified": "last_modified",
	"modifiedby": "modified_by", "modifiedny": "modified_by",
}

// ListCases returns the cases visible to userID that pass f, sorted as a
// whole before the page is cut; with their states when withState is set.
func ListCases(ctx context.Context, idb bun.IDB, userID string, f CaseFilter, withState bool) ([]LoadedCase, error) {
	var rows []caseRow
	scope, err := scopeFor(ctx, idb, userID)
	if err != nil {
		return nil, err
	}
	q := scope.from(idb.NewSelect().Model(&rows), idb, "cases", "case_row", "id").
		Where(visibleCase("case_row.id", "case_row.tenant"), userID)
	if !withState {
		q = q.ExcludeColumn("snapshot")
	}
	q = applyCaseFilter(q, "case_row", f)
	q = sortAndPage(q, caseOrder, f.SortBy, f.Ascending, f.Offset, f.Limit, f.After)
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("db: list cases: %w", err)
	}
	out := make([]LoadedCase, len(rows))
	for i, r := range rows {
		out[i] = LoadedCase{Record: r.record()}
		if withState {
			c, err := decodeSnapshot(ctx, r)
			if err != nil {
				return nil, err
			}
			out[i].State = c
		}
	}
	return out, nil
}

// CountCases counts the cases ListCases would list without paging.
func CountCases(ctx context.Context, idb bun.IDB, userID string, f CaseFilter) (int, error) {
	scope, err := scopeFor(ctx, idb, userID)
	if err != nil {
		return 0, err
	}
	q := scope.from(idb.NewSelect().Model((*caseRow)(nil)), idb, "cases", "case_row", "id").
		Where(visibleCase("case_row.id", "case_row.tenant"), userID)
	n, err := applyCaseFilter(q, "case_row", f).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("db: count cases: %w", err)
	}
	return int(n), nil
}

// listOrder is how a list may be sorted: the columns a client may name
// (by lower-case field name) and the one used when it names none of them.
type listOrder struct {
	alias    string
	columns  map[string]string
	fallback string
	// ties order rows with equal sort values, ascending whatever the
	// sort's direction. Empty means the row id in the sort's direction,
	// which paging by keyset needs.
	ties []string
}

var (
	caseOrder       = listOrder{alias: "case_row", columns: CaseSortColumns, fallback: "last_modified"}
	taskOrder       = listOrder{alias: "task_row", columns: TaskSortColumns, fallback: "last_modified"}
	identifierOrder = listOrder{alias: "identifier_row", fallback: "name", ties: []string{"case_id", "name", "value"},
		columns: map[string]string{"name": "name", "tenant": "tenant", "value": "value", "caseinstanceid": "case_id"}}
)

// sortAndPage is the one sort-and-page of every list: it orders by the
// column a client named, breaks ties so that pages never overlap, and cuts
// the page, by offset or (after set; o without ties) by keyset.
func sortAndPage(q *bun.SelectQuery, o listOrder, sortBy string, asc bool, offset, limit int, after *Keyset) *bun.SelectQuery {
	col, ok := o.columns[strings.ToLower(sortBy)]
	if !ok {
		col = o.fallback
	}
	col = o.alias + "." + col
	dir, cmp := "DESC", "<"
	if asc {
		dir, cmp = "ASC", ">"
	}
	if after == nil {
		q = q.OrderExpr(col + " " + dir)
	} else {
		q = q.OrderExpr(col + " " + dir + " NULLS LAST")
		if after.Value == nil {
			q = q.Where("("+col+" IS NULL AND "+o.alias+".id "+cmp+" ?)", after.ID)
		} else {
			q = q.Where("("+col+" "+cmp+" ? OR ("+col+" = ? AND "+o.alias+".id "+cmp+" ?) OR "+col+" IS NULL)",
				after.Value, after.Value, after.ID)
		}
	}
	if len(o.ties) == 0 {
		q = q.OrderExpr(o.alias + ".id " + dir)
	}
	for _, t := range o.ties {
		q = q.OrderExpr(o.alias + "." + t)
	}
	q = q.Offset(int64(max(offset, 0)))
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	return q
}

func applyCaseFilter(q *bun.SelectQuery, alias string, f CaseFilter) *bun.SelectQuery {
	if f.Tenant != "" {
		q = q.Where(alias+".tenant = ?", f.Tenant)
	}
	switch {
	case f.State == "":
	case strings.EqualFold(f.State, "Failed"):
		q = q.Where(alias + ".failures > 0")
	default:
		q = q.Where("LOWER("+alias+".state) = LOWER(?)", f.State)
	}
	if f.CaseName != "" {
		q = q.Where("LOWER("+alias+".name) LIKE ? ESCAPE '\\'", "%"+likeEscape(strings.ToLower(f.CaseName))+"%")
	}
	for _, c := range f.Identifiers {
		q = identifierCondition(q, alias+".id", c)
	}
	return q
}

func identifierCondition(q *bun.SelectQuery, caseCol string, c IdentifierCondition) *bun.SelectQuery {
	sub := "SELECT 1 FROM case_identifiers AS i WHERE i.case_id = " + caseCol + " AND i.name = ?"
	switch {
	case len(c.Values) == 0:
		return q.Where("EXISTS ("+sub+" AND i.value <> '')", c.Name)
	case c.Not:
		return q.Where("EXISTS ("+sub+" AND i.value NOT IN (?))", c.Name, bun.List(c.Values))
	default:
		return q.Where("EXISTS ("+sub+" AND i.value IN (?))", c.Name, bun.List(c.Values))
	}
}

// likeEscape makes a search text match literally in LIKE ... ESCAPE '\':
// a case named "Building_Permit" is found by "g_P".
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
}

// VisibleCaseIDs returns which of ids name cases visible to userID.
func VisibleCaseIDs(ctx context.Context, idb bun.IDB, userID string, ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var found []string
	err := idb.NewSelect().TableExpr("cases AS c").ColumnExpr("c.id").
		Where("c.id IN (?)", bun.List(ids)).
		Where(visibleCase("c.id", "c.tenant"), userID).
		Scan(ctx, &found)
	if err != nil {
		return nil, fmt.Errorf("db: select visible cases: %w", err)
	}
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}

// PlanItemCase returns the id of the case holding the plan item id, if
// the case is visible to userID; ErrNotFound otherwise.
func PlanItemCase(ctx context.Context, idb bun.IDB, userID, planItemID string) (string, error) {
	var ids []string
	err := idb.NewSelect().TableExpr(planItemsByID+" AS p", planItemID).ColumnExpr("p.case_id").
		Join("JOIN cases AS c ON c.id = p.case_id").
		Where(visibleCase("c.id", "c.tenant"), userID).
		// A case task and the case plan of its sub case share an id:
		// the case task, in the parent, is the plan item meant.
		OrderExpr("p.case_plan").
		Limit(1).Scan(ctx, &ids)
	if err != nil {
		return "", fmt.Errorf("db: select plan item case: %w", err)
	}
	if len(ids) == 0 {
		return "", ErrNotFound
	}
	return ids[0], nil
}

// Identifiers returns business identifiers of cases visible to userID.
func Identifiers(ctx context.Context, idb bun.IDB, userID, tenant, name string, offset, limit int, sortBy string, asc bool) ([]IdentifierRecord, error) {
	var rows []identifierRow
	q := idb.NewSelect().Model(&rows).
		Join("JOIN cases AS c ON c.id = identifier_row.case_id").
		Where(visibleCase("c.id", "c.tenant"), userID)
	if tenant != "" {
		q = q.Where("identifier_row.tenant = ?", tenant)
	}
	if name != "" {
		q = q.Where("identifier_row.name = ?", name)
	}
	q = sortAndPage(q, identifierOrder, sortBy, asc, offset, limit, nil)
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("db: list identifiers: %w", err)
	}
	out := make([]IdentifierRecord, len(rows))
	for i, r := range rows {
		out[i] = IdentifierRecord{CaseID: r.CaseID, Tenant: r.Tenant, Name: r.Name, Value: r.Value}
	}
	return out, nil
}

// IdentifierRecord is a business identifier with its case.
type IdentifierRecord struct {
	CaseID, Tenant, Name, Value string
}

// IdentifierNames returns the distinct names of business identifiers of
// cases visible to userID.
func IdentifierNames(ctx context.Context, idb bun.IDB, userID, tenant string) ([]string, error) {
	var names []string
	q := idb.NewSelect().TableExpr("case_identifiers AS i").ColumnExpr("DISTINCT i.name").
		Join("JOIN cases AS c ON c.id = i.case_id").
		Where(visibleCase("c.id", "c.tenant"), userID)
	if tenant != "" {
		q = q.Where("i.tenant = ?", tenant)
	}
	if err := q.OrderExpr("i.name").Scan(ctx, &names); err != nil {
		return nil, fmt.Errorf("db: list identifier names: %w", err)
	}
	return names, nil
}

// LoadVisibleCases returns the records and states of those of ids that
// name cases visible to userID, in one query.
func LoadVisibleCases(ctx context.Context, idb bun.IDB, userID string, ids []string) (map[string]LoadedCase, error) {
	out := make(map[string]LoadedCase, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []caseRow
	err := idb.NewSelect().Model(&rows).
		Where("case_row.id IN (?)", bun.List(ids)).
		Where(visibleCase("case_row.id", "case_row.tenant"), userID).
		Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: load visible cases: %w", err)
	}
	for _, r := range rows {
		c, err := decodeSnapshot(ctx, r)
		if err != nil {
			return nil, err
		}
		out[r.ID] = LoadedCase{Record: r.record(), State: c}
	}
	return out, nil
}

// LoadedCase is a case's record with its state.
type LoadedCase struct {
	Record CaseRecord
	State  *engine.Case
}

// CaseMemberAccounts returns, for each of caseIDs visible to userID, the
// enabled tenant accounts (in the case's tenant) of its user members, by
// user id: two queries whatever the number of cases. A caller without an
// enabled account in the case's tenant gets none: being in a case team
// does not open the tenant's user register.
func CaseMemberAccounts(ctx context.Context, idb bun.IDB, userID string, caseIDs []string) (map[string]map[string]TenantUser, error) {
	out := make(map[string]map[string]TenantUser, len(caseIDs))
	if len(caseIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		CaseID string `bun:"case_id"`
		tenantUserRow
	}
	err := idb.NewSelect().TableExpr("case_team_members AS m").
		ColumnExpr("m.case_id, u.tenant, u.user_id, u.name, u.email, u.is_owner, u.enabled").
		Join("JOIN cases AS c ON c.id = m.case_id").
		Join("JOIN tenant_users AS u ON u.tenant = c.tenant AND u.user_id = m.member_id").
		Where("m.member_type = 'user'").
		Where("u.enabled").
		Where("EXISTS (SELECT 1 FROM tenant_users AS me WHERE me.tenant = c.tenant AND me.user_id = ? AND me.enabled)", userID).
		Where("m.case_id IN (?)", bun.List(caseIDs)).
		Where(visibleCase("c.id", "c.tenant"), userID).
		Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("db: select case member accounts: %w", err)
	}
	if len(rows) == 0 {
		return out, nil
	}
	type key struct{ tenant, user string }
	keys := map[key]bool{}
	var tenants, users []string
	for _, r := range rows {
		if k := (key{r.Tenant, r.UserID}); !keys[k] {
			keys[k] = true
			tenants, users = append(tenants, r.Tenant), append(users, r.UserID)
		}
	}
	var roles []tenantUserRoleRow
	err = idb.NewSelect().Model(&roles).
		Where("tenant IN (?) AND user_id IN (?)", bun.List(unique(tenants)), bun.List(unique(users))).
		Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: select case member roles: %w", err)
	}
	userRows := make([]tenantUserRow, len(rows))
	for i, r := range rows {
		userRows[i] = r.tenantUserRow
	}
	accounts := joinRoles(userRows, roles)
	for i, r := range rows {
		if out[r.CaseID] == nil {
			out[r.CaseID] = map[string]TenantUser{}
		}
		out[r.CaseID][r.UserID] = accounts[i]
	}
	return out, nil
}

func unique(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := in[:0:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// PlanItemExists reports whether any case has a plan item with id.
func PlanItemExists(ctx context.Context, idb bun.IDB, id string) (bool, error) {
	ok, err := idb.NewSelect().TableExpr(planItemsByID+" AS p", id).Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("db: select plan item: %w", err)
	}
	return ok, nil
}

// IsUniqueViolation reports whether err is a database refusing a second
// row with the same unique key.
func IsUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "SQLSTATE 23505") || strings.Contains(msg, "UNIQUE constraint failed")
}
