package resolvers_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

func TestCaseTeamOverGraphQL(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env).Id
		team, err := client.CaseTeam(ctx, env.GraphQL("bob"), id)
		if err != nil {
			t.Fatal(err)
		}
		m := team.Case.Team.Members
		if len(m) != 2 || m[0].MemberId != "alice" || !m[0].IsOwner || m[0].User == nil || m[0].User.Name != "Alice" ||
			*m[0].Origin != "Tenant" || len(team.Case.Team.UnassignedRoles) != 0 {
			t.Fatalf("team = %+v", team.Case.Team)
		}

		_, err = client.UpsertCaseTeamMembers(ctx, env.GraphQL("bob"), id, []client.CaseTeamMemberUpdate{{MemberId: "bob", IsOwner: ptr(true)}})
		expectCode(t, err, "FORBIDDEN", "Only case team owners can perform this action")
		_, err = client.UpsertCaseTeamMembers(ctx, env.GraphQL("zed"), id, []client.CaseTeamMemberUpdate{{MemberId: "zed", IsOwner: ptr(true)}})
		expectCode(t, err, "NOT_FOUND", "A case with id '"+id+"' cannot be found.")

		role := client.MemberTypeRole
		up, err := client.UpsertCaseTeamMembers(ctx, env.GraphQL("alice"), id, []client.CaseTeamMemberUpdate{
			{MemberId: "bob", CaseRoles: []string{"Reviewer"}, RemoveRoles: []string{"Clerk"}},
			{MemberId: "clerk", MemberType: &role, CaseRoles: []string{"Clerk"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := up.UpsertCaseTeamMembers.Team.Members; len(got) != 3 || got[1].CaseRoles[0] != "Reviewer" || got[2].MemberType != client.MemberTypeRole {
			t.Fatalf("after upsert = %+v", got)
		}
		_, err = client.UpsertCaseTeamMembers(ctx, env.GraphQL("alice"), id, []client.CaseTeamMemberUpdate{{MemberId: "bob", CaseRoles: []string{"Pilot"}}})
		expectCode(t, err, "BAD_USER_INPUT", "The following role(s) are not defined in the case: Pilot")
		_, err = client.RemoveCaseTeamMember(ctx, env.GraphQL("alice"), id, "alice", nil)
		expectCode(t, err, "BAD_USER_INPUT", "Cannot remove the last case owner")
		_, err = client.RemoveCaseTeamMember(ctx, env.GraphQL("alice"), id, "nobody", nil)
		expectCode(t, err, "BAD_USER_INPUT", "The case team does not have a TenantRole with id nobody")
		if _, err := client.RemoveCaseTeamMember(ctx, env.GraphQL("alice"), id, "clerk", &role); err != nil {
			t.Fatal(err)
		}
		_, err = client.SetCaseTeam(ctx, env.GraphQL("alice"), id, []client.CaseTeamMemberInput{{MemberId: "bob"}})
		expectCode(t, err, "BAD_USER_INPUT", "The new case team must have owners")
		set, err := client.SetCaseTeam(ctx, env.GraphQL("alice"), id, []client.CaseTeamMemberInput{{MemberId: "bob", IsOwner: ptr(true)}})
		if err == nil {
			t.Fatalf("alice left the team but still read it: %+v", set)
		}
		// alice is no longer in the team: the mutation applied, but she may
		// not read the result.
		expectCode(t, err, "NOT_FOUND", "")
		team, err = client.CaseTeam(ctx, env.GraphQL("bob"), id)
		if err != nil || len(team.Case.Team.Members) != 1 || team.Case.Team.Members[0].MemberId != "bob" {
			t.Fatalf("team after replace = %+v %v", team, err)
		}
	})
}

type statementCounter struct{ n atomic.Int64 }

func (c *statementCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *statementCounter) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestNestedQueryStatementCount: the SQL a nested query (cases with their
// team and member accounts, plan items with stage and case, tasks with
// their case and plan item) costs does not grow with the number of cases.
func TestNestedQueryStatementCount(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		setupPermit(t, env)
		for i := 0; i < 49; i++ {
			if _, err := client.StartCase(ctx, env.GraphQL("alice"), client.StartCaseInput{Definition: "permit", Tenant: ptr("acme"),
				Team: []client.CaseTeamMemberInput{{MemberId: "alice", IsOwner: ptr(true)}, {MemberId: "bob"}}}); err != nil {
				t.Fatal(err)
			}
		}
		counter := &statementCounter{}
		//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
		env.Server.DB().AddQueryHook(counter)
		count := func(n int) int64 {
			counter.n.Store(0)
			resp, err := client.NestedCases(ctx, env.GraphQL("bob"), ptr(n))
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Cases.Edges) != n {
				t.Fatalf("got %d cases, want %d", len(resp.Cases.Edges), n)
			}
			for _, e := range resp.Cases.Edges {
				if len(e.Node.Team.Members) < 2 || e.Node.Team.Members[0].User == nil || len(e.Node.PlanItems) != 3 ||
					len(e.Node.Tasks) != 1 || e.Node.Tasks[0].Case.Id != e.Node.Id {
					t.Fatalf("case %s incomplete: %+v", e.Node.Id, e.Node)
				}
			}
			return counter.n.Load()
		}
		count(5) // warm the definition cache
		five, fifty := count(5), count(50)
		t.Logf("statements: 5 cases %d, 50 cases %d", five, fifty)
		if five != fifty || five > 12 {
			t.Fatalf("statements for 5 cases %d, for 50 cases %d; want the same small number", five, fifty)
		}
	})
}

// TestMemberAccountsStayInTheTenant: a team member who is not a user of
// the case's tenant sees the memberships, not the tenant's user register.
func TestMemberAccountsStayInTheTenant(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env).Id
		if _, err := client.UpsertCaseTeamMembers(ctx, env.GraphQL("alice"), id, []client.CaseTeamMemberUpdate{{MemberId: "ivan"}}); err != nil {
			t.Fatal(err)
		}
		team, err := client.CaseTeam(ctx, env.GraphQL("ivan"), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range team.Case.Team.Members {
			if m.User != nil {
				t.Fatalf("ivan, outside the tenant, sees the account of %s: %+v", m.MemberId, m.User)
			}
		}
		team, err = client.CaseTeam(ctx, env.GraphQL("bob"), id)
		if err != nil || team.Case.Team.Members[0].User == nil {
			t.Fatalf("bob, in the tenant, lost the accounts: %+v %v", team, err)
		}
	})
}
