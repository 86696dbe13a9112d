package resolvers_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

// startClaim deploys testdata/cases/subcases.xml to acme (once) and
// starts a claim with alice as owner and Handler and bob as Manager.
func startClaim(t *testing.T, env *servertest.Env, deploy bool) string {
	t.Helper()
	if deploy {
		createTenant(t, env, "acme")
		b, err := os.ReadFile("../testdata/cases/subcases.xml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := client.DeployDefinition(ctx, env.GraphQL("alice"), ptr("acme"), "subcases", string(b)); err != nil {
			t.Fatal(err)
		}
	}
	inputs := json.RawMessage(`{"Claim":{"item":"bike","amount":300}}`)
	resp, err := client.StartCase(ctx, env.GraphQL("alice"), client.StartCaseInput{
		Definition: "subcases", Tenant: ptr("acme"), Inputs: &inputs,
		Team: []client.CaseTeamMemberInput{
			{MemberId: "alice", IsOwner: ptr(true), CaseRoles: []string{"Handler", "Manager"}},
			{MemberId: "bob", CaseRoles: []string{"Manager"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return resp.StartCase.Id
}

func caseTree(t *testing.T, env *servertest.Env, user, id string) client.CaseTreeCase {
	t.Helper()
	resp, err := client.CaseTree(ctx, env.GraphQL(user), id)
	if err != nil || resp.Case == nil {
		t.Fatalf("case %s as %s: %v", id, user, err)
	}
	return *resp.Case
}

func treeItem(t *testing.T, c client.CaseTreeCase, name string) client.CaseTreeCasePlanItemsPlanItem {
	t.Helper()
	for _, p := range c.PlanItems {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no plan item %q in case %s", name, c.Id)
	return client.CaseTreeCasePlanItemsPlanItem{}
}

func TestSubCasesOverGraphQL(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		claim := startClaim(t, env, true)
		c := caseTree(t, env, "bob", claim)
		assess, notify := treeItem(t, c, "Assess"), treeItem(t, c, "Notify")
		if c.Parent != nil || c.Root == nil || c.Root.Id != claim || c.Output != nil {
			t.Fatalf("claim: parent %v root %v output %v", c.Parent, c.Root, c.Output)
		}
		if len(c.SubCases) != 2 || c.SubCases[0].Id != assess.Id || c.SubCases[1].Id != notify.Id ||
			c.SubCases[0].Name != "Assess" || *c.SubCases[0].ParentCaseId != claim || c.SubCases[0].RootCaseId != claim {
			t.Fatalf("claim sub cases = %+v", c.SubCases)
		}
		if assess.SubCase == nil || assess.SubCase.Id != assess.Id || assess.SubCase.State != "ACTIVE" || treeItem(t, c, "Claim").SubCase != nil {
			t.Errorf("Assess.subCase = %+v", assess.SubCase)
		}
		sub := caseTree(t, env, "bob", assess.Id)
		if sub.Parent == nil || sub.Parent.Id != claim || sub.Root == nil || sub.Root.Id != claim || len(sub.SubCases) != 1 {
			t.Fatalf("assessment: %+v", sub)
		}
		inspect := sub.SubCases[0].Id

		// Each sub case answers to its own team.
		if _, err := client.RemoveCaseTeamMember(ctx, env.GraphQL("alice"), notify.Id, "bob", nil); err != nil {
			t.Fatal(err)
		}
		c = caseTree(t, env, "bob", claim)
		if len(c.SubCases) != 1 || c.SubCases[0].Id != assess.Id || treeItem(t, c, "Notify").SubCase != nil {
			t.Errorf("bob's sub cases after leaving Notify = %+v", c.SubCases)
		}
		if _, err := client.RemoveCaseTeamMember(ctx, env.GraphQL("alice"), claim, "bob", nil); err != nil {
			t.Fatal(err)
		}
		sub = caseTree(t, env, "bob", assess.Id)
		if sub.Parent != nil || sub.Root != nil || *sub.ParentCaseId != claim {
			t.Errorf("bob sees the claim he left: parent %+v root %+v", sub.Parent, sub.Root)
		}
		_, err := client.CaseTree(ctx, env.GraphQL("bob"), claim)
		expectCode(t, err, "NOT_FOUND", "")

		// The report flows up; the claim completes with its output.
		leaf := caseTree(t, env, "alice", inspect)
		out := json.RawMessage(`{"Report":{"inspector":"ian"}}`)
		if _, err := client.CompleteTask(ctx, env.GraphQL("alice"), treeItem(t, leaf, "Look at item").Id, &out); err != nil {
			t.Fatal(err)
		}
		out = json.RawMessage(`{"Report":{"verdict":"pay"}}`)
		if _, err := client.CompleteTask(ctx, env.GraphQL("alice"), treeItem(t, caseTree(t, env, "alice", assess.Id), "Decide").Id, &out); err != nil {
			t.Fatal(err)
		}
		c = caseTree(t, env, "alice", claim)
		if c.State != "COMPLETED" || c.Output == nil || string(*c.Output) != `{"Report":{"inspector":"ian","verdict":"pay"}}` {
			t.Fatalf("claim after its assessment: %s output %s", c.State, rawOf(c.Output))
		}
		if got := caseTree(t, env, "alice", inspect); got.Output == nil || string(*got.Output) != `{"Report":{"inspector":"ian"}}` {
			t.Errorf("inspection output = %s", rawOf(got.Output))
		}
	})
}

func rawOf(m *json.RawMessage) string {
	if m == nil {
		return "null"
	}
	return string(*m)
}

// TestSubCaseStatementCount: parent, root, subCases and PlanItem.subCase
// over a page of cases load through the case loader in batches, so the
// statements do not grow with the page.
func TestSubCaseStatementCount(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		startClaim(t, env, true)
		for i := 0; i < 14; i++ {
			startClaim(t, env, false)
		}
		counter := &statementCounter{}
		//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
		env.Server.DB().AddQueryHook(counter)
		count := func(n int) int64 {
			counter.n.Store(0)
			resp, err := client.NestedSubCases(ctx, env.GraphQL("alice"), ptr(n))
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Cases.Edges) != n {
				t.Fatalf("got %d cases, want %d", len(resp.Cases.Edges), n)
			}
			linked := 0
			for _, e := range resp.Cases.Edges {
				if e.Node.Root == nil {
					t.Fatalf("case %s lost its root", e.Node.Id)
				}
				linked += len(e.Node.SubCases)
			}
			if linked == 0 {
				t.Fatal("no sub cases on the page")
			}
			return counter.n.Load()
		}
		count(5)
		five, fifty := count(5), count(50)
		t.Logf("statements: 5 cases %d, 50 cases %d", five, fifty)
		if five != fifty || five > 16 {
			t.Fatalf("statements for 5 cases %d, for 50 cases %d; want the same small number", five, fifty)
		}
	})
}
