package service

import (
	"context"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
)

// MaxDevAccounts bounds the accounts development sign-in lists.
const MaxDevAccounts = 200

// DevSignInEnabled reports whether development sign-in is configured.
func (s *Service) DevSignInEnabled() bool { return s.devSignIn }

// DevAccounts lists, for development sign-in, the enabled accounts of
// enabled tenants in tenant and user order, at most MaxDevAccounts; more
// says some were left out. There is no caller: in development mode anyone
// who reaches the server may sign in as any of these users. Off, it is
// NotFound, so a production server never answers it.
func (s *Service) DevAccounts(ctx context.Context) (accounts []TenantUser, more bool, err error) {
	const op = "service.DevAccounts"
	if !s.devSignIn {
		return nil, false, E(op, NotFound, "Development sign-in is not enabled")
	}
	accounts, err = db.EnabledAccounts(ctx, s.db, MaxDevAccounts+1)
	if err != nil {
		return nil, false, wrap(op, err)
	}
	if len(accounts) > MaxDevAccounts {
		return accounts[:MaxDevAccounts], true, nil
	}
	return accounts, false, nil
}

// DevAccount checks that userID has an enabled account in the enabled
// tenant, before development sign-in mints a token for it: the picker
// signs in as users that exist and no one else (`casegraph token` remains
// the way to a token for any id). Off, it is NotFound.
func (s *Service) DevAccount(ctx context.Context, tenant, userID string) (TenantUser, error) {
	const op = "service.DevAccount"
	if !s.devSignIn {
		return TenantUser{}, E(op, NotFound, "Development sign-in is not enabled")
	}
	if err := s.checkIdentifier(op, "tenant", tenant); err != nil {
		return TenantUser{}, err
	}
	if err := s.checkIdentifier(op, "userId", userID); err != nil {
		return TenantUser{}, err
	}
	if tenant == "" || userID == "" {
		return TenantUser{}, E(op, Invalid, "Development sign-in needs a tenant and a userId")
	}
	_, u, err := tenantAccount(ctx, s.db, op, auth.Identity{UserID: userID}, tenant,
		Ef(op, NotFound, "Tenant '%s' does not exist, or user '%s' is not registered in it", tenant, userID))
	return u, err
}
