package engine

import (
	"slices"
	"sort"
)

// Caller is whoever runs a command, as service knows it: the user, its
// roles in the case's tenant and its consent groups there.
type Caller struct {
	UserID      string
	TenantRoles []string
	Groups      []GroupMembership
}

// GroupMembership is the caller's place in one consent group.
type GroupMembership struct {
	GroupID string
	Roles   []string
	IsOwner bool
}

// Actor resolves the caller in the team (reference §2.4): its case roles
// are the union of every matching membership (its user membership, the
// tenant roles it holds, and each mapping of its consent groups it falls
// under); it is an owner when any of them is. ok is false for a caller who
// is not in the team.
func (t Team) Actor(c Caller) (a Actor, ok bool) {
	a = Actor{UserID: c.UserID}
	roles := map[string]bool{}
	grant := func(owner bool, caseRoles []string) {
		ok = true
		a.IsOwner = a.IsOwner || owner
		for _, r := range caseRoles {
			roles[r] = true
		}
	}
	for _, m := range t.Members {
		switch m.Type {
		case UserMember:
			if m.ID == c.UserID {
				grant(m.IsOwner, m.CaseRoles)
			}
		case RoleMember:
			if slices.Contains(c.TenantRoles, m.ID) {
				grant(m.IsOwner, m.CaseRoles)
			}
		case GroupMember:
			i := slices.IndexFunc(c.Groups, func(g GroupMembership) bool { return g.GroupID == m.ID })
			if i < 0 {
				continue
			}
			for _, mp := range m.Mappings {
				if g := c.Groups[i]; g.IsOwner || mp.GroupRole == "" || slices.Contains(g.Roles, mp.GroupRole) {
					grant(mp.IsOwner, mp.CaseRoles)
				}
			}
		}
	}
	for r := range roles {
		a.Roles = append(a.Roles, r)
	}
	sort.Strings(a.Roles)
	a.GroupOnly = t.GroupOnlyRoles()
	return a, ok
}

// GroupOnlyRoles are the case roles that consent groups map and that no
// tenant user nor tenant role of the team holds besides: case owners do
// not manage them (reference §2.4, CurrentMember.isRoleManager).
func (t Team) GroupOnlyRoles() []string {
	var out []string
	for _, m := range t.Members {
		if m.Type != GroupMember {
			continue
		}
		for _, r := range m.CaseRoles {
			if !slices.Contains(out, r) && !t.heldOutsideGroups(r) {
				out = append(out, r)
			}
		}
	}
	sort.Strings(out)
	return out
}

// heldOutsideGroups reports whether a tenant user or a tenant role of the
// team holds role. Users from elsewhere (Platform, IDP) do not count.
func (t Team) heldOutsideGroups(role string) bool {
	return slices.ContainsFunc(t.Members, func(m Member) bool {
		tenantUser := m.Type == UserMember && (m.Origin == "" || m.Origin == "Tenant")
		return (tenantUser || m.Type == RoleMember) && slices.Contains(m.CaseRoles, role)
	})
}
