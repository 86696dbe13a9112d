package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/uptrace/bun"
)

// ConsentGroup is a tenant's named set of users with group roles.
type ConsentGroup struct {
	ID           string
	Tenant       string
	LastModified time.Time
	ModifiedBy   string
	Version      int64
	Members      []GroupMember // ordered by user id
}

// GroupMember is one user of a consent group.
type GroupMember struct {
	UserID  string
	IsOwner bool
	Roles   []string // sorted, never nil
}

// UserGroup is a user's membership of one consent group.
type UserGroup struct {
	GroupID string
	Tenant  string
	IsOwner bool
	Roles   []string // sorted, never nil
}

type consentGroupRow struct {
	bun.BaseModel `bun:"table:consent_groups"`

	ID           string    `bun:"id,pk"`
	Tenant       string    `bun:"tenant"`
	LastModified time.Time `bun:"last_modified"`
	ModifiedBy   string    `bun:"modified_by"`
	Version      int64     `bun:"version"`
}

type groupMemberRow struct {
	bun.BaseModel `bun:"table:consent_group_members"`

	GroupID string `bun:"group_id,pk"`
	UserID  string `bun:"user_id,pk"`
	IsOwner bool   `bun:"is_owner"`
}

type groupMemberRoleRow struct {
	bun.BaseModel `bun:"table:consent_group_member_roles"`

	GroupID string `bun:"group_id,pk"`
	UserID  string `bun:"user_id,pk"`
	Role    string `bun:"role,pk"`
}

// CreateConsentGroup inserts a group with its members. It returns
// ErrExists when a group with that id exists, in any tenant.
func CreateConsentGroup(ctx context.Context, idb bun.IDB, g ConsentGroup) error {
	row := consentGroupRow{ID: g.ID, Tenant: g.Tenant, LastModified: g.LastModified, ModifiedBy: g.ModifiedBy, Version: 1}
	res, err := idb.NewInsert().Model(&row).On("CONFLICT (id) DO NOTHING").Exec(ctx)
	if err != nil {
		return fmt.Errorf("db: insert consent group: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrExists
	}
	return insertGroupMembers(ctx, idb, g.ID, g.Members)
}

// GetConsentGroup returns the group with its members.
func GetConsentGroup(ctx context.Context, idb bun.IDB, id string) (ConsentGroup, error) {
	var row consentGroupRow
	err := idb.NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return ConsentGroup{}, ErrNotFound
	}
	if err != nil {
		return ConsentGroup{}, fmt.Errorf("db: select consent group: %w", err)
	}
	var members []groupMemberRow
	if err := idb.NewSelect().Model(&members).Where("group_id = ?", id).Order("user_id").Scan(ctx); err != nil {
		return ConsentGroup{}, fmt.Errorf("db: select consent group members: %w", err)
	}
	var roles []groupMemberRoleRow
	if err := idb.NewSelect().Model(&roles).Where("group_id = ?", id).Order("user_id", "role").Scan(ctx); err != nil {
		return ConsentGroup{}, fmt.Errorf("db: select consent group roles: %w", err)
	}
	byUser := map[string][]string{}
	for _, r := range roles {
		byUser[r.UserID] = append(byUser[r.UserID], r.Role)
	}
	g := ConsentGroup{ID: row.ID, Tenant: row.Tenant, LastModified: row.LastModified, ModifiedBy: row.ModifiedBy,
		Version: row.Version, Members: make([]GroupMember, len(members))}
	for i, m := range members {
		rs := byUser[m.UserID]
		if rs == nil {
			rs = []string{}
		}
		g.Members[i] = GroupMember{UserID: m.UserID, IsOwner: m.IsOwner, Roles: rs}
	}
	return g, nil
}

// TouchConsentGroup records a change of the group by user at now,
// provided the group still has the version the caller read; otherwise it
// returns ErrStaleVersion.
func TouchConsentGroup(ctx context.Context, idb bun.IDB, g ConsentGroup, user string, now time.Time) (ConsentGroup, error) {
	res, err := idb.NewUpdate().Model((*consentGroupRow)(nil)).
		Set("version = version + 1").
		Set("last_modified = ?", now).
		Set("modified_by = ?", user).
		Where("id = ? AND version = ?", g.ID, g.Version).
		Exec(ctx)
	if err != nil {
		return ConsentGroup{}, fmt.Errorf("db: update consent group: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ConsentGroup{}, ErrStaleVersion
	}
	g.Version++
	g.LastModified, g.ModifiedBy = now, user
	return g, nil
}

// ReplaceGroupMembers makes members the group's whole member list.
func ReplaceGroupMembers(ctx context.Context, idb bun.IDB, id string, members []GroupMember) error {
	if _, err := idb.NewDelete().Model((*groupMemberRoleRow)(nil)).Where("group_id = ?", id).Exec(ctx); err != nil {
		return fmt.Errorf("db: delete consent group roles: %w", err)
	}
	if _, err := idb.NewDelete().Model((*groupMemberRow)(nil)).Where("group_id = ?", id).Exec(ctx); err != nil {
		return fmt.Errorf("db: delete consent group members: %w", err)
	}
	return insertGroupMembers(ctx, idb, id, members)
}

// RemoveGroupMember removes one member with its roles; an unknown member
// is not an error.
func RemoveGroupMember(ctx context.Context, idb bun.IDB, id, userID string) error {
	if _, err := idb.NewDelete().Model((*groupMemberRoleRow)(nil)).Where("group_id = ? AND user_id = ?", id, userID).Exec(ctx); err != nil {
		return fmt.Errorf("db: delete consent group member roles: %w", err)
	}
	if _, err := idb.NewDelete().Model((*groupMemberRow)(nil)).Where("group_id = ? AND user_id = ?", id, userID).Exec(ctx); err != nil {
		return fmt.Errorf("db: delete consent group member: %w", err)
	}
	return nil
}

// UpsertGroupMember adds a member or replaces its ownership and roles.
func UpsertGroupMember(ctx context.Context, idb bun.IDB, id string, m GroupMember) error {
	if err := RemoveGroupMember(ctx, idb, id, m.UserID); err != nil {
		return err
	}
	return insertGroupMembers(ctx, idb, id, []GroupMember{m})
}

func insertGroupMembers(ctx context.Context, idb bun.IDB, id string, members []GroupMember) error {
	if len(members) == 0 {
		return nil
	}
	rows := make([]groupMemberRow, len(members))
	var roles []groupMemberRoleRow
	for i, m := range members {
		rows[i] = groupMemberRow{GroupID: id, UserID: m.UserID, IsOwner: m.IsOwner}
		for _, r := range m.Roles {
			roles = append(roles, groupMemberRoleRow{GroupID: id, UserID: m.UserID, Role: r})
		}
	}
	if _, err := idb.NewInsert().Model(&rows).Exec(ctx); err != nil {
		return fmt.Errorf("db: insert consent group members: %w", err)
	}
	if len(roles) == 0 {
		return nil
	}
	if _, err := idb.NewInsert().Model(&roles).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
		return fmt.Errorf("db: insert consent group roles: %w", err)
	}
	return nil
}

// UserGroups returns the consent groups userID is a member of, in enabled
// tenants, ordered by group id.
func UserGroups(ctx context.Context, idb bun.IDB, userID string) ([]UserGroup, error) {
	return userGroups(ctx, idb, userID, "", true)
}

// userGroups is the one query of a user's consent groups with the user's
// roles in each, ordered by group id: in tenant only when tenant is not
// "", in enabled tenants only when enabledOnly.
func userGroups(ctx context.Context, idb bun.IDB, userID, tenant string, enabledOnly bool) ([]UserGroup, error) {
	var rows []struct {
		GroupID string         `bun:"group_id"`
		Tenant  string         `bun:"tenant"`
		IsOwner bool           `bun:"is_owner"`
		Role    sql.NullString `bun:"role"`
	}
	q := idb.NewSelect().TableExpr("consent_group_members AS m").
		ColumnExpr("m.group_id, g.tenant, m.is_owner, r.role").
		Join("JOIN consent_groups AS g ON g.id = m.group_id").
		Join("LEFT JOIN consent_group_member_roles AS r ON r.group_id = m.group_id AND r.user_id = m.user_id").
		Where("m.user_id = ?", userID).
		OrderExpr("m.group_id, r.role")
	if tenant != "" {
		q = q.Where("g.tenant = ?", tenant)
	}
	if enabledOnly {
		q = q.Where("g.tenant IN (SELECT name FROM tenants WHERE enabled)")
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("db: select user's consent groups: %w", err)
	}
	out := []UserGroup{}
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].GroupID != r.GroupID {
			out = append(out, UserGroup{GroupID: r.GroupID, Tenant: r.Tenant, IsOwner: r.IsOwner, Roles: []string{}})
		}
		if r.Role.Valid {
			last := &out[len(out)-1]
			last.Roles = append(last.Roles, r.Role.String)
		}
	}
	// The database's collation need not be Go's byte order.
	for _, g := range out {
		sort.Strings(g.Roles)
	}
	return out, nil
}
