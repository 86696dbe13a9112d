package engine

import (
	"slices"
	"testing"
)

// TestTeamActorThroughGroups: a consent group's mappings reach the group
// members holding their group role, every member for "", and the group's
// owners always; case owners do not manage a role only groups fill.
func TestTeamActorThroughGroups(t *testing.T) {
	team := Team{Members: []Member{
		{ID: "alice", Type: UserMember, IsOwner: true, CaseRoles: []string{}, Origin: "Tenant"},
		NewGroupMember("g", []GroupMapping{
			{GroupRole: "approver", CaseRoles: []string{"Approver"}},
			{GroupRole: "lead", IsOwner: true},
			{GroupRole: "", CaseRoles: []string{"Reader"}},
		}),
	}}
	in := func(roles ...string) []GroupMembership { return []GroupMembership{{GroupID: "g", Roles: roles}} }
	for _, tc := range []struct {
		name   string
		caller Caller
		member bool
		owner  bool
		roles  []string
	}{
		{"approver", Caller{UserID: "gina", Groups: in("approver")}, true, false, []string{"Approver", "Reader"}},
		{"plain member", Caller{UserID: "gus", Groups: in("other")}, true, false, []string{"Reader"}},
		{"lead", Caller{UserID: "lee", Groups: in("lead")}, true, true, []string{"Reader"}},
		{"group owner", Caller{UserID: "gwen", Groups: []GroupMembership{{GroupID: "g", IsOwner: true}}}, true, true, []string{"Approver", "Reader"}},
		{"other group", Caller{UserID: "olga", Groups: []GroupMembership{{GroupID: "h", IsOwner: true}}}, false, false, nil},
		{"case owner", Caller{UserID: "alice"}, true, true, nil},
	} {
		a, ok := team.Actor(tc.caller)
		if ok != tc.member || a.IsOwner != tc.owner || !slices.Equal(a.Roles, tc.roles) {
			t.Errorf("%s: member %v owner %v roles %v, want %v %v %v", tc.name, ok, a.IsOwner, a.Roles, tc.member, tc.owner, tc.roles)
		}
	}
	owner, _ := team.Actor(Caller{UserID: "alice"})
	if owner.HasRole("Approver") || owner.HasRole("Reader") || !owner.HasRole("Clerk") || !owner.HasRole("") {
		t.Errorf("case owner manages group-only roles: %+v", owner)
	}
	// A tenant user holding Approver too gives it back to the owner; a
	// user from another tenant does not.
	team.Members = append(team.Members, Member{ID: "pete", Type: UserMember, CaseRoles: []string{"Approver"}, Origin: "Platform"})
	if owner, _ = team.Actor(Caller{UserID: "alice"}); owner.HasRole("Approver") {
		t.Errorf("a Platform user made Approver manageable: %+v", owner)
	}
	team.Members = append(team.Members, Member{ID: "bob", Type: UserMember, CaseRoles: []string{"Approver"}, Origin: "Tenant"})
	if owner, _ = team.Actor(Caller{UserID: "alice"}); !owner.HasRole("Approver") || owner.HasRole("Reader") {
		t.Errorf("after a tenant user holds Approver: %+v", owner)
	}
	if g := team.Members[1]; !g.IsOwner || !slices.Equal(g.CaseRoles, []string{"Approver", "Reader"}) {
		t.Errorf("group summary %+v", g)
	}
}
