package service

import (
	"context"
	"slices"
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

// GroupMapping is one mapping of a consent group in a case team.
type GroupMapping = engine.GroupMapping

// Member types. (GroupMember names a consent group's own member.)
const (
	UserMember      = engine.UserMember
	RoleMember      = engine.RoleMember
	GroupTeamMember = engine.GroupMember
)

// Messages of the reference engine for consent groups in case teams.
const (
	msgTeamGroupNotFoundFm = "Cannot find a consent group with id '%s'"
	msgTeamGroupNoMappings = "Case team groups must have one or more mappings defined"
	msgTeamGroupNoID       = "The request content was malformed: Case team groups must have a groupId"
	msgTeamGroupRolesFm    = "ConsentGroup maps to invalid case roles: %s"
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
	// Mappings of a consent group member (Type GroupTeamMember); its
	// CaseRoles and IsOwner are unused.
	Mappings []GroupMapping
}

// owner reports whether the membership makes case owners.
func (m MemberInput) owner() bool {
	if m.Type == GroupTeamMember {
		return slices.ContainsFunc(m.Mappings, func(mp GroupMapping) bool { return mp.IsOwner })
	}
	return m.IsOwner
}

// newTeam validates a team against the case definition and records each
// user member's origin. An empty team makes the creator its only member
// and owner.
//
// creatorInTenant says the creator has an account in the tenant (start
// case has just read it; a caller without one may start cases too): a
// member who is the creator then needs no lookup of its origin.
func (s *Service) newTeam(ctx context.Context, idb bun.IDB, op string, def *cmmn.Case, tenant string, creator auth.Identity, creatorInTenant bool, in []MemberInput) (Team, error) {
	if len(in) == 0 {
		in = []MemberInput{{ID: creator.UserID, Type: UserMember, IsOwner: true}}
	}
	if err := s.checkMembers(op, in); err != nil {
		return Team{}, err
	}
	if err := checkGroups(ctx, idb, op, def, tenant, in); err != nil {
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
		if m.Type != UserMember && m.Type != RoleMember && m.Type != GroupTeamMember {
			return Team{}, Ef(op, Invalid, "Member type '%s' is not valid; use user or role", m.Type)
		}
		if m.Type == GroupTeamMember {
			key := string(m.Type) + "\x00" + m.ID
			if seen[key] {
				dups = append(dups, "'"+m.ID+"'")
			}
			seen[key] = true
			if m.owner() {
				owners++
			}
			team.Members = append(team.Members, NewGroupMember(m.ID, m.Mappings))
			continue
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
		origin := m.Origin
		if origin == "" && creatorInTenant && m.Type == UserMember && m.ID == creator.UserID {
			origin = OriginTenant
		}
		team.Members = append(team.Members, Member{ID: m.ID, Type: m.Type, CaseRoles: uniqueSorted(m.CaseRoles), IsOwner: m.IsOwner, Origin: origin})
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

// actorOf resolves the caller in a team (engine.Team.Actor) from its
// tenant roles and consent groups in the case's tenant. The roles it holds
// in those groups count as tenant roles too (reference 1.1.30). ok is
// false for a caller who is not in the team.
func actorOf(who auth.Identity, team Team, tenantRoles []string, groups []UserGroup) (engine.Actor, bool) {
	c := engine.Caller{UserID: who.UserID, TenantRoles: slices.Clone(tenantRoles)}
	for _, g := range groups {
		c.Groups = append(c.Groups, engine.GroupMembership{GroupID: g.GroupID, Roles: g.Roles, IsOwner: g.IsOwner})
		c.TenantRoles = append(c.TenantRoles, g.Roles...)
	}
	return team.Actor(c)
}

// needsGroups reports whether any of teams has a consent group member or
// a tenant-role member (which group roles match too): only then are the
// caller's groups worth a query.
func needsGroups(teams ...Team) bool {
	for _, t := range teams {
		if slices.ContainsFunc(t.Members, func(m Member) bool { return m.Type == GroupTeamMember || m.Type == RoleMember }) {
			return true
		}
	}
	return false
}

// callerGroups returns the caller's consent groups by tenant (tenant ""
// for all tenants), or none without a query when no team needs them.
func callerGroups(ctx context.Context, idb bun.IDB, who auth.Identity, tenant string, teams ...Team) (map[string][]UserGroup, error) {
	if !needsGroups(teams...) {
		return nil, nil
	}
	return db.CallerGroups(ctx, idb, who.UserID, tenant)
}

// normMappings sorts each mapping's case roles and drops repeats.
func normMappings(in []GroupMapping) []GroupMapping {
	out := make([]GroupMapping, len(in))
	for i, mp := range in {
		mp.CaseRoles = uniqueSorted(mp.CaseRoles)
		out[i] = mp
	}
	return out
}

// listGroups is callerGroups for the cases of a list: one query, only
// when some of their teams has a group.
func (s *Service) listGroups(ctx context.Context, who auth.Identity, loaded []db.LoadedCase) (map[string][]UserGroup, error) {
	teams := make([]Team, len(loaded))
	for i, lc := range loaded {
		if lc.State != nil {
			teams[i] = lc.State.Team
		}
	}
	return callerGroups(ctx, s.db, who, "", teams...)
}

// loadedGroups is listGroups for cases by id.
func (s *Service) loadedGroups(ctx context.Context, who auth.Identity, loaded map[string]db.LoadedCase) (map[string][]UserGroup, error) {
	list := make([]db.LoadedCase, 0, len(loaded))
	for _, lc := range loaded {
		list = append(list, lc)
	}
	return s.listGroups(ctx, who, list)
}

// checkGroups checks the consent group members of a team being set: each
// names a group of the case's tenant and has mappings to case roles of
// the definition.
func checkGroups(ctx context.Context, idb bun.IDB, op string, def *cmmn.Case, tenant string, in []MemberInput) error {
	var ids []string
	for _, m := range in {
		if m.Type != GroupTeamMember {
			continue
		}
		if strings.TrimSpace(m.ID) == "" {
			return E(op, Invalid, msgTeamGroupNoID)
		}
		ids = append(ids, m.ID)
	}
	if len(ids) == 0 {
		return nil
	}
	tenants, err := db.ConsentGroupTenants(ctx, idb, ids)
	if err != nil {
		return wrap(op, err)
	}
	for _, id := range ids {
		if tenants[id] != tenant {
			return Ef(op, NotFound, msgTeamGroupNotFoundFm, id)
		}
	}
	// As in the reference, the route finds the groups before the team
	// itself is validated.
	var invalid []string
	for _, m := range in {
		if m.Type == GroupTeamMember && len(m.Mappings) == 0 {
			return E(op, Invalid, msgTeamGroupNoMappings)
		}
		for _, mp := range m.Mappings {
			for _, r := range mp.CaseRoles {
				if strings.TrimSpace(r) == "" {
					return E(op, Invalid, "An empty role is not permitted")
				}
				if def.Role(r) == nil && !slices.Contains(invalid, r) {
					invalid = append(invalid, r)
				}
			}
		}
	}
	if len(invalid) > 0 {
		return Ef(op, Invalid, msgTeamGroupRolesFm, strings.Join(invalid, ", "))
	}
	return nil
}

// MemberType tells a user member from a tenant-role member.
type MemberType = engine.MemberType
