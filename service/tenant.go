package service

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
)

// Tenant is a tenant's registration record.
type Tenant = db.Tenant

// TenantUser is a user's account in a tenant.
type TenantUser = db.TenantUser

// UserInput describes one user of a tenant being created or replaced. A nil
// field takes its default: no roles, not an owner, empty name and email,
// enabled.
type UserInput struct {
	UserID  string
	Roles   []string
	IsOwner *bool
	Name    *string
	Email   *string
	Enabled *bool
}

// Messages of the reference engine for tenant rules.
const (
	msgNeedUsers         = "Setting tenant requires a list of users with at least one owner"
	msgNoActiveOwners    = "Cannot set tenant without active tenant owners"
	msgLastTenantOwner   = "Cannot remove tenant ownership or disable the account. There must be at least one tenant owner."
	msgUserIDMissing     = "Tenant users must have a userId"
	msgNotTenantOwner    = "You do not have the privileges to perform this action"
	msgDisabledAccountFm = "The user account %s has been disabled"
)

// tenantMember resolves the caller as an enabled user of an enabled tenant,
// as the reference engine's tenant routes do: a caller who is not in it (or
// a tenant that does not exist or is disabled) gets NotFound; a disabled
// account gets NotAllowed.
func (s *Service) tenantMember(ctx context.Context, idb bun.IDB, op string, who auth.Identity, tenant string) (Tenant, TenantUser, error) {
	return tenantAccount(ctx, idb, op, who, tenant,
		Ef(op, NotFound, "Tenant '%s' does not exist, or user '%s' is not registered in it", tenant, who.UserID))
}

// tenantAccount is the one check that the caller is an enabled user of
// an enabled tenant. A tenant that does not exist or is disabled, and a
// caller without an account in it, get notFound: whoever is not in a tenant
// learns nothing of it, not even that it exists. The reference engine words
// that answer per route family (tenant routes name the tenant and the user;
// repository routes and StartCase say "An active tenant with id 'T' cannot
// be found."), so the caller passes it. A disabled account gets NotAllowed.
func tenantAccount(ctx context.Context, idb bun.IDB, op string, who auth.Identity, tenant string, notFound error) (Tenant, TenantUser, error) {
	t, err := db.GetTenant(ctx, idb, tenant)
	if errors.Is(err, db.ErrNotFound) || (err == nil && !t.Enabled) {
		return Tenant{}, TenantUser{}, notFound
	}
	if err != nil {
		return Tenant{}, TenantUser{}, wrap(op, err)
	}
	u, err := db.GetTenantUser(ctx, idb, tenant, who.UserID)
	if errors.Is(err, db.ErrNotFound) {
		return Tenant{}, TenantUser{}, notFound
	}
	if err != nil {
		return Tenant{}, TenantUser{}, wrap(op, err)
	}
	if !u.Enabled {
		return Tenant{}, TenantUser{}, Ef(op, NotAllowed, msgDisabledAccountFm, who.UserID)
	}
	return t, u, nil
}

// tenantOwner is tenantMember plus the rule that only enabled owners may
// change a tenant.
func (s *Service) tenantOwner(ctx context.Context, idb bun.IDB, op string, who auth.Identity, tenant string) (Tenant, error) {
	t, u, err := s.tenantMember(ctx, idb, op, who, tenant)
	if err != nil {
		return Tenant{}, err
	}
	if !u.IsOwner {
		return Tenant{}, E(op, NotAllowed, msgNotTenantOwner)
	}
	return t, nil
}

// GetTenant returns a tenant the caller is an enabled user of.
func (s *Service) GetTenant(ctx context.Context, who auth.Identity, tenant string) (Tenant, error) {
	t, _, err := s.tenantMember(ctx, s.db, "service.GetTenant", who, tenant)
	return t, err
}

// TenantOwners returns the user ids of the tenant's enabled owners in the
// order they were added to the tenant. Tenant owners only.
func (s *Service) TenantOwners(ctx context.Context, who auth.Identity, tenant string) ([]string, error) {
	const op = "service.TenantOwners"
	if _, err := s.tenantOwner(ctx, s.db, op, who, tenant); err != nil {
		return nil, err
	}
	owners, err := db.TenantOwners(ctx, s.db, tenant)
	return owners, wrap(op, err)
}

// TenantUsers returns the tenant's accounts that are enabled (enabled true)
// or disabled (enabled false). Any enabled user of the tenant may ask.
func (s *Service) TenantUsers(ctx context.Context, who auth.Identity, tenant string, enabled bool) ([]TenantUser, error) {
	const op = "service.TenantUsers"
	if _, _, err := s.tenantMember(ctx, s.db, op, who, tenant); err != nil {
		return nil, err
	}
	users, err := db.TenantUsers(ctx, s.db, tenant)
	if err != nil {
		return nil, wrap(op, err)
	}
	out := []TenantUser{}
	for _, u := range users {
		if u.Enabled == enabled {
			out = append(out, u)
		}
	}
	return out, nil
}

// ErrAccountDisabled is the cause of the NotFound that TenantUser returns
// for a disabled account; the REST door answers it with its own text.
var ErrAccountDisabled = errors.New("account disabled")

// TenantUser returns one account of the tenant. Any enabled user of the
// tenant may ask. An unknown account is NotFound; a disabled one is
// NotFound wrapping ErrAccountDisabled.
func (s *Service) TenantUser(ctx context.Context, who auth.Identity, tenant, userID string) (TenantUser, error) {
	const op = "service.TenantUser"
	if _, _, err := s.tenantMember(ctx, s.db, op, who, tenant); err != nil {
		return TenantUser{}, err
	}
	u, err := db.GetTenantUser(ctx, s.db, tenant, userID)
	if errors.Is(err, db.ErrNotFound) {
		return TenantUser{}, Ef(op, NotFound, "A user with id '%s' cannot be found.", userID)
	}
	if err != nil {
		return TenantUser{}, wrap(op, err)
	}
	if !u.Enabled {
		return TenantUser{}, &Error{Op: op, Kind: NotFound,
			Msg: "The requested resource could not be found but may be available again in the future.", Err: ErrAccountDisabled}
	}
	return u, nil
}

// SetTenantUser adds a user to the tenant or updates it: fields left nil
// keep their current value (their default for a new user); Roles, when
// given, replace the user's roles. Tenant owners only. The tenant must keep
// an enabled owner.
func (s *Service) SetTenantUser(ctx context.Context, who auth.Identity, tenant string, in UserInput) (TenantUser, LastModified, error) {
	const op = "service.SetTenantUser"
	if err := s.checkUserInput(op, in); err != nil {
		return TenantUser{}, LastModified{}, err
	}
	var (
		result TenantUser
		lm     LastModified
	)
	err := s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
		t, err := s.tenantOwner(ctx, tx, op, who, tenant)
		if err != nil {
			return err
		}
		users, err := db.TenantUsers(ctx, tx, tenant)
		if err != nil {
			return err
		}
		u := TenantUser{Tenant: tenant, UserID: in.UserID, Roles: []string{}, Enabled: true}
		idx := -1
		for i, existing := range users {
			if existing.UserID == in.UserID {
				u, idx = existing, i
			}
		}
		u = applyUserInput(u, in)
		if idx >= 0 {
			users[idx] = u
		} else {
			users = append(users, u)
		}
		if !hasEnabledOwner(users) {
			return E(op, Invalid, msgLastTenantOwner)
		}
		if err := db.UpsertTenantUser(ctx, tx, u); err != nil {
			return err
		}
		result = u
		lm, err = s.touchTenant(ctx, tx, t, t.Enabled, who)
		return err
	})
	return result, lm, err
}

// RemoveTenantUser removes a user from the tenant; an unknown user is not an
// error. Tenant owners only. The tenant must keep an enabled owner.
func (s *Service) RemoveTenantUser(ctx context.Context, who auth.Identity, tenant, userID string) (LastModified, error) {
	const op = "service.RemoveTenantUser"
	var lm LastModified
	err := s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
		t, err := s.tenantOwner(ctx, tx, op, who, tenant)
		if err != nil {
			return err
		}
		users, err := db.TenantUsers(ctx, tx, tenant)
		if err != nil {
			return err
		}
		remaining := users[:0:0]
		for _, u := range users {
			if u.UserID != userID {
				remaining = append(remaining, u)
			}
		}
		if !hasEnabledOwner(remaining) {
			return E(op, Invalid, msgLastTenantOwner)
		}
		if err := db.DeleteTenantUser(ctx, tx, tenant, userID); err != nil {
			return err
		}
		lm, err = s.touchTenant(ctx, tx, t, t.Enabled, who)
		return err
	})
	return lm, err
}

// ReplaceTenantUsers makes users the tenant's whole user list; users not in
// it are removed. Tenant owners only. The list needs an enabled owner.
func (s *Service) ReplaceTenantUsers(ctx context.Context, who auth.Identity, tenant string, users []UserInput) (LastModified, error) {
	const op = "service.ReplaceTenantUsers"
	list, err := s.newTenantUsers(op, users)
	if err != nil {
		return LastModified{}, err
	}
	var lm LastModified
	err = s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
		t, err := s.tenantOwner(ctx, tx, op, who, tenant)
		if err != nil {
			return err
		}
		if err := db.ReplaceTenantUsers(ctx, tx, tenant, list); err != nil {
			return err
		}
		lm, err = s.touchTenant(ctx, tx, t, t.Enabled, who)
		return err
	})
	return lm, err
}

// touchTenant bumps the tenant's version, failing with ErrStaleVersion when
// another command changed it since t was read.
func (s *Service) touchTenant(ctx context.Context, idb bun.IDB, t Tenant, enabled bool, who auth.Identity) (LastModified, error) {
	t, err := db.TouchTenant(ctx, idb, t, enabled, who.UserID, s.now())
	if err != nil {
		return LastModified{}, err
	}
	noteChanged(ctx, Change{Tenant: t.Name})
	return LastModified{At: t.LastModified, ID: t.Name}, nil
}

// newTenantUsers validates a complete user list (tenant creation or
// replacement) and applies the defaults.
func (s *Service) newTenantUsers(op string, in []UserInput) ([]TenantUser, error) {
	if len(in) == 0 {
		return nil, E(op, Invalid, msgNeedUsers)
	}
	if err := checkCount(op, "users", len(in), s.limits.TenantUsers); err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(in))
	var dups []string
	users := make([]TenantUser, 0, len(in))
	for _, u := range in {
		if err := s.checkUserInput(op, u); err != nil {
			return nil, err
		}
		if seen[u.UserID] {
			dups = append(dups, "'"+u.UserID+"'")
		}
		seen[u.UserID] = true
		users = append(users, applyUserInput(TenantUser{UserID: u.UserID, Roles: []string{}, Enabled: true}, u))
	}
	if len(dups) > 0 {
		return nil, Ef(op, Invalid, "Tenant contains duplicate user entries: [%s]", strings.Join(dups, ", "))
	}
	if !hasEnabledOwner(users) {
		return nil, E(op, Invalid, msgNoActiveOwners)
	}
	return users, nil
}

func (s *Service) checkUserInput(op string, u UserInput) error {
	if strings.TrimSpace(u.UserID) == "" {
		return E(op, Invalid, msgUserIDMissing)
	}
	for _, r := range u.Roles {
		if strings.TrimSpace(r) == "" {
			return Ef(op, Invalid, "User '%s' has an empty role; role names cannot be empty", u.UserID)
		}
	}
	return s.checkUser(op, u)
}

func applyUserInput(u TenantUser, in UserInput) TenantUser {
	if in.Roles != nil {
		u.Roles = uniqueSorted(in.Roles)
	}
	if in.IsOwner != nil {
		u.IsOwner = *in.IsOwner
	}
	if in.Name != nil {
		u.Name = *in.Name
	}
	if in.Email != nil {
		u.Email = *in.Email
	}
	if in.Enabled != nil {
		u.Enabled = *in.Enabled
	}
	return u
}

func hasEnabledOwner(users []TenantUser) bool {
	for _, u := range users {
		if u.IsOwner && u.Enabled {
			return true
		}
	}
	return false
}

func uniqueSorted(in []string) []string {
	out := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// validActorID reports whether id may name a tenant or a case: the
// reference engine requires ASCII path elements without separators.
func validActorID(id string) error {
	if id == "" {
		return errors.New("it is empty")
	}
	if len(id) > 255 {
		return errors.New("it is longer than 255 characters")
	}
	for _, r := range id {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune(`/\?#%"'<>`, r) {
			return fmt.Errorf("it contains the character %q", r)
		}
	}
	return nil
}
