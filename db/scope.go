package db

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// sparseScopeLimit is the most membership rows a caller may have for the
// lists to be read from the caller's cases rather than the newest rows.
const sparseScopeLimit = 2000

// caseScope is where a list of cases or tasks reads its rows from, chosen
// per caller so that the cost is bounded by construction whatever the
// planner knows:
//
//   - a caller with few memberships (at most sparseScopeLimit rows in case
//     teams, as a user, through a tenant or group role, or as a group):
//     only those cases, each found by its primary key. A caller in no case
//     of a 200,000-case tenant reads nothing, where walking the tenant's
//     rows newest first took a second or two (a cheap way to load the
//     database for anyone with an account);
//   - a caller with more: the newest rows first, each checked, stopping at
//     the page's end, which reads few rows per row shown for a caller in
//     many cases.
//
// Either way the membership rules (visibleCase, visibleTaskFilter) decide
// what is shown: the scope only narrows where to look, from a superset of
// the visible cases.
type caseScope struct {
	ids    []string // nil: no restriction
	sparse bool
}

// scopeStatement is prepared (see statement): every list and count runs it,
// and planning its three branches took longer than running them.
var scopeStatement = newStatement(`SELECT m.case_id FROM case_team_members AS m WHERE m.member_type = 'user' AND m.member_id = ?0
	UNION ALL SELECT m.case_id FROM case_team_members AS m WHERE m.member_type = 'role' AND m.member_id IN (
		SELECT r.role FROM tenant_users AS u JOIN tenant_user_roles AS r ON r.tenant = u.tenant AND r.user_id = u.user_id
		WHERE u.user_id = ?0
		UNION SELECT gr.role FROM consent_group_members AS gm JOIN consent_group_member_roles AS gr
		ON gr.group_id = gm.group_id AND gr.user_id = gm.user_id WHERE gm.user_id = ?0)
	UNION ALL SELECT m.case_id FROM case_team_members AS m WHERE m.member_type = 'group' AND m.member_id IN (
		SELECT gm.group_id FROM consent_group_members AS gm WHERE gm.user_id = ?0)
	LIMIT ?1`)

// scopeFor reads the caller's membership rows, at most sparseScopeLimit+1
// of them, by the membership index. Roles count whatever their tenant and
// whether the account is enabled, so the set may hold cases the caller
// does not see, never miss one it does.
func scopeFor(ctx context.Context, idb bun.IDB, userID string) (caseScope, error) {
	var ids []string
	err := scopeStatement.scan(ctx, idb, &ids, userID, sparseScopeLimit+1)
	if err != nil {
		return caseScope{}, fmt.Errorf("db: select the caller's cases: %w", err)
	}
	if len(ids) > sparseScopeLimit {
		return caseScope{}, nil
	}
	seen := make(map[string]bool, len(ids))
	unique := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			unique = append(unique, id)
		}
	}
	return caseScope{ids: unique, sparse: true}, nil
}

// from makes q, a select of model table table aliased alias, read only the
// scope's cases (column caseCol of the table, the first of an index). On
// PostgreSQL each case is a lateral lookup of its own: without statistics
// the planner took "case_id IN (…)" for a filter on a scan of the whole
// table, and a parameterized equality it reads by the index.
func (s caseScope) from(q *bun.SelectQuery, idb bun.IDB, table, alias, caseCol string) *bun.SelectQuery {
	if !s.sparse {
		return q
	}
	if len(s.ids) == 0 {
		return q.Where("1 = 0")
	}
	if idb.Dialect().Name() == dialect.PG {
		// OFFSET 0 keeps the planner from pulling the lookup up into a
		// join it may turn around (a scan of the table, probing the list).
		return q.ModelTableExpr("(SELECT t.* FROM unnest(ARRAY[?]::text[]) AS scope(case_id) CROSS JOIN LATERAL (SELECT * FROM "+
			table+" AS x WHERE x."+caseCol+" = scope.case_id OFFSET 0) AS t) AS "+alias, bun.List(s.ids))
	}
	return q.ModelTableExpr("(SELECT * FROM "+table+" WHERE "+caseCol+" IN (?)) AS "+alias, bun.List(s.ids))
}
