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

// Messages of the reference engine for case team rules.
const (
	msgOnlyOwners      = "Only case team owners can perform this action"
	msgLastOwner       = "Cannot remove the last case owner"
	msgLastOwnerLegacy = "Cnanot remove last owner" // sic: the deprecated PUT /caseteam says so
	msgTeamEmpty       = "The new case team cannot be empty"
	msgTeamNoOwner     = "The new case team must have owners"
)

// TeamView is a case team as both doors show it: its members by kind,
// the definition's case roles and the roles nobody holds. It is the one
// place that computes the unassigned roles.
type TeamView struct {
	CaseID      string
	Team        Team
	Users       []Member // user members
	Groups      []Member // consent group members, with their mappings
	TenantRoles []Member // tenant-role members
	Roles       []string // the definition's case roles
	Unset       []string // roles no member holds (through any mapping)
}

// CaseTeam returns a case's team to a member of it.
func (s *Service) CaseTeam(ctx context.Context, who auth.Identity, caseID string) (TeamView, error) {
	v, err := s.GetCase(ctx, who, caseID)
	if err != nil {
		return TeamView{}, err
	}
	return v.TeamView(), nil
}

// NewGroupMember is the team member for consent group id with mappings.
func NewGroupMember(id string, mappings []GroupMapping) Member {
	return engine.NewGroupMember(id, normMappings(mappings))
}

// TeamView is the team of the case viewed.
func (v CaseView) TeamView() TeamView {
	return NewTeamView(v.Record.ID, v.State.Team, v.CaseRoles)
}

// NewTeamView views team of case caseID, whose definition has roles.
func NewTeamView(caseID string, team Team, roles []string) TeamView {
	v := TeamView{CaseID: caseID, Team: team, Users: []Member{}, Groups: []Member{}, TenantRoles: []Member{}, Roles: roles, Unset: []string{}}
	held := map[string]bool{}
	for _, m := range team.Members {
		// A group member's CaseRoles are every role its mappings grant.
		for _, r := range m.CaseRoles {
			held[r] = true
		}
		switch m.Type {
		case RoleMember:
			v.TenantRoles = append(v.TenantRoles, m)
		case GroupTeamMember:
			v.Groups = append(v.Groups, m)
		default:
			v.Users = append(v.Users, m)
		}
	}
	for _, r := range roles {
		if !held[r] {
			v.Unset = append(v.Unset, r)
		}
	}
	return v
}

// SetCaseTeam replaces a case's whole team. Case owners only.
func (s *Service) SetCaseTeam(ctx context.Context, who auth.Identity, caseID string, members []MemberInput) (LastModified, error) {
	who = s.commandIdentity(who)
	const op = "service.SetCaseTeam"
	return s.teamCommand(ctx, op, who, caseID, func(ca caseAccess, def teamDefinition) (string, any, error) {
		team, err := s.replacementTeam(ctx, def.tx, op, def.c, ca.rec.Tenant, who, members)
		if err != nil {
			return "", nil, err
		}
		ca.c.Team = team
		return "CaseTeamSet", map[string]any{"team": team}, nil
	})
}

// MemberUpdate changes one membership: IsOwner, when set, sets ownership;
// CaseRoles are added; RemoveRoles are removed.
type MemberUpdate struct {
	ID          string
	Type        engine.MemberType
	IsOwner     *bool
	CaseRoles   []string
	RemoveRoles []string
	// Replace makes CaseRoles the member's roles instead of adding them
	// (the typed /caseteam/users and /tenant-roles routes replace).
	Replace bool
	// Legacy selects the deprecated route's last-owner message.
	Legacy bool
}

// UpsertCaseTeamMembers adds or changes memberships. Case owners only. The
// team must keep an owner.
func (s *Service) UpsertCaseTeamMembers(ctx context.Context, who auth.Identity, caseID string, updates []MemberUpdate) (LastModified, error) {
	who = s.commandIdentity(who)
	const op = "service.UpsertCaseTeamMembers"
	return s.teamCommand(ctx, op, who, caseID, func(ca caseAccess, def teamDefinition) (string, any, error) {
		if len(updates) == 0 {
			return "", nil, E(op, Invalid, "There are no members to add or change")
		}
		inputs := make([]MemberInput, len(updates))
		for i, u := range updates {
			inputs[i] = MemberInput{ID: u.ID, Type: u.Type, CaseRoles: append(u.CaseRoles, u.RemoveRoles...)}
		}
		if err := s.checkMembers(op, inputs); err != nil {
			return "", nil, err
		}
		if err := checkCount(op, "the case team", len(ca.c.Team.Members)+len(updates), s.limits.TeamMembers); err != nil {
			return "", nil, err
		}
		team := Team{Members: slices.Clone(ca.c.Team.Members)}
		legacy := false
		var added []Member
		for _, u := range updates {
			legacy = legacy || u.Legacy
			if u.Type == "" {
				u.Type = UserMember
			}
			if u.Type == GroupTeamMember {
				return "", nil, E(op, Invalid, "A consent group member is set whole, with its mappings: use setCaseTeamGroup")
			}
			if strings.TrimSpace(u.ID) == "" {
				if u.Type == RoleMember {
					return "", nil, E(op, Invalid, "The request content was malformed: Case team tenant roles must have a tenantRole")
				}
				return "", nil, E(op, Invalid, "The request content was malformed: Case team users must have a userId")
			}
			if err := checkRoles(op, def, append(slices.Clone(u.CaseRoles), u.RemoveRoles...)); err != nil {
				return "", nil, err
			}
			i := slices.IndexFunc(team.Members, func(m Member) bool { return m.ID == u.ID && m.Type == u.Type })
			if i < 0 {
				team.Members = append(team.Members, Member{ID: u.ID, Type: u.Type})
				i = len(team.Members) - 1
				added = append(added, team.Members[i])
			}
			m := &team.Members[i]
			if u.Replace {
				m.CaseRoles = nil
			}
			roles := append(slices.Clone(m.CaseRoles), u.CaseRoles...)
			roles = slices.DeleteFunc(roles, func(r string) bool { return slices.Contains(u.RemoveRoles, r) })
			m.CaseRoles = uniqueSorted(roles)
			if u.IsOwner != nil {
				m.IsOwner = *u.IsOwner
			}
		}
		if !hasOwner(team) {
			if legacy {
				return "", nil, E(op, Invalid, msgLastOwnerLegacy)
			}
			return "", nil, E(op, Invalid, msgLastOwner)
		}
		if err := s.setOrigins(ctx, def.tx, ca.rec.Tenant, team.Members); err != nil {
			return "", nil, err
		}
		ca.c.Team = team
		return "CaseTeamMembersChanged", map[string]any{"updates": updates, "added": len(added)}, nil
	})
}

// SetCaseTeamGroup adds consent group groupID to the team, or replaces its
// mappings. Case owners only. The group must be of the case's tenant, its
// mappings must name case roles of the definition, and the team must keep
// an owner.
func (s *Service) SetCaseTeamGroup(ctx context.Context, who auth.Identity, caseID, groupID string, mappings []GroupMapping) (LastModified, error) {
	who = s.commandIdentity(who)
	const op = "service.SetCaseTeamGroup"
	return s.teamCommand(ctx, op, who, caseID, func(ca caseAccess, def teamDefinition) (string, any, error) {
		in := []MemberInput{{ID: groupID, Type: GroupTeamMember, Mappings: mappings}}
		if err := s.checkMembers(op, in); err != nil {
			return "", nil, err
		}
		if err := checkGroups(ctx, def.tx, op, def.c, ca.rec.Tenant, in); err != nil {
			return "", nil, err
		}
		team := Team{Members: slices.Clone(ca.c.Team.Members)}
		m := NewGroupMember(groupID, mappings)
		if i := slices.IndexFunc(team.Members, func(m Member) bool { return m.ID == groupID && m.Type == GroupTeamMember }); i >= 0 {
			team.Members[i] = m
		} else {
			if err := checkCount(op, "the case team", len(team.Members)+1, s.limits.TeamMembers); err != nil {
				return "", nil, err
			}
			team.Members = append(team.Members, m)
		}
		if !hasOwner(team) {
			return "", nil, E(op, Invalid, msgLastOwner)
		}
		ca.c.Team = team
		return "CaseTeamGroupSet", map[string]any{"group": m}, nil
	})
}

// RemoveCaseTeamMember removes a membership. Case owners only. The member
// must be in the team and the team must keep an owner.
func (s *Service) RemoveCaseTeamMember(ctx context.Context, who auth.Identity, caseID, memberID string, typ engine.MemberType) (LastModified, error) {
	who = s.commandIdentity(who)
	const op = "service.RemoveCaseTeamMember"
	if typ == "" {
		typ = UserMember
	}
	return s.teamCommand(ctx, op, who, caseID, func(ca caseAccess, _ teamDefinition) (string, any, error) {
		i := slices.IndexFunc(ca.c.Team.Members, func(m Member) bool { return m.ID == memberID && m.Type == typ })
		if i < 0 {
			// The reference engine names the wrong type for users; its
			// clients match the text.
			return "", nil, Ef(op, Invalid, "The case team does not have a TenantRole with id %s", memberID)
		}
		team := Team{Members: slices.Delete(slices.Clone(ca.c.Team.Members), i, i+1)}
		if !hasOwner(team) {
			return "", nil, E(op, Invalid, msgLastOwner)
		}
		ca.c.Team = team
		return "CaseTeamMemberRemoved", map[string]any{"memberId": memberID, "memberType": typ}, nil
	})
}

// teamDefinition is what a team change checks against: the case
// definition, and where to look users up (the command's transaction, if
// it has one).
type teamDefinition struct {
	c  *cmmn.Case
	tx bun.IDB
}

// teamCommand runs a change of a case's team for a case owner, in one
// transaction: change edits ca.c.Team and returns the event describing
// it.
func (s *Service) teamCommand(ctx context.Context, op string, who auth.Identity, caseID string,
	change func(ca caseAccess, def teamDefinition) (eventType string, payload any, err error)) (LastModified, error) {
	return s.stateCommand(ctx, op, who, caseID, true, change)
}

// stateCommand runs, in one transaction, a change of a case's state that
// is not a CMMN command (its team, its debug flag): change edits ca.c and
// returns the event describing it, which is stored with a CaseModified.
// ownersOnly limits it to case owners; it is always limited to members.
func (s *Service) stateCommand(ctx context.Context, op string, who auth.Identity, caseID string, ownersOnly bool,
	change func(ca caseAccess, def teamDefinition) (eventType string, payload any, err error)) (LastModified, error) {
	return s.caseChange(ctx, op, who, caseID, func(idb bun.IDB, ca caseAccess, def *cmmn.Case, who auth.Identity) (engine.Outcome, error) {
		if ownersOnly && !ca.actor.IsOwner {
			return engine.Outcome{}, E(op, NotAllowed, msgOnlyOwners)
		}
		eventType, payload, err := change(ca, teamDefinition{c: def, tx: idb})
		if err != nil {
			return engine.Outcome{}, err
		}
		now := s.now()
		ca.c.LastModified, ca.c.ModifiedBy = now, who.UserID
		events := []engine.Event{
			{Type: eventType, Payload: payload},
			{Type: "CaseModified", Payload: engine.CaseModified{CaseInstanceID: caseID, State: ca.c.State(), Failures: ca.c.Failures,
				LastModified: now, ModifiedBy: who.UserID}},
		}
		ca.c.Sequence += int64(len(events))
		return engine.Outcome{Events: events}, nil
	})
}

// SetCaseDebug switches a case's debug mode. Any team member may.
func (s *Service) SetCaseDebug(ctx context.Context, who auth.Identity, caseID string, on bool) (LastModified, error) {
	return s.stateCommand(ctx, "service.SetCaseDebug", who, caseID, false, func(ca caseAccess, _ teamDefinition) (string, any, error) {
		ca.c.Debug = on
		if on {
			return "DebugEnabled", map[string]any{"caseInstanceId": caseID}, nil
		}
		return "DebugDisabled", map[string]any{"caseInstanceId": caseID}, nil
	})
}

// checkRoles refuses empty and undefined case roles.
func checkRoles(op string, def teamDefinition, roles []string) error {
	var undefined []string
	for _, r := range roles {
		if strings.TrimSpace(r) == "" {
			return E(op, Invalid, "An empty role is not permitted")
		}
		if def.c.Role(r) == nil && !slices.Contains(undefined, r) {
			undefined = append(undefined, r)
		}
	}
	if len(undefined) > 0 {
		return Ef(op, Invalid, "The following role(s) are not defined in the case: %s", strings.Join(undefined, ", "))
	}
	return nil
}

func hasOwner(team Team) bool {
	return slices.ContainsFunc(team.Members, func(m Member) bool { return m.IsOwner })
}

// CaseMemberAccounts returns, per case among caseIDs that the caller is in
// the team of, the tenant accounts of its user members by user id: the
// batch behind the GraphQL member-user loader.
func (s *Service) CaseMemberAccounts(ctx context.Context, who auth.Identity, caseIDs []string) (map[string]map[string]TenantUser, error) {
	accounts, err := db.CaseMemberAccounts(ctx, s.db, who.UserID, caseIDs)
	return accounts, wrap("service.CaseMemberAccounts", err)
}
