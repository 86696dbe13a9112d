package service

import (
	"context"
	"errors"
	"strings"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
)

const msgOnlyPlatformOwners = "Only platform owners can access this route"

// CreateTenant creates a tenant with its users. Platform owners only. The
// users need at least one enabled owner; after creation the platform owners
// have no rights in the tenant unless they are among its users.
func (s *Service) CreateTenant(ctx context.Context, who auth.Identity, name string, users []UserInput) (Tenant, LastModified, error) {
	const op = "service.CreateTenant"
	if !s.isPlatformOwner(who.UserID) {
		return Tenant{}, LastModified{}, E(op, NotAllowed, msgOnlyPlatformOwners)
	}
	name = strings.TrimSpace(name)
	if err := s.checkIdentifier(op, "tenant name", name); err != nil {
		return Tenant{}, LastModified{}, err
	}
	if err := validActorID(name); err != nil {
		return Tenant{}, LastModified{}, Ef(op, Invalid, "Invalid tenant name '%s': %v", name, err)
	}
	list, err := s.newTenantUsers(op, users)
	if err != nil {
		return Tenant{}, LastModified{}, err
	}
	now := s.now()
	t := Tenant{Name: name, Enabled: true, CreatedAt: now, CreatedBy: who.UserID, LastModified: now, ModifiedBy: who.UserID, Version: 1}
	err = s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
		// One id space for tenants, cases and consent groups, as the
		// reference engine's actors have.
		err := db.CheckIDFree(ctx, tx, name)
		if err == nil {
			err = db.CreateTenant(ctx, tx, t, list)
		}
		if errors.Is(err, db.ErrExists) {
			// The reference engine's words, plus what it logs.
			return E(op, Invalid, "Failure while handling message CreateTenant. Check the server logs for more details. Tenant already exists")
		}
		return err
	})
	if err != nil {
		return Tenant{}, LastModified{}, err
	}
	return t, LastModified{At: now, ID: name}, nil
}

// SetTenantEnabled disables or enables a tenant. Platform owners only.
// Existing cases stay reachable through their teams; new cases and
// definitions in a disabled tenant are refused.
func (s *Service) SetTenantEnabled(ctx context.Context, who auth.Identity, name string, enabled bool) (LastModified, error) {
	op, command := "service.DisableTenant", "DisableTenant"
	if enabled {
		op, command = "service.EnableTenant", "EnableTenant"
	}
	if !s.isPlatformOwner(who.UserID) {
		return LastModified{}, E(op, NotAllowed, msgOnlyPlatformOwners)
	}
	var lm LastModified
	err := s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
		t, err := db.GetTenant(ctx, tx, name)
		if errors.Is(err, db.ErrNotFound) {
			return Ef(op, Invalid, "Expected bootstrap command in tenant '%s' instead of %s: the tenant does not exist", name, command)
		}
		if err != nil {
			return err
		}
		lm, err = s.touchTenant(ctx, tx, t, enabled, who)
		return err
	})
	return lm, err
}

// PlatformUser is what the platform knows of a caller.
type PlatformUser struct {
	UserID          string
	IsPlatformOwner bool
	// Accounts are the caller's enabled accounts in enabled tenants.
	Accounts []TenantUser
	// Groups are the caller's consent groups in enabled tenants.
	Groups []UserGroup
}

// Me returns the caller's platform view: its enabled accounts in enabled
// tenants and its consent groups. Any authenticated caller may ask.
func (s *Service) Me(ctx context.Context, who auth.Identity) (PlatformUser, error) {
	const op = "service.Me"
	accounts, err := db.UserAccounts(ctx, s.db, who.UserID)
	if err != nil {
		return PlatformUser{}, wrap(op, err)
	}
	enabled := []TenantUser{}
	for _, a := range accounts {
		if a.Enabled {
			enabled = append(enabled, a)
		}
	}
	groups, err := db.UserGroups(ctx, s.db, who.UserID)
	if err != nil {
		return PlatformUser{}, wrap(op, err)
	}
	return PlatformUser{UserID: who.UserID, IsPlatformOwner: s.isPlatformOwner(who.UserID), Accounts: enabled, Groups: groups}, nil
}
