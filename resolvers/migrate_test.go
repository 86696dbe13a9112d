package resolvers_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

func TestMigrateCaseDefinitionOverGraphQL(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		started := setupPermit(t, env)
		id := started.Id
		v2, err := os.ReadFile("../testdata/cases/permit_v2.xml")
		if err != nil {
			t.Fatal(err)
		}
		var before []client.PlanItemFields
		for _, p := range started.PlanItems {
			before = append(before, p.PlanItemFields)
		}
		review := planItemNamed(t, before, "Review application").Id
		if _, err := client.SaveTaskOutput(ctx, env.GraphQL("alice"), review, json.RawMessage(`{"Decision":{"Remark":"draft"}}`)); err != nil {
			t.Fatal(err)
		}

		// Refusals: a stranger, a member replacing the team, a bad document.
		_, err = client.MigrateCaseDefinition(ctx, env.GraphQL("zed"), id, string(v2), nil)
		expectCode(t, err, "NOT_FOUND", "A case with id '"+id+"' cannot be found.")
		_, err = client.MigrateCaseDefinition(ctx, env.GraphQL("bob"), id, string(v2), []client.CaseTeamMemberInput{{MemberId: "bob", IsOwner: ptr(true)}})
		expectCode(t, err, "FORBIDDEN", "Only case team owners can perform this action")
		_, err = client.MigrateCaseDefinition(ctx, env.GraphQL("alice"), id, "<definitions", nil)
		expectCode(t, err, "BAD_USER_INPUT", "Cannot migrate case "+id+": the new definition is invalid.")
		_, err = client.MigrateCaseDefinition(ctx, env.GraphQL("alice"), id, "permit_v2", nil)
		expectCode(t, err, "BAD_USER_INPUT", "Cannot find or load definition permit_v2.xml")

		// A member migrates by document: the renamed task keeps its
		// assignee and saved output, the new one starts.
		resp, err := client.MigrateCaseDefinition(ctx, env.GraphQL("bob"), id, string(v2), nil)
		if err != nil {
			t.Fatal(err)
		}
		m := resp.MigrateCaseDefinition
		if m.Name != "BuildingPermitV2" || m.Definition != "permit.xml" {
			t.Errorf("case %q on %q, want BuildingPermitV2 on the kept file name permit.xml", m.Name, m.Definition)
		}
		items := make([]client.PlanItemFields, len(m.PlanItems))
		for i, p := range m.PlanItems {
			items[i] = p.PlanItemFields
		}
		if p := planItemNamed(t, items, "Review the application"); p.Id != review || p.State != client.PlanItemStateActive {
			t.Errorf("Review the application = %+v, want %s Active", p, review)
		}
		if p := planItemNamed(t, items, "File the permit"); p.State != client.PlanItemStateActive {
			t.Errorf("File the permit = %+v, want Active", p)
		}
		var task *client.MigrateCaseDefinitionMigrateCaseDefinitionCaseTasksTask
		for i := range m.Tasks {
			if m.Tasks[i].Id == review {
				task = &m.Tasks[i]
			}
		}
		if task == nil || task.Name != "Review the application" || deref(task.Assignee) != "alice" || string(task.Output) != `{"Decision":{"Remark":"draft"}}` {
			t.Fatalf("review task after migration = %+v", task)
		}

		// The owner migrates again, by deployed name, with a new team
		// without herself: the mutation applies, she may not read it.
		if _, err := client.DeployDefinition(ctx, env.GraphQL("alice"), ptr("acme"), "permit_v2", string(v2)); err != nil {
			t.Fatal(err)
		}
		_, err = client.MigrateCaseDefinition(ctx, env.GraphQL("alice"), id, "permit_v2", []client.CaseTeamMemberInput{
			{MemberId: "bob", IsOwner: ptr(true), CaseRoles: []string{"Clerk"}}})
		expectCode(t, err, "NOT_FOUND", "")
		after, err := client.Case(ctx, env.GraphQL("bob"), id)
		if err != nil {
			t.Fatal(err)
		}
		if after.Case.Name != "BuildingPermitV2" {
			t.Errorf("case name %q after the second migration", after.Case.Name)
		}
		if _, err := client.Case(ctx, env.GraphQL("alice"), id); err == nil {
			t.Error("alice still reads the case after the new team left her out")
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
