package service

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
	"github.com/casegraph/casegraph/engine/cmmn"
)

// Team and Member are a case team and one membership of it.
type (
	Team   = engine.Team
	Member = engine.Member
)

// Member types.
const (
	UserMember = engine.UserMember
	RoleMember = engine.RoleMember
)

// Origins of a user member: registered in the case's tenant, registered in
// another tenant, or known only to the identity provider.
const (
	OriginTenant   = "Tenant"
	OriginPlatform = "Platform"
	OriginIDP      = "IDP"
)

// MemberInput is one membership of a team being set.
type MemberInput struct {
	ID        string
	Type      engine.MemberType // UserMember when empty
	CaseRoles []string
	IsOwner   bool
	// Origin of a user member; empty to have it looked up (Tenant,
	// Platform or IDP). Only configured teams set it.
	Origin string
}

// newTeam validates a team against the case definition and records each
// user member's origin. An empty team makes the creator its only member
// and owner.
func (s *Service) newTeam(ctx context.Context, idb bun.IDB, op string, def *cmmn.Case, tenant string, creator auth.Identity, in []MemberInput) (Team, error) {
	if len(in) == 0 {
		in = []MemberInput{{ID: creator.UserID, Type: UserMember, IsOwner: true}}
	}
	if err := s.checkMembers(op, in); err != nil {
		return Team{}, err
	}
	team := Team{Members: make([]Member, 0, len(in))}
	seen := map[string]bool{}
	var dups, undefined []string
	owners := 0
	for _, m := range in {
		if m.Type == "" {
			m.Type = UserMember
		}
		if m.Type != UserMember && m.Type != RoleMember {
			return Team{}, Ef(op, Invalid, "Member type '%s' is not valid; use user or role", m.Type)
		}
		if strings.TrimSpace(m.ID) == "" {
			if m.Type == RoleMember {
				return Team{}, E(op, Invalid, "The request content was malformed: Case team tenant roles must have a tenantRole")
			}
			return Team{}, E(op, Invalid, "The request content was malformed: Case team users must have a userId")
		}
		key := string(m.Type) + "\x00" + m.ID
		if seen[key] {
			dups = append(dups, "'"+m.ID+"'")
		}
		seen[key] = true
		for _, r := range m.CaseRoles {
			if strings.TrimSpace(r) == "" {
				return Team{}, E(op, Invalid, "An empty role is not permitted")
			}
			if def.Role(r) == nil && !slices.Contains(undefined, r) {
				undefined = append(undefined, r)
			}
		}
		if m.IsOwner {
			owners++
		}
		team.Members = append(team.Members, Member{ID: m.ID, Type: m.Type, CaseRoles: uniqueSorted(m.CaseRoles), IsOwner: m.IsOwner, Origin: m.Origin})
	}
	if len(dups) > 0 {
		return Team{}, Ef(op, Invalid, "The request content was malformed: Case team contains duplicate user entries: [%s]", strings.Join(dups, ", "))
	}
	if len(undefined) > 0 {
		return Team{}, Ef(op, Invalid, "The following role(s) are not defined in the case: %s", strings.Join(undefined, ", "))
	}
	if owners == 0 {
		return Team{}, E(op, Invalid, "The case team needs to have at least one owner")
	}
	if err := s.setOrigins(ctx, idb, tenant, team.Members); err != nil {
		return Team{}, wrap(op, err)
	}
	return team, nil
}

// setOrigins records where each user member comes from.
func (s *Service) setOrigins(ctx context.Context, idb bun.IDB, tenant string, members []Member) error {
	var ids []string
	for _, m := range members {
		if m.Type == UserMember && m.Origin == "" {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	tenants, err := db.UsersTenants(ctx, idb, ids)
	if err != nil {
		return err
	}
	for i, m := range members {
		if m.Type != UserMember || m.Origin != "" {
			continue
		}
		switch ts := tenants[m.ID]; {
		case slices.Contains(ts, tenant):
			members[i].Origin = OriginTenant
		case len(ts) > 0:
			members[i].Origin = OriginPlatform
		default:
			members[i].Origin = OriginIDP
		}
	}
	return nil
}

// actorOf resolves the caller in a team: its case roles are the union of
// every matching membership (its user membership, and the memberships of
// the tenant roles it holds in the case's tenant); it is an owner when any
// of them is. ok is false for a caller who is not in the team.
func actorOf(who auth.Identity, team Team, tenantRoles []string) (engine.Actor, bool) {
	a := engine.Actor{UserID: who.UserID}
	member := false
	roles := map[string]bool{}
	for _, m := range team.Members {
		match := (m.Type == UserMember && m.ID == who.UserID) || (m.Type == RoleMember && slices.Contains(tenantRoles, m.ID))
		if !match {
			continue
		}
		member = true
		a.IsOwner = a.IsOwner || m.IsOwner
		for _, r := range m.CaseRoles {
			roles[r] = true
		}
	}
	for r := range roles {
		a.Roles = append(a.Roles, r)
	}
	sort.Strings(a.Roles)
	return a, member
}

// MemberType tells a user member from a tenant-role member.
type MemberType = engine.MemberType
