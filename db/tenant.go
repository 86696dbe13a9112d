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

// Tenant is a tenant's registration record.
type Tenant struct {
	Name         string
	Enabled      bool
	CreatedAt    time.Time
	CreatedBy    string
	LastModified time.Time
	ModifiedBy   string
	Version      int64
}

// TenantUser is a user's account in one tenant.
type TenantUser struct {
	Tenant  string
	UserID  string
	Name    string
	Email   string
	Roles   []string // sorted
	IsOwner bool
	Enabled bool
}

type tenantRow struct {
	bun.BaseModel `bun:"table:tenants"`

	Name         string    `bun:"name,pk"`
	Enabled      bool      `bun:"enabled"`
	CreatedAt    time.Time `bun:"created_at"`
	CreatedBy    string    `bun:"created_by"`
	LastModified time.Time `bun:"last_modified"`
	ModifiedBy   string    `bun:"modified_by"`
	Version      int64     `bun:"version"`
}

type tenantUserRow struct {
	bun.BaseModel `bun:"table:tenant_users"`

	Tenant  string `bun:"tenant,pk"`
	UserID  string `bun:"user_id,pk"`
	Name    string `bun:"name"`
	Email   string `bun:"email"`
	IsOwner bool   `bun:"is_owner"`
	Enabled bool   `bun:"enabled"`
	// AddedSeq orders the tenant's users by when they were added.
	AddedSeq int64 `bun:"added_seq"`
}

type tenantUserRoleRow struct {
	bun.BaseModel `bun:"table:tenant_user_roles"`

	Tenant string `bun:"tenant,pk"`
	UserID string `bun:"user_id,pk"`
	Role   string `bun:"role,pk"`
}

// CreateTenant inserts a tenant with its users. It returns ErrExists when
// a tenant of that name exists, enabled or not.
func CreateTenant(ctx context.Context, idb bun.IDB, t Tenant, users []TenantUser) error {
	row := tenantRow{Name: t.Name, Enabled: t.Enabled, CreatedAt: t.CreatedAt, CreatedBy: t.CreatedBy,
		LastModified: t.LastModified, ModifiedBy: t.ModifiedBy, Version: 1}
	res, err := idb.NewInsert().Model(&row).On("CONFLICT (name) DO NOTHING").Exec(ctx)
	if err != nil {
		return fmt.Errorf("db: insert tenant: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrExists
	}
	return insertTenantUsers(ctx, idb, t.Name, users, nil)
}

// GetTenant returns the tenant named name, enabled or not.
func GetTenant(ctx context.Context, idb bun.IDB, name string) (Tenant, error) {
	var row tenantRow
	err := idb.NewSelect().Model(&row).Where("name = ?", name).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return Tenant{}, ErrNotFound
	}
	if err != nil {
		return Tenant{}, fmt.Errorf("db: select tenant: %w", err)
	}
	return tenantOf(row), nil
}

func tenantOf(row tenantRow) Tenant {
	return Tenant{Name: row.Name, Enabled: row.Enabled, CreatedAt: row.CreatedAt, CreatedBy: row.CreatedBy,
		LastModified: row.LastModified, ModifiedBy: row.ModifiedBy, Version: row.Version}
}

// CheckIDFree returns ErrExists when id names a case (live, archived or
// deleted), a tenant or a consent group. The reference engine keeps one id space for
// all of them (each is an actor whose persistence id is its id), so a
// tenant or a group cannot take a case's id, nor the reverse. Creation
// checks it in its transaction; PostgreSQL's read committed leaves a
// window in which two creations of different kinds with one id, at the
// same instant, both succeed. Each kind is looked up in its own table,
// so nothing breaks when they do.
func CheckIDFree(ctx context.Context, idb bun.IDB, id string) error {
	var taken bool
	err := idb.NewRaw(`SELECT EXISTS (SELECT 1 FROM cases WHERE id = ?)
		OR EXISTS (SELECT 1 FROM retired_case_ids WHERE id = ?)
		OR EXISTS (SELECT 1 FROM tenants WHERE name = ?)
		OR EXISTS (SELECT 1 FROM consent_groups WHERE id = ?)`, id, id, id, id).Scan(ctx, &taken)
	switch {
	case err != nil:
		return fmt.Errorf("db: select id taken: %w", err)
	case taken:
		return ErrExists
	}
	return nil
}

// startChecks is the statement of StartChecks.
var startChecks = newDialectStatement(func(_ bun.IDB, flavor Dialect) string {
	return `SELECT (EXISTS (SELECT 1 FROM retired_case_ids AS r WHERE r.id = ?)
		OR EXISTS (SELECT 1 FROM consent_groups AS g WHERE g.id = ?)) AS retired,
	t.name, t.enabled, d.name AS definition_name, d.hash AS definition_hash, ` + accountSelect(flavor) + `
	FROM (SELECT 1 AS one) AS one
	LEFT JOIN tenants AS t ON t.name IN (?, ?)
	LEFT JOIN definitions AS d ON d.tenant = ? AND d.name = ?
	LEFT JOIN tenant_users AS u ON u.tenant = ? AND u.user_id = ?`
})

// StartCheck is what a start case checks before anything else.
type StartCheck struct {
	// Retired: the id belonged to an archived or deleted case, or names
	// a consent group (see CheckIDFree).
	Retired bool
	// Tenants are those of the id and of the case's tenant that exist,
	// with whether each is enabled.
	Tenants map[string]bool
	// DefinitionHash of the definition named, empty when the tenant has
	// no such definition.
	DefinitionName, DefinitionHash string
	// Account is the caller's in the tenant, nil when it has none.
	Account *TenantUser
}

// StartChecks reads in one statement what a start case of id in tenant
// on the definition named checks before anything else, and the account
// of userID, who starts it, in tenant.
func StartChecks(ctx context.Context, idb bun.IDB, id, tenant, definition, userID string) (StartCheck, error) {
	var rows []struct {
		Retired        bool           `bun:"retired"`
		Name           sql.NullString `bun:"name"`
		Enabled        sql.NullBool   `bun:"enabled"`
		DefinitionName sql.NullString `bun:"definition_name"`
		DefinitionHash sql.NullString `bun:"definition_hash"`
		accountColumns
	}
	if err := startChecks.scan(ctx, idb, &rows, id, id, id, tenant, tenant, definition, tenant, userID); err != nil {
		return StartCheck{}, fmt.Errorf("db: select start checks: %w", err)
	}
	out := StartCheck{Tenants: make(map[string]bool, 2)}
	for _, r := range rows {
		out.Retired = out.Retired || r.Retired
		if r.Name.Valid {
			out.Tenants[r.Name.String] = r.Enabled.Bool
		}
		if r.DefinitionHash.Valid {
			out.DefinitionName, out.DefinitionHash = r.DefinitionName.String, r.DefinitionHash.String
		}
		if out.Account == nil {
			out.Account = r.account(tenant)
		}
	}
	return out, nil
}

// TouchTenant records a change of the tenant by user at now, provided the
// tenant still has the version the caller read; otherwise it returns
// ErrStaleVersion. enabled sets the tenant's enabled flag.
func TouchTenant(ctx context.Context, idb bun.IDB, t Tenant, enabled bool, user string, now time.Time) (Tenant, error) {
	res, err := idb.NewUpdate().Model((*tenantRow)(nil)).
		Set("version = version + 1").
		Set("last_modified = ?", now).
		Set("modified_by = ?", user).
		Set("enabled = ?", enabled).
		Where("name = ?", t.Name).
		Where("version = ?", t.Version).
		Exec(ctx)
	if err != nil {
		return Tenant{}, fmt.Errorf("db: update tenant: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Tenant{}, ErrStaleVersion
	}
	t.Version++
	t.LastModified, t.ModifiedBy, t.Enabled = now, user, enabled
	return t, nil
}

// TenantUsers returns every account of the tenant, enabled or not, ordered
// by user id.
func TenantUsers(ctx context.Context, idb bun.IDB, tenant string) ([]TenantUser, error) {
	var rows []tenantUserRow
	if err := idb.NewSelect().Model(&rows).Where("tenant = ?", tenant).Order("user_id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("db: select tenant users: %w", err)
	}
	var roles []tenantUserRoleRow
	if err := idb.NewSelect().Model(&roles).Where("tenant = ?", tenant).Order("user_id", "role").Scan(ctx); err != nil {
		return nil, fmt.Errorf("db: select tenant user roles: %w", err)
	}
	return joinRoles(rows, roles), nil
}

// UserAccounts returns the accounts of userID in every tenant, enabled or
// not, in enabled tenants only, ordered by tenant.
func UserAccounts(ctx context.Context, idb bun.IDB, userID string) ([]TenantUser, error) {
	var rows []tenantUserRow
	err := idb.NewSelect().Model(&rows).
		Where("user_id = ?", userID).
		Where("tenant IN (SELECT name FROM tenants WHERE enabled)").
		Order("tenant").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: select user accounts: %w", err)
	}
	var roles []tenantUserRoleRow
	err = idb.NewSelect().Model(&roles).Where("user_id = ?", userID).Order("tenant", "role").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: select user roles: %w", err)
	}
	return joinRoles(rows, roles), nil
}

// EnabledAccounts returns at most limit enabled accounts of enabled
// tenants, ordered by tenant and user id: the users development sign-in
// offers.
func EnabledAccounts(ctx context.Context, idb bun.IDB, limit int) ([]TenantUser, error) {
	var rows []tenantUserRow
	err := idb.NewSelect().Model(&rows).
		Where("enabled").
		Where("tenant IN (SELECT name FROM tenants WHERE enabled)").
		Order("tenant", "user_id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: select enabled accounts: %w", err)
	}
	if len(rows) == 0 {
		return []TenantUser{}, nil
	}
	tenants, users := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		tenants[r.Tenant], users[r.UserID] = true, true
	}
	// Roles of the accounts read: joinRoles drops the pairs not among them.
	var roles []tenantUserRoleRow
	err = idb.NewSelect().Model(&roles).
		Where("tenant IN (?)", bun.List(keys(tenants))).
		Where("user_id IN (?)", bun.List(keys(users))).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: select enabled accounts' roles: %w", err)
	}
	return joinRoles(rows, roles), nil
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// tenantAccount is one account with its roles, as every command reads
// its caller's.
var tenantAccount = newDialectStatement(func(_ bun.IDB, flavor Dialect) string {
	return "SELECT " + accountSelect(flavor) + " FROM tenant_users AS u WHERE u.tenant = ? AND u.user_id = ?"
})

// GetTenantUser returns the account of userID in tenant, enabled or not.
func GetTenantUser(ctx context.Context, idb bun.IDB, tenant, userID string) (TenantUser, error) {
	var rows []accountColumns
	if err := tenantAccount.scan(ctx, idb, &rows, tenant, userID); err != nil {
		return TenantUser{}, fmt.Errorf("db: select tenant user: %w", err)
	}
	if len(rows) == 0 {
		return TenantUser{}, ErrNotFound
	}
	return *rows[0].account(tenant), nil
}

// UpsertTenantUser creates the account or replaces all its fields and roles.
func UpsertTenantUser(ctx context.Context, idb bun.IDB, u TenantUser) error {
	row := toUserRow(u)
	seq, err := nextAddedSeq(ctx, idb, u.Tenant)
	if err != nil {
		return err
	}
	row.AddedSeq = seq
	_, err = idb.NewInsert().Model(&row).
		On("CONFLICT (tenant, user_id) DO UPDATE").
		Set("name = EXCLUDED.name").
		Set("email = EXCLUDED.email").
		Set("is_owner = EXCLUDED.is_owner").
		Set("enabled = EXCLUDED.enabled").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("db: upsert tenant user: %w", err)
	}
	if _, err := idb.NewDelete().Model((*tenantUserRoleRow)(nil)).
		Where("tenant = ? AND user_id = ?", u.Tenant, u.UserID).Exec(ctx); err != nil {
		return fmt.Errorf("db: delete tenant user roles: %w", err)
	}
	return insertRoles(ctx, idb, []TenantUser{u})
}

// DeleteTenantUser removes the account with its roles; an unknown account
// is not an error.
func DeleteTenantUser(ctx context.Context, idb bun.IDB, tenant, userID string) error {
	if _, err := idb.NewDelete().Model((*tenantUserRoleRow)(nil)).
		Where("tenant = ? AND user_id = ?", tenant, userID).Exec(ctx); err != nil {
		return fmt.Errorf("db: delete tenant user roles: %w", err)
	}
	if _, err := idb.NewDelete().Model((*tenantUserRow)(nil)).
		Where("tenant = ? AND user_id = ?", tenant, userID).Exec(ctx); err != nil {
		return fmt.Errorf("db: delete tenant user: %w", err)
	}
	return nil
}

// ReplaceTenantUsers makes users the tenant's whole user list. Users who
// stay keep their place in the order of addition.
func ReplaceTenantUsers(ctx context.Context, idb bun.IDB, tenant string, users []TenantUser) error {
	var kept []tenantUserRow
	if err := idb.NewSelect().Model(&kept).Column("user_id", "added_seq").Where("tenant = ?", tenant).Scan(ctx); err != nil {
		return fmt.Errorf("db: select tenant users: %w", err)
	}
	seqs := map[string]int64{}
	for _, r := range kept {
		seqs[r.UserID] = r.AddedSeq
	}
	if _, err := idb.NewDelete().Model((*tenantUserRoleRow)(nil)).Where("tenant = ?", tenant).Exec(ctx); err != nil {
		return fmt.Errorf("db: delete tenant roles: %w", err)
	}
	if _, err := idb.NewDelete().Model((*tenantUserRow)(nil)).Where("tenant = ?", tenant).Exec(ctx); err != nil {
		return fmt.Errorf("db: delete tenant users: %w", err)
	}
	return insertTenantUsers(ctx, idb, tenant, users, seqs)
}

// insertTenantUsers adds users in their order; one named in seqs keeps
// that place.
func insertTenantUsers(ctx context.Context, idb bun.IDB, tenant string, users []TenantUser, seqs map[string]int64) error {
	if len(users) == 0 {
		return nil
	}
	next := int64(0)
	for _, s := range seqs {
		next = max(next, s)
	}
	rows := make([]tenantUserRow, len(users))
	for i, u := range users {
		u.Tenant = tenant
		users[i] = u
		rows[i] = toUserRow(u)
		if s, ok := seqs[u.UserID]; ok {
			rows[i].AddedSeq = s
		} else {
			next++
			rows[i].AddedSeq = next
		}
	}
	if _, err := idb.NewInsert().Model(&rows).Exec(ctx); err != nil {
		return fmt.Errorf("db: insert tenant users: %w", err)
	}
	return insertRoles(ctx, idb, users)
}

func insertRoles(ctx context.Context, idb bun.IDB, users []TenantUser) error {
	var roles []tenantUserRoleRow
	for _, u := range users {
		for _, r := range u.Roles {
			roles = append(roles, tenantUserRoleRow{Tenant: u.Tenant, UserID: u.UserID, Role: r})
		}
	}
	if len(roles) == 0 {
		return nil
	}
	if _, err := idb.NewInsert().Model(&roles).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
		return fmt.Errorf("db: insert tenant user roles: %w", err)
	}
	return nil
}

// nextAddedSeq is the place of a user added to tenant now.
func nextAddedSeq(ctx context.Context, idb bun.IDB, tenant string) (int64, error) {
	var seq int64
	err := idb.NewSelect().Model((*tenantUserRow)(nil)).ColumnExpr("COALESCE(MAX(added_seq), 0) + 1").
		Where("tenant = ?", tenant).Scan(ctx, &seq)
	if err != nil {
		return 0, fmt.Errorf("db: select tenant user order: %w", err)
	}
	return seq, nil
}

// TenantOwners returns the user ids of the tenant's enabled owners in the
// order they were added to it, as the reference engine lists them.
func TenantOwners(ctx context.Context, idb bun.IDB, tenant string) ([]string, error) {
	owners := []string{}
	err := idb.NewSelect().Model((*tenantUserRow)(nil)).Column("user_id").
		Where("tenant = ? AND is_owner AND enabled", tenant).
		Order("added_seq", "user_id").Scan(ctx, &owners)
	if err != nil {
		return nil, fmt.Errorf("db: select tenant owners: %w", err)
	}
	return owners, nil
}

func toUserRow(u TenantUser) tenantUserRow {
	return tenantUserRow{Tenant: u.Tenant, UserID: u.UserID, Name: u.Name, Email: u.Email, IsOwner: u.IsOwner, Enabled: u.Enabled}
}

// joinRoles attaches roles to their users; both inputs may be in any order.
func joinRoles(rows []tenantUserRow, roles []tenantUserRoleRow) []TenantUser {
	type key struct{ tenant, user string }
	byUser := make(map[key][]string, len(rows))
	for _, r := range roles {
		k := key{r.Tenant, r.UserID}
		byUser[k] = append(byUser[k], r.Role)
	}
	users := make([]TenantUser, len(rows))
	for i, r := range rows {
		users[i] = newTenantUser(r, byUser[key{r.Tenant, r.UserID}])
	}
	return users
}

// newTenantUser is the account of row with roles (sorted here; none is an
// empty list).
func newTenantUser(r tenantUserRow, roles []string) TenantUser {
	sort.Strings(roles)
	if roles == nil {
		roles = []string{}
	}
	return TenantUser{Tenant: r.Tenant, UserID: r.UserID, Name: r.Name, Email: r.Email, Roles: roles, IsOwner: r.IsOwner, Enabled: r.Enabled}
}

// UsersTenants returns, for each of userIDs registered anywhere, the
// tenants it has an account in.
func UsersTenants(ctx context.Context, idb bun.IDB, userIDs []string) (map[string][]string, error) {
	out := make(map[string][]string)
	if len(userIDs) == 0 {
		return out, nil
	}
	var rows []tenantUserRow
	if err := idb.NewSelect().Model(&rows).Column("tenant", "user_id").Where("user_id IN (?)", bun.List(userIDs)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("db: select users' tenants: %w", err)
	}
	for _, r := range rows {
		out[r.UserID] = append(out[r.UserID], r.Tenant)
	}
	return out, nil
}

// UsersTenantRoles returns, for those of userIDs with an enabled account
// in tenant, the roles of that account (sorted; an empty, non-nil slice
// for an account without roles).
func UsersTenantRoles(ctx context.Context, idb bun.IDB, tenant string, userIDs []string) (map[string][]string, error) {
	out := make(map[string][]string)
	if len(userIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		UserID string         `bun:"user_id"`
		Role   sql.NullString `bun:"role"`
	}
	err := idb.NewSelect().TableExpr("tenant_users AS u").ColumnExpr("u.user_id, r.role").
		Join("LEFT JOIN tenant_user_roles AS r ON r.tenant = u.tenant AND r.user_id = u.user_id").
		Where("u.tenant = ? AND u.enabled AND u.user_id IN (?)", tenant, bun.List(userIDs)).
		OrderExpr("u.user_id, r.role").Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("db: select users' tenant roles: %w", err)
	}
	for _, r := range rows {
		roles := out[r.UserID]
		if roles == nil {
			roles = []string{}
		}
		if r.Role.Valid {
			roles = append(roles, r.Role.String)
		}
		out[r.UserID] = roles
	}
	return out, nil
}
