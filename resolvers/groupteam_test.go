package resolvers_test

import (
	"os"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

// startGroupCases creates consent group g1 in acme (bob owner, dave with
// group role approver, erin with other) and starts n inbox cases whose
// team is alice, owner without case roles, and g1 mapping approver to
// Approver: dave reaches them only through the group.
func startGroupCases(t *testing.T, env *servertest.Env, n int) []string {
	t.Helper()
	createTenant(t, env, "acme")
	if _, err := client.CreateConsentGroup(ctx, env.GraphQL("alice"), "acme", client.CreateConsentGroupInput{Id: ptr("g1"),
		Members: []client.ConsentGroupMemberInput{{UserId: "bob", IsOwner: ptr(true)}, {UserId: "dave", Roles: []string{"approver"}},
			{UserId: "erin", Roles: []string{"other"}}}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../testdata/cases/inbox.xml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.DeployDefinition(ctx, env.GraphQL("alice"), ptr("acme"), "inbox", string(b)); err != nil {
		t.Fatal(err)
	}
	group := client.MemberTypeGroup
	var ids []string
	for i := 0; i < n; i++ {
		resp, err := client.StartCase(ctx, env.GraphQL("alice"), client.StartCaseInput{Definition: "inbox", Tenant: ptr("acme"),
			Team: []client.CaseTeamMemberInput{{MemberId: "alice", IsOwner: ptr(true)},
				{MemberId: "g1", MemberType: &group, Mappings: []client.GroupMappingInput{{GroupRole: "approver", CaseRoles: []string{"Approver"}}}}}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, resp.StartCase.Id)
	}
	return ids
}

// TestGroupTeamNestedRead: cases, their teams and their tasks reach dave
// only through the consent group, in a number of SQL statements that does
// not grow with the cases; erin, in the group without the mapped role,
// sees none.
func TestGroupTeamNestedRead(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		ids := startGroupCases(t, env, 30)
		counter := &statementCounter{}
		//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
		env.Server.DB().AddQueryHook(counter)
		count := func(n int) int64 {
			counter.n.Store(0)
			resp, err := client.GroupCases(ctx, env.GraphQL("dave"), ptr(n))
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Cases.Edges) != n {
				t.Fatalf("dave got %d cases, want %d", len(resp.Cases.Edges), n)
			}
			for _, e := range resp.Cases.Edges {
				members := e.Node.Team.Members
				if len(members) != 2 || members[1].MemberType != client.MemberTypeGroup || members[1].ConsentGroup == nil ||
					members[1].ConsentGroup.Id != "g1" || len(e.Node.Team.UnassignedRoles) != 0 {
					t.Fatalf("case %s team %+v", e.Node.Id, e.Node.Team)
				}
				may := 0
				for _, tk := range e.Node.Tasks {
					if tk.MayPerform {
						may++
					}
				}
				if len(e.Node.Tasks) != 4 || may != 4 {
					t.Fatalf("case %s tasks %+v", e.Node.Id, e.Node.Tasks)
				}
			}
			return counter.n.Load()
		}
		count(5) // warm the definition cache
		five, thirty := count(5), count(30)
		t.Logf("statements: 5 cases %d, 30 cases %d", five, thirty)
		if five != thirty || five > 14 {
			t.Fatalf("statements for 5 cases %d, for 30 cases %d; want the same small number", five, thirty)
		}
		resp, err := client.GroupCases(ctx, env.GraphQL("erin"), ptr(50))
		if err != nil || len(resp.Cases.Edges) != 0 {
			t.Fatalf("erin sees %+v %v", resp, err)
		}
		// alice, the case owner, is not in the group: she sees the
		// membership and its mappings, not the group's members.
		team, err := client.CaseTeam(ctx, env.GraphQL("alice"), ids[0])
		if err != nil {
			t.Fatal(err)
		}
		g := team.Case.Team.Members[1]
		if g.MemberId != "g1" || g.ConsentGroup != nil || len(g.Mappings) != 1 || g.Mappings[0].GroupRole != "approver" ||
			len(g.Mappings[0].CaseRoles) != 1 || g.Mappings[0].CaseRoles[0] != "Approver" || g.IsOwner {
			t.Fatalf("alice sees the group member as %+v", g)
		}
	})
}

// TestGroupTeamMutations: case owners add, change and remove a consent
// group; a member acting through a mapping without ownership may not; a
// group is set whole, never upserted; a dropped mapping takes the case
// away from its holders.
func TestGroupTeamMutations(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := startGroupCases(t, env, 1)[0]
		owners := []client.GroupMappingInput{{GroupRole: "other", IsOwner: ptr(true)}}
		_, err := client.SetCaseTeamGroup(ctx, env.GraphQL("dave"), id, "g1", owners)
		expectCode(t, err, "FORBIDDEN", "Only case team owners can perform this action")
		_, err = client.SetCaseTeamGroup(ctx, env.GraphQL("alice"), id, "nosuch", owners)
		expectCode(t, err, "NOT_FOUND", "Cannot find a consent group with id 'nosuch'")
		_, err = client.SetCaseTeamGroup(ctx, env.GraphQL("alice"), id, "g1", []client.GroupMappingInput{})
		expectCode(t, err, "BAD_USER_INPUT", "Case team groups must have one or more mappings defined")
		_, err = client.SetCaseTeamGroup(ctx, env.GraphQL("alice"), id, "g1", []client.GroupMappingInput{{CaseRoles: []string{"Boss"}}})
		expectCode(t, err, "BAD_USER_INPUT", "ConsentGroup maps to invalid case roles: Boss")
		group := client.MemberTypeGroup
		_, err = client.UpsertCaseTeamMembers(ctx, env.GraphQL("alice"), id, []client.CaseTeamMemberUpdate{{MemberId: "g1", MemberType: &group}})
		expectCode(t, err, "BAD_USER_INPUT", "A consent group member is set whole, with its mappings: use setCaseTeamGroup")

		set, err := client.SetCaseTeamGroup(ctx, env.GraphQL("alice"), id, "g1", owners)
		if err != nil {
			t.Fatal(err)
		}
		m := set.SetCaseTeamGroup.Team.Members[1]
		if m.MemberType != client.MemberTypeGroup || !m.IsOwner || len(m.Mappings) != 1 || set.SetCaseTeamGroup.Team.UnassignedRoles[0] != "Approver" {
			t.Fatalf("after set %+v", set.SetCaseTeamGroup.Team)
		}
		// dave lost the mapping; erin, holding other, is an owner now.
		if got, err := client.CaseTeam(ctx, env.GraphQL("dave"), id); err == nil {
			t.Fatalf("dave still reads the team: %+v", got)
		}
		if _, err := client.RemoveCaseTeamMember(ctx, env.GraphQL("erin"), id, "alice", nil); err != nil {
			t.Fatal(err)
		}
		_, err = client.RemoveCaseTeamGroup(ctx, env.GraphQL("erin"), id, "g1")
		expectCode(t, err, "BAD_USER_INPUT", "Cannot remove the last case owner")
		if _, err := client.SetCaseTeam(ctx, env.GraphQL("erin"), id, []client.CaseTeamMemberInput{{MemberId: "alice", IsOwner: ptr(true)},
			{MemberId: "g1", MemberType: &group, Mappings: owners}}); err != nil {
			t.Fatal(err)
		}
		removed, err := client.RemoveCaseTeamGroup(ctx, env.GraphQL("alice"), id, "g1")
		if err != nil || len(removed.RemoveCaseTeamGroup.Team.Members) != 1 {
			t.Fatalf("after removal %+v %v", removed, err)
		}
		_, err = client.RemoveCaseTeamGroup(ctx, env.GraphQL("alice"), id, "g1")
		expectCode(t, err, "BAD_USER_INPUT", "The case team does not have a TenantRole with id g1")
	})
}
