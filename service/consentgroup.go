package service

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
)

// ConsentGroup is a tenant's named set of users with group roles; its
// owners manage it (reference §1.3).
type ConsentGroup = db.ConsentGroup

// GroupMember is one user of a consent group.
type GroupMember = db.GroupMember

// UserGroup is a user's membership of one consent group.
type UserGroup = db.UserGroup

// GroupMemberInput is a consent group member as a request sets it: absent
// roles are none, absent ownership is false, as in the reference engine's
// ConsentGroupUserFormat.
type GroupMemberInput struct {
	UserID  string
	Roles   []string
	IsOwner bool
}

// Messages of the reference engine for consent group rules.
const (
	msgOnlyTenantOwnersGroups = "Only tenant owners can create consent groups"
	msgGroupNeedsMembers      = "Consent group must have members"
	msgGroupNeedsOwner        = "Consent group must have at least one owner"
	msgGroupUserIDMissing     = "Consent group users must have a userId"
	msgGroupLastOwnerFm       = "Cannot remove group ownership of user %s. There must be at least one group owner."
	msgGroupNotFoundFm        = "A consent group with id '%s' cannot be found."
	msgGroupMemberNotFoundFm  = "A consent group member with user id '%s' cannot be found."
	msgGroupExists            = "Failure while handling message CreateConsentGroup. Check the server logs for more details. Consent group already exists"
)

// groupMember resolves the caller as a member of the group: a caller who
// is not in it gets the very NotFound an unknown id gets.
func (s *Service) groupMember(ctx context.Context, idb bun.IDB, op string, who auth.Identity, id string) (ConsentGroup, GroupMember, error) {
	g, err := db.GetConsentGroup(ctx, idb, id)
	if errors.Is(err, db.ErrNotFound) {
		return ConsentGroup{}, GroupMember{}, Ef(op, NotFound, msgGroupNotFoundFm, id)
	}
	if err != nil {
		return ConsentGroup{}, GroupMember{}, err
	}
	for _, m := range g.Members {
		if m.UserID == who.UserID {
			return g, m, nil
		}
	}
	return ConsentGroup{}, GroupMember{}, Ef(op, NotFound, msgGroupNotFoundFm, id)
}

// groupOwner is groupMember plus the rule that only group owners change a
// group.
func (s *Service) groupOwner(ctx context.Context, idb bun.IDB, op string, who auth.Identity, id string) (ConsentGroup, error) {
	g, m, err := s.groupMember(ctx, idb, op, who, id)
	if err != nil {
		return ConsentGroup{}, err
	}
	if !m.IsOwner {
		return ConsentGroup{}, E(op, NotAllowed, msgNotTenantOwner)
	}
	return g, nil
}

// CreateConsentGroup creates a consent group in tenant with the given id
// (a generated one when empty). Tenant owners only: other users of the
// tenant get NotAllowed, callers outside it NotFound. The members need an
// owner; an id in use anywhere is Invalid.
func (s *Service) CreateConsentGroup(ctx context.Context, who auth.Identity, tenant, id string, members []GroupMemberInput) (ConsentGroup, LastModified, error) {
	const op = "service.CreateConsentGroup"
	id = strings.TrimSpace(id)
	if id == "" {
		id = strings.ReplaceAll(newUUID(), "-", "_")
	}
	if err := s.checkIdentifier(op, "id", id); err != nil {
		return ConsentGroup{}, LastModified{}, err
	}
	if err := validActorID(id); err != nil {
		return ConsentGroup{}, LastModified{}, Ef(op, Invalid, "Invalid consent group id '%s': %v", id, err)
	}
	list, err := s.newGroupMembers(op, members)
	if err != nil {
		return ConsentGroup{}, LastModified{}, err
	}
	now := s.now()
	g := ConsentGroup{ID: id, Tenant: tenant, LastModified: now, ModifiedBy: who.UserID, Version: 1, Members: list}
	err = s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
		_, u, err := s.tenantMember(ctx, tx, op, who, tenant)
		if err != nil {
			return err
		}
		if !u.IsOwner {
			return E(op, NotAllowed, msgOnlyTenantOwnersGroups)
		}
		// One id space for consent groups, cases and tenants, as the
		// reference engine's actors have.
		err = db.CheckIDFree(ctx, tx, id)
		if err == nil {
			err = db.CreateConsentGroup(ctx, tx, g)
		}
		if errors.Is(err, db.ErrExists) {
			return E(op, Invalid, msgGroupExists)
		}
		return err
	})
	if err != nil {
		return ConsentGroup{}, LastModified{}, err
	}
	return g, LastModified{At: now, ID: id}, nil
}

// GetConsentGroup returns a group the caller is a member of; any other
// group is NotFound.
func (s *Service) GetConsentGroup(ctx context.Context, who auth.Identity, id string) (ConsentGroup, error) {
	g, _, err := s.groupMember(ctx, s.db, "service.GetConsentGroup", who, id)
	return g, wrap("service.GetConsentGroup", err)
}

// GetConsentGroupMember returns one member of a group the caller is a
// member of; an unknown member is NotFound with its own message.
func (s *Service) GetConsentGroupMember(ctx context.Context, who auth.Identity, id, userID string) (GroupMember, error) {
	const op = "service.GetConsentGroupMember"
	g, _, err := s.groupMember(ctx, s.db, op, who, id)
	if err != nil {
		return GroupMember{}, wrap(op, err)
	}
	for _, m := range g.Members {
		if m.UserID == userID {
			return m, nil
		}
	}
	return GroupMember{}, Ef(op, NotFound, msgGroupMemberNotFoundFm, userID)
}

// ReplaceConsentGroup makes members the group's whole member list. Group
// owners only; the list needs an owner.
func (s *Service) ReplaceConsentGroup(ctx context.Context, who auth.Identity, id string, members []GroupMemberInput) (ConsentGroup, LastModified, error) {
	const op = "service.ReplaceConsentGroup"
	list, err := s.newGroupMembers(op, members)
	if err != nil {
		return ConsentGroup{}, LastModified{}, err
	}
	return s.changeGroup(ctx, op, who, id, func(ctx context.Context, tx bun.Tx, _ ConsentGroup) error {
		return db.ReplaceGroupMembers(ctx, tx, id, list)
	})
}

// SetConsentGroupMember adds a member to the group or replaces its roles
// and ownership. Group owners only; the group must keep an owner.
func (s *Service) SetConsentGroupMember(ctx context.Context, who auth.Identity, id string, in GroupMemberInput) (ConsentGroup, LastModified, error) {
	const op = "service.SetConsentGroupMember"
	m, err := s.checkGroupMember(op, in)
	if err != nil {
		return ConsentGroup{}, LastModified{}, err
	}
	return s.changeGroup(ctx, op, who, id, func(ctx context.Context, tx bun.Tx, g ConsentGroup) error {
		if !m.IsOwner && !hasOtherOwner(g.Members, m.UserID) {
			return Ef(op, Invalid, msgGroupLastOwnerFm, m.UserID)
		}
		return db.UpsertGroupMember(ctx, tx, id, m)
	})
}

// RemoveConsentGroupMember removes a member from the group; an unknown
// member is not an error. Group owners only; the group must keep an owner,
// so its last member cannot go either.
func (s *Service) RemoveConsentGroupMember(ctx context.Context, who auth.Identity, id, userID string) (ConsentGroup, LastModified, error) {
	const op = "service.RemoveConsentGroupMember"
	return s.changeGroup(ctx, op, who, id, func(ctx context.Context, tx bun.Tx, g ConsentGroup) error {
		if !hasOtherOwner(g.Members, userID) {
			return Ef(op, Invalid, msgGroupLastOwnerFm, userID)
		}
		return db.RemoveGroupMember(ctx, tx, id, userID)
	})
}

// changeGroup runs change on a group the caller owns, in one transaction
// that also bumps the group's version, and returns the group as the change
// left it (the caller may have left it).
func (s *Service) changeGroup(ctx context.Context, op string, who auth.Identity, id string,
	change func(ctx context.Context, tx bun.Tx, g ConsentGroup) error) (ConsentGroup, LastModified, error) {
	var (
		lm    LastModified
		after ConsentGroup
	)
	err := s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
		g, err := s.groupOwner(ctx, tx, op, who, id)
		if err != nil {
			return err
		}
		// The version moves first: a command racing on the same group
		// then waits on this row and fails the version check (and is run
		// again), instead of colliding on a member row it also writes.
		touched, err := db.TouchConsentGroup(ctx, tx, g, who.UserID, s.now())
		if err != nil {
			return err
		}
		if err := change(ctx, tx, g); err != nil {
			return err
		}
		lm = LastModified{At: touched.LastModified, ID: g.ID}
		after, err = db.GetConsentGroup(ctx, tx, id)
		return err
	})
	return after, lm, err
}

// newGroupMembers validates a complete member list (creation or
// replacement).
func (s *Service) newGroupMembers(op string, in []GroupMemberInput) ([]GroupMember, error) {
	if len(in) == 0 {
		return nil, E(op, Invalid, msgGroupNeedsMembers)
	}
	if err := checkCount(op, "members", len(in), s.limits.TenantUsers); err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(in))
	var dups []string
	out := make([]GroupMember, 0, len(in))
	owner := false
	for _, u := range in {
		m, err := s.checkGroupMember(op, u)
		if err != nil {
			return nil, err
		}
		if seen[m.UserID] {
			dups = append(dups, "'"+m.UserID+"'")
		}
		seen[m.UserID] = true
		owner = owner || m.IsOwner
		out = append(out, m)
	}
	if len(dups) > 0 {
		return nil, Ef(op, Invalid, "Consent group contains duplicate user entries: [%s]", strings.Join(dups, ", "))
	}
	if !owner {
		return nil, E(op, Invalid, msgGroupNeedsOwner)
	}
	return out, nil
}

// checkGroupMember checks one member against the rules and the limits.
func (s *Service) checkGroupMember(op string, in GroupMemberInput) (GroupMember, error) {
	if strings.TrimSpace(in.UserID) == "" {
		return GroupMember{}, E(op, Invalid, msgGroupUserIDMissing)
	}
	if err := s.checkIdentifier(op, "userId", in.UserID); err != nil {
		return GroupMember{}, err
	}
	if err := checkCount(op, fmt.Sprintf("roles of user '%s'", in.UserID), len(in.Roles), s.limits.RolesPerUser); err != nil {
		return GroupMember{}, err
	}
	for _, r := range in.Roles {
		if strings.TrimSpace(r) == "" {
			return GroupMember{}, Ef(op, Invalid, "User '%s' has an empty role; role names cannot be empty", in.UserID)
		}
		if err := s.checkIdentifier(op, "role", r); err != nil {
			return GroupMember{}, err
		}
	}
	return GroupMember{UserID: in.UserID, IsOwner: in.IsOwner, Roles: uniqueSorted(in.Roles)}, nil
}

// hasOtherOwner reports whether a member other than userID owns the group.
func hasOtherOwner(members []GroupMember, userID string) bool {
	for _, m := range members {
		if m.IsOwner && m.UserID != userID {
			return true
		}
	}
	return false
}

// MemberGroups returns the consent groups among ids that the caller is a
// member of, by id; the others are absent, exactly like unknown ids.
func (s *Service) MemberGroups(ctx context.Context, who auth.Identity, ids []string) (map[string]ConsentGroup, error) {
	groups, err := db.MemberGroups(ctx, s.db, who.UserID, ids)
	return groups, wrap("service.MemberGroups", err)
}
