package resolvers

import (
	"github.com/casegraph/casegraph/model"
	"github.com/casegraph/casegraph/service"
)

func toConsentGroup(g service.ConsentGroup) *model.ConsentGroup {
	out := &model.ConsentGroup{ID: g.ID, Tenant: g.Tenant, Members: make([]*model.ConsentGroupMember, len(g.Members))}
	for i, m := range g.Members {
		out.Members[i] = &model.ConsentGroupMember{UserID: m.UserID, IsOwner: m.IsOwner, Roles: nonNilRoles(m.Roles)}
	}
	return out
}

func toUserGroups(groups []service.UserGroup) []*model.UserConsentGroup {
	out := make([]*model.UserConsentGroup, len(groups))
	for i, g := range groups {
		out[i] = &model.UserConsentGroup{GroupID: g.GroupID, Tenant: g.Tenant, IsOwner: g.IsOwner, Roles: nonNilRoles(g.Roles)}
	}
	return out
}

func groupMemberInput(m *model.ConsentGroupMemberInput) service.GroupMemberInput {
	in := service.GroupMemberInput{UserID: m.UserID, Roles: m.Roles}
	if m.IsOwner != nil {
		in.IsOwner = *m.IsOwner
	}
	return in
}

func groupMemberInputs(members []*model.ConsentGroupMemberInput) []service.GroupMemberInput {
	out := make([]service.GroupMemberInput, len(members))
	for i, m := range members {
		out[i] = groupMemberInput(m)
	}
	return out
}

func nonNilRoles(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
