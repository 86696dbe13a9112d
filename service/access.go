package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
)

// caseActorOf decides whether the caller, whose account in tenant is acct
// (accountOrNone), may reach a case of tenant with team: as a user member,
// through a role of its enabled account in the tenant, or through a
// mapping of a consent group of the tenant it is in. A team member whose
// account in the tenant is disabled is refused with the reference engine's
// "account disabled" answer (REST 401, GraphQL FORBIDDEN); anyone else who
// is not in the team gets NotFound. The SQL filters (db's
// callerMembership) apply the same rule to every list.
func (s *Service) caseActorOf(ctx context.Context, idb bun.IDB, op string, who auth.Identity, tenant string, team Team,
	notFound error, acct TenantUser) (engine.Actor, error) {
	groups, err := callerGroups(ctx, idb, who, tenant, team)
	if err != nil {
		return engine.Actor{}, wrap(op, err)
	}
	actor, ok := actorOf(who, team, acct.Roles, groups[tenant])
	if !ok {
		return engine.Actor{}, notFound
	}
	if !acct.Enabled {
		return engine.Actor{}, disabledMember(op, who, notFound)
	}
	return actor, nil
}

// disabledError marks the refusal of a team member whose account is
// disabled, keeping the NotFound a stranger would get, so that a door that
// hides instead (GraphQL reads) can answer that.
type disabledError struct{ notFound error }

func (*disabledError) Error() string { return "team member with a disabled account" }

func disabledMember(op string, who auth.Identity, notFound error) error {
	return &Error{Op: op, Kind: NotAllowed, Msg: fmt.Sprintf(msgDisabledAccountFm, who.UserID), Err: &disabledError{notFound: notFound}}
}

// Hidden turns the refusal of a team member with a disabled account into
// the NotFound a stranger gets: GraphQL reads hide the cases of a tenant
// where the caller is disabled, as its lists do. Other errors pass.
func Hidden(err error) error {
	var d *disabledError
	if errors.As(err, &d) && d.notFound != nil {
		return d.notFound
	}
	return err
}

// hidden answers a lookup the membership SQL found nothing for: when the
// item exists in a case whose team the caller is in with a disabled
// account, the "account disabled" refusal, so that REST answers 401 as the
// reference engine does; otherwise notFound, exactly as for an unknown id.
// caseOf finds the item's case for anyone (db.ErrNotFound when there is
// none).
func (s *Service) hidden(ctx context.Context, op string, who auth.Identity, notFound error,
	caseOf func(ctx context.Context, idb bun.IDB) (string, error)) error {
	caseID, err := caseOf(ctx, s.db)
	if errors.Is(err, db.ErrNotFound) {
		return notFound
	}
	if err != nil {
		return wrap(op, err)
	}
	_, err = s.memberCase(ctx, s.db, op, who, caseID)
	var d *disabledError
	switch {
	case errors.As(err, &d):
		return disabledMember(op, who, notFound)
	case KindOf(err) == Unavailable:
		return err
	}
	return notFound
}

func taskCaseOf(taskID string) func(ctx context.Context, idb bun.IDB) (string, error) {
	return func(ctx context.Context, idb bun.IDB) (string, error) { return db.CaseOfTask(ctx, idb, taskID) }
}

// enabledAccountIn is accountIn that refuses a disabled account; a caller
// without an account there passes (case teams may name anyone).
func enabledAccountIn(ctx context.Context, idb bun.IDB, op string, who auth.Identity, tenant string) (TenantUser, error) {
	acct, err := accountIn(ctx, idb, op, who, tenant)
	if err != nil {
		return TenantUser{}, err
	}
	return enabledAccount(op, who, &acct)
}

// enabledAccount is enabledAccountIn for an account read elsewhere (nil:
// none in the tenant).
func enabledAccount(op string, who auth.Identity, acct *TenantUser) (TenantUser, error) {
	a := accountOrNone(acct)
	if !a.Enabled {
		return TenantUser{}, disabledMember(op, who, nil)
	}
	return a, nil
}

// accountOrNone is what accountIn makes of an account read elsewhere (nil:
// none in the tenant).
func accountOrNone(acct *TenantUser) TenantUser {
	if acct == nil {
		return TenantUser{Enabled: true}
	}
	return *acct
}

// accountIn is the caller's account in tenant; a caller without one
// (case teams may name anyone) counts as enabled, without tenant roles.
func accountIn(ctx context.Context, idb bun.IDB, op string, who auth.Identity, tenant string) (TenantUser, error) {
	acct, err := db.GetTenantUser(ctx, idb, tenant, who.UserID)
	switch {
	case errors.Is(err, db.ErrNotFound):
		return accountOrNone(nil), nil
	case err != nil:
		return TenantUser{}, wrap(op, err)
	}
	return acct, nil
}
