package resolvers_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/Khan/genqlient/graphql"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

// startIncident deploys the incident model (once per env) and starts a
// case: alice owner without roles, bob Engineer, carl Agent, dora Manager.
// It returns the case id and the id of its Triage task.
func startIncident(t *testing.T, env *servertest.Env) (string, string) {
	t.Helper()
	resp, err := client.StartCase(ctx, env.GraphQL("alice"), client.StartCaseInput{Definition: "incident", Tenant: ptr("acme"),
		Inputs: ptr(json.RawMessage(`{"Incident":{"Title":"Disk full","Severity":3}}`)),
		Team: []client.CaseTeamMemberInput{
			{MemberId: "alice", IsOwner: ptr(true)},
			{MemberId: "bob", CaseRoles: []string{"Engineer"}},
			{MemberId: "carl", CaseRoles: []string{"Agent"}},
			{MemberId: "dora", CaseRoles: []string{"Manager"}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := client.CaseTasks(ctx, env.GraphQL("alice"), resp.StartCase.Id)
	if err != nil || len(tasks.Case.Tasks) != 1 {
		t.Fatalf("tasks of a new incident: %+v %v", tasks, err)
	}
	return resp.StartCase.Id, tasks.Case.Tasks[0].Id
}

func deployIncident(t *testing.T, env *servertest.Env) {
	t.Helper()
	createTenant(t, env, "acme")
	b, err := os.ReadFile("../testdata/cases/incident.xml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.DeployDefinition(ctx, env.GraphQL("alice"), ptr("acme"), "incident", string(b)); err != nil {
		t.Fatal(err)
	}
}

type gqlCall func(c graphql.Client, caseID, taskID string) error

// gqlMatrixRow is one field or mutation that touches a case: who lacks and
// who holds the role it needs, and the code each gets ("" for success);
// read tells a query from a mutation.
type gqlMatrixRow struct {
	name                       string
	call                       gqlCall
	without, with              string
	member, withRole, ownerHas string
	read                       bool
}

// gqlMatrixRows are every field and mutation of the matrix.
func gqlMatrixRows() []gqlMatrixRow {
	return []gqlMatrixRow{
		{"case", func(c graphql.Client, id, _ string) error { _, err := client.Case(ctx, c, id); return err }, "bob", "carl", "", "", "", true},
		{"case team", func(c graphql.Client, id, _ string) error { _, err := client.CaseTeam(ctx, c, id); return err }, "bob", "carl", "", "", "", true},
		{"case tasks", func(c graphql.Client, id, _ string) error { _, err := client.CaseTasks(ctx, c, id); return err }, "bob", "carl", "", "", "", true},
		{"task", func(c graphql.Client, _, task string) error { _, err := client.Task(ctx, c, task); return err }, "bob", "carl", "", "", "", true},
		{"plan item", func(c graphql.Client, _, task string) error { _, err := client.PlanItem(ctx, c, task); return err }, "bob", "carl", "", "", "", true},
		{"update case file", func(c graphql.Client, id, _ string) error {
			_, err := client.UpdateCaseFileItem(ctx, c, id, "Incident", json.RawMessage(`{"Severity":1}`))
			return err
		}, "bob", "carl", "", "", "", false},
		{"raise user event", func(c graphql.Client, id, _ string) error {
			_, err := client.RaiseUserEvent(ctx, c, id, "Escalate")
			return err
		},
			"bob", "dora", "FORBIDDEN", "", "", false},
		{"upsert team", func(c graphql.Client, id, _ string) error {
			_, err := client.UpsertCaseTeamMembers(ctx, c, id, []client.CaseTeamMemberUpdate{{MemberId: "erin"}})
			return err
		}, "bob", "carl", "FORBIDDEN", "FORBIDDEN", "", false},
		{"claim", func(c graphql.Client, _, task string) error { _, err := client.ClaimTask(ctx, c, task); return err }, "bob", "carl", "FORBIDDEN", "", "", false},
		{"complete", func(c graphql.Client, _, task string) error {
			_, err := client.CompleteTask(ctx, c, task, nil)
			return err
		}, "bob", "carl", "FORBIDDEN", "", "", false},
		{"save", func(c graphql.Client, _, task string) error {
			_, err := client.SaveTaskOutput(ctx, c, task, json.RawMessage(`{"Notes":"x"}`))
			return err
		}, "bob", "carl", "FORBIDDEN", "", "", false},
		{"plan", func(c graphql.Client, id, _ string) error {
			cs, err := client.Case(ctx, c, id)
			if err != nil {
				return err
			}
			_, err = client.PlanDiscretionaryItem(ctx, c, id, cs.Case.PlanItems[0].Id, "di_postmortem", nil)
			return err
		}, "bob", "dora", "BAD_USER_INPUT", "", "", true},
		{"history", func(c graphql.Client, id, _ string) error { _, err := client.CaseWithHistory(ctx, c, id); return err }, "bob", "carl", "", "", "", true},
		{"assign", func(c graphql.Client, _, task string) error {
			_, err := client.AssignTask(ctx, c, task, "carl")
			return err
		}, "bob", "carl", "FORBIDDEN", "", "", false},
		{"validate", func(c graphql.Client, _, task string) error {
			_, err := client.ValidateTaskOutput(ctx, c, task, json.RawMessage(`{}`))
			return err
		}, "bob", "carl", "FORBIDDEN", "", "", false},
		{"suspend", func(c graphql.Client, id, _ string) error {
			_, err := client.MakePlanItemTransition(ctx, c, id, "Incident", "suspend")
			return err
		}, "bob", "carl", "", "", "", false},
		{"delete case file item", func(c graphql.Client, id, _ string) error {
			_, err := client.DeleteCaseFileItem(ctx, c, id, "Incident")
			return err
		}, "bob", "carl", "", "", "", false},
		{"set team", func(c graphql.Client, id, _ string) error {
			_, err := client.SetCaseTeam(ctx, c, id, []client.CaseTeamMemberInput{{MemberId: "alice", IsOwner: ptr(true)}})
			return err
		}, "bob", "carl", "FORBIDDEN", "FORBIDDEN", "", false},
		{"remove team member", func(c graphql.Client, id, _ string) error {
			_, err := client.RemoveCaseTeamMember(ctx, c, id, "dora", nil)
			return err
		}, "bob", "carl", "FORBIDDEN", "FORBIDDEN", "", false},
	}
}

// TestAuthorizationMatrixGraphQL: for each field and mutation that touches
// a case, a stranger, a member without the needed role, a member with it
// and the owner get the codes they should; a stranger never sees data.
func TestAuthorizationMatrixGraphQL(t *testing.T) {
	rows := gqlMatrixRows()
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		deployIncident(t, env)
		for _, row := range rows {
			t.Run(row.name, func(t *testing.T) {
				for _, actor := range []struct{ user, code string }{{"zed", "NOT_FOUND"}, {row.without, row.member}, {row.with, row.withRole}, {"alice", row.ownerHas}} {
					id, task := startIncident(t, env)
					err := row.call(env.GraphQL(actor.user), id, task)
					switch {
					case actor.code == "" && err != nil:
						t.Errorf("%s: %v", actor.user, err)
					case actor.code != "" && err == nil:
						t.Errorf("%s: succeeded, want %s", actor.user, actor.code)
					case actor.code != "" && errorCode(t, err) != actor.code:
						t.Errorf("%s: %v, want %s", actor.user, err, actor.code)
					}
				}
			})
		}
		// Lists and nested fields show a stranger nothing.
		startIncident(t, env)
		cases, err := client.NestedCases(ctx, env.GraphQL("zed"), ptr(50))
		if err != nil || len(cases.Cases.Edges) != 0 {
			t.Fatalf("stranger's cases: %+v %v", cases, err)
		}
		tasks, err := client.Tasks(ctx, env.GraphQL("zed"), nil, ptr(50), nil)
		if err != nil || len(tasks.Tasks.Edges) != 0 {
			t.Fatalf("stranger's tasks: %+v %v", tasks, err)
		}
		// bob sees no Triage tasks (Agent role) in his inbox; carl does,
		// with their case reachable through the nested field.
		tasks, err = client.Tasks(ctx, env.GraphQL("bob"), nil, ptr(100), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tasks.Tasks.Edges {
			if e.Node.Name == "Triage" {
				t.Fatalf("bob (no Agent role) sees a Triage task: %+v", e.Node)
			}
		}
		tasks, err = client.Tasks(ctx, env.GraphQL("carl"), nil, ptr(50), nil)
		if err != nil || len(tasks.Tasks.Edges) == 0 || tasks.Tasks.Edges[0].Node.Case.State != "ACTIVE" || !tasks.Tasks.Edges[0].Node.MayPerform {
			t.Fatalf("carl's inbox: %+v %v", tasks, err)
		}
	})
}
