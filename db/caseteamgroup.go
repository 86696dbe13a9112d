package db

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// teamGroupRoleRow is one case role of one mapping of a consent group in a
// case team; CaseRole "" is the mapping itself (see migration 00011).
type teamGroupRoleRow struct {
	bun.BaseModel `bun:"table:case_team_group_roles"`

	CaseID    string `bun:"case_id,pk"`
	GroupID   string `bun:"group_id,pk"`
	GroupRole string `bun:"group_role,pk"`
	CaseRole  string `bun:"case_role,pk"`
	IsOwner   bool   `bun:"is_owner"`
}

// ConsentGroupTenants returns the tenant of each consent group among ids
// that exists.
func ConsentGroupTenants(ctx context.Context, idb bun.IDB, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []consentGroupRow
	if err := idb.NewSelect().Model(&rows).Column("id", "tenant").Where("id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("db: select consent group tenants: %w", err)
	}
	for _, r := range rows {
		out[r.ID] = r.Tenant
	}
	return out, nil
}

// CallerGroups returns the consent groups userID is a member of, with its
// roles in each, by tenant; tenant "" means every tenant. Unlike
// UserGroups it keeps disabled tenants: their cases stay reachable to
// their teams.
func CallerGroups(ctx context.Context, idb bun.IDB, userID, tenant string) (map[string][]UserGroup, error) {
	groups, err := userGroups(ctx, idb, userID, tenant, false)
	if err != nil {
		return nil, err
	}
	out := map[string][]UserGroup{}
	for _, g := range groups {
		out[g.Tenant] = append(out[g.Tenant], g)
	}
	return out, nil
}

// MemberGroups returns the consent groups among ids that userID is a
// member of, with their members, by id: three queries whatever the number
// of ids (the batch behind GraphQL's team member groups).
func MemberGroups(ctx context.Context, idb bun.IDB, userID string, ids []string) (map[string]ConsentGroup, error) {
	out := map[string]ConsentGroup{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []consentGroupRow
	err := idb.NewSelect().Model(&rows).
		Where("id IN (?)", bun.List(ids)).
		Where("EXISTS (SELECT 1 FROM consent_group_members AS me WHERE me.group_id = consent_group_row.id AND me.user_id = ?)", userID).
		Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: select member groups: %w", err)
	}
	if len(rows) == 0 {
		return out, nil
	}
	found := make([]string, len(rows))
	for i, r := range rows {
		found[i] = r.ID
	}
	var members []groupMemberRow
	if err := idb.NewSelect().Model(&members).Where("group_id IN (?)", bun.List(found)).Order("group_id", "user_id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("db: select member groups' members: %w", err)
	}
	var roles []groupMemberRoleRow
	if err := idb.NewSelect().Model(&roles).Where("group_id IN (?)", bun.List(found)).Order("group_id", "user_id", "role").Scan(ctx); err != nil {
		return nil, fmt.Errorf("db: select member groups' roles: %w", err)
	}
	byUser := map[[2]string][]string{}
	for _, r := range roles {
		k := [2]string{r.GroupID, r.UserID}
		byUser[k] = append(byUser[k], r.Role)
	}
	for _, r := range rows {
		out[r.ID] = ConsentGroup{ID: r.ID, Tenant: r.Tenant, LastModified: r.LastModified, ModifiedBy: r.ModifiedBy, Version: r.Version, Members: []GroupMember{}}
	}
	for _, m := range members {
		g := out[m.GroupID]
		rs := byUser[[2]string{m.GroupID, m.UserID}]
		if rs == nil {
			rs = []string{}
		}
		g.Members = append(g.Members, GroupMember{UserID: m.UserID, IsOwner: m.IsOwner, Roles: rs})
		out[m.GroupID] = g
	}
	return out, nil
}
