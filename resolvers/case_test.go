package resolvers_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/graph/client"
)

// setupPermit creates tenant acme, deploys permit.xml and starts a case as
// alice (owner, Reviewer) with bob (Clerk) over GraphQL.
func setupPermit(t *testing.T, env *servertest.Env) *client.StartCaseStartCase {
	t.Helper()
	createTenant(t, env, "acme")
	b, err := os.ReadFile("../testdata/cases/permit.xml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.DeployDefinition(ctx, env.GraphQL("alice"), ptr("acme"), "permit", string(b)); err != nil {
		t.Fatal(err)
	}
	inputs := json.RawMessage(`{"Application":{"Applicant":"Ann Builder","Floors":2,"Reviewer":"alice"}}`)
	role := client.MemberTypeUser
	resp, err := client.StartCase(ctx, env.GraphQL("alice"), client.StartCaseInput{
		Definition: "permit", Tenant: ptr("acme"), Inputs: &inputs,
		Team: []client.CaseTeamMemberInput{
			{MemberId: "alice", MemberType: &role, IsOwner: ptr(true), CaseRoles: []string{"Reviewer"}},
			{MemberId: "bob", CaseRoles: []string{"Clerk"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &resp.StartCase
}

func planItemNamed(t *testing.T, items []client.PlanItemFields, name string) client.PlanItemFields {
	t.Helper()
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Name == name {
			return items[i]
		}
	}
	t.Fatalf("no plan item %q", name)
	return client.PlanItemFields{}
}

func TestPermitCaseOverGraphQL(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		started := setupPermit(t, env)
		if started.Name != "BuildingPermit" || started.State != "ACTIVE" {
			t.Fatalf("started %+v", started)
		}
		// definition is the definition it was started from, unlike REST's
		// (the case name there, as in the reference engine).
		if c, err := client.Case(ctx, env.GraphQL("alice"), started.Id); err != nil || c.Case.Definition != "permit.xml" {
			t.Fatalf("definition = %q %v, want permit.xml", c.Case.Definition, err)
		}
		var items []client.PlanItemFields
		for _, p := range started.PlanItems {
			items = append(items, p.PlanItemFields)
		}
		review := planItemNamed(t, items, "Review application")
		if review.State != "ACTIVE" || review.Stage == nil || review.Stage.Name != "BuildingPermit" {
			t.Fatalf("review = %+v", review)
		}

		// A non-member gets NOT_FOUND, exactly as for an unknown id.
		_, err := client.Case(ctx, env.GraphQL("zed"), started.Id)
		expectCode(t, err, "NOT_FOUND", "A case with id '"+started.Id+"' cannot be found.")
		_, err = client.Case(ctx, env.GraphQL("zed"), "nosuch")
		expectCode(t, err, "NOT_FOUND", "A case with id 'nosuch' cannot be found.")
		_, err = client.PlanItem(ctx, env.GraphQL("zed"), review.Id)
		expectCode(t, err, "NOT_FOUND", "")

		file, err := client.CreateCaseFileItem(ctx, env.GraphQL("bob"), started.Id, "Decision", json.RawMessage(`{"Approved":true}`))
		if err != nil {
			t.Fatal(err)
		}
		var cf map[string]map[string]any
		if err := json.Unmarshal(file.CreateCaseFileItem.CaseFile, &cf); err != nil || cf["Decision"]["Approved"] != true {
			t.Fatalf("case file = %s (%v)", file.CreateCaseFileItem.CaseFile, err)
		}

		tr, err := client.MakePlanItemTransition(ctx, env.GraphQL("alice"), started.Id, review.Id, client.TransitionComplete)
		if err != nil {
			t.Fatal(err)
		}
		if !tr.MakePlanItemTransition.Changed {
			t.Fatal("completing the review changed nothing")
		}
		items = items[:0]
		for _, p := range tr.MakePlanItemTransition.Case.PlanItems {
			items = append(items, p.PlanItemFields)
		}
		if got := planItemNamed(t, items, "Inform applicant").State; got != "ACTIVE" {
			t.Fatalf("inform applicant = %s, want Active", got)
		}
		again, err := client.MakePlanItemTransition(ctx, env.GraphQL("alice"), started.Id, review.Id, client.TransitionComplete)
		if err != nil || again.MakePlanItemTransition.Changed {
			t.Fatalf("second complete: %+v %v; want unchanged", again, err)
		}
		done, err := client.MakePlanItemTransition(ctx, env.GraphQL("bob"), started.Id, "Inform applicant", client.TransitionComplete)
		if err != nil {
			t.Fatal(err)
		}
		if done.MakePlanItemTransition.Case.State != "COMPLETED" {
			t.Fatalf("case state %s, want Completed", done.MakePlanItemTransition.Case.State)
		}

		one, err := client.PlanItem(ctx, env.GraphQL("bob"), planItemNamed(t, items, "BuildingPermit").Id)
		if err != nil || len(one.PlanItem.Children) != 2 || one.PlanItem.Case.State != "COMPLETED" {
			t.Fatalf("case plan item = %+v %v", one, err)
		}
		hist, err := client.CaseWithHistory(ctx, env.GraphQL("bob"), started.Id)
		if err != nil || len(hist.Case.History) < 5 {
			t.Fatalf("history = %+v %v", hist, err)
		}
	})
}

func TestCasesConnection(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		first := setupPermit(t, env)
		var ids = []string{first.Id}
		for i := 0; i < 4; i++ {
			resp, err := client.StartCase(ctx, env.GraphQL("alice"), client.StartCaseInput{Definition: "permit", Tenant: ptr("acme")})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, resp.StartCase.Id)
		}
		seen := map[string]bool{}
		var after *string
		pages := 0
		for {
			page, err := client.Cases(ctx, env.GraphQL("alice"), &client.CaseFilter{SortBy: ptr(client.CaseSortFieldCreatedOn), SortOrder: ptr(client.SortOrderAsc)}, ptr(2), after)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, e := range page.Cases.Edges {
				if seen[e.Node.Id] {
					t.Fatalf("case %s on two pages", e.Node.Id)
				}
				seen[e.Node.Id] = true
				if len(e.Node.PlanItems) != 3 {
					t.Fatalf("case %s has %d plan items", e.Node.Id, len(e.Node.PlanItems))
				}
			}
			if !page.Cases.PageInfo.HasNextPage {
				break
			}
			after = page.Cases.PageInfo.EndCursor
		}
		if len(seen) != 5 || pages != 3 {
			t.Fatalf("saw %d cases on %d pages, want 5 on 3", len(seen), pages)
		}
		// bob is only in the first case's team.
		page, err := client.Cases(ctx, env.GraphQL("bob"), nil, nil, nil)
		if err != nil || len(page.Cases.Edges) != 1 || page.Cases.Edges[0].Node.Id != ids[0] {
			t.Fatalf("bob's cases = %+v %v", page, err)
		}

		// Nodes that select only what a case's row holds read no case
		// state (it took gigabytes for a hundred aliases of a thousand
		// cases); a fragment that selects more reads them.
		for _, tc := range []struct {
			query  string
			states bool
		}{
			{`{ cases(first: 10) { edges { node { id name state lastModified ... on Case { tenant } } } } }`, false},
			{`{ cases(first: 10) { edges { node { id name ... on Case { planItems { id } } } } } }`, true},
		} {
			before := db.CachedSnapshots()
			var out struct {
				Data struct {
					Cases struct {
						Edges []struct {
							Node struct{ ID, Name, State string }
						}
					}
				}
				Errors []any
			}
			rawGraphQL(t, env, "alice", tc.query, &out)
			after := db.CachedSnapshots()
			read := after.Hits + after.Misses - before.Hits - before.Misses
			if len(out.Errors) > 0 || len(out.Data.Cases.Edges) != 5 || out.Data.Cases.Edges[0].Node.Name == "" {
				t.Fatalf("%s: %+v", tc.query, out)
			}
			if tc.states != (read >= 5) {
				t.Errorf("%s: %d case states read", tc.query, read)
			}
		}
	})
}

func TestCaseFileAndUserEventOverGraphQL(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env).Id
		bob := env.GraphQL("bob")
		fileOf := func(raw json.RawMessage) map[string]map[string]any {
			var f map[string]map[string]any
			if err := json.Unmarshal(raw, &f); err != nil {
				t.Fatal(err)
			}
			return f
		}
		up, err := client.UpdateCaseFileItem(ctx, bob, id, "Application", json.RawMessage(`{"Floors":5}`))
		if err != nil {
			t.Fatal(err)
		}
		if f := fileOf(up.UpdateCaseFileItem.CaseFile); f["Application"]["Floors"] != float64(5) || f["Application"]["Applicant"] != "Ann Builder" {
			t.Fatalf("after update: %v", f)
		}
		rep, err := client.ReplaceCaseFileItem(ctx, bob, id, "Application", json.RawMessage(`{"Applicant":"New"}`))
		if err != nil {
			t.Fatal(err)
		}
		if f := fileOf(rep.ReplaceCaseFileItem.CaseFile); f["Application"]["Floors"] != nil || f["Application"]["Applicant"] != "New" {
			t.Fatalf("after replace: %v", f)
		}
		_, err = client.UpdateCaseFileItem(ctx, bob, id, "Application", json.RawMessage(`{"Floors":"many"}`))
		expectCode(t, err, "BAD_USER_INPUT", "")
		_, err = client.CreateCaseFileItem(ctx, bob, id, "Nowhere", json.RawMessage(`{}`))
		expectCode(t, err, "BAD_USER_INPUT", "The path 'Nowhere' is invalid, since the part 'Nowhere' is not defined in the case file")
		del, err := client.DeleteCaseFileItem(ctx, bob, id, "Application")
		if err != nil {
			t.Fatal(err)
		}
		if f := fileOf(del.DeleteCaseFileItem.CaseFile); f["Application"] != nil {
			t.Fatalf("after delete: %v", f)
		}
		_, err = client.UpdateCaseFileItem(ctx, env.GraphQL("zed"), id, "Application", json.RawMessage(`{}`))
		expectCode(t, err, "NOT_FOUND", "A case with id '"+id+"' cannot be found.")

		// The permit model has no user event: raising one by a name that
		// does not exist is refused.
		_, err = client.RaiseUserEvent(ctx, bob, id, "Nothing")
		expectCode(t, err, "BAD_USER_INPUT", "There is no plan item with identifier 'Nothing' in case "+id)
	})
}

// TestStartCaseForOthers: a case started for a team the starter is not in
// is started; the starter gets its id, and no more.
func TestStartCaseForOthers(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		setupPermit(t, env)
		resp, err := client.StartCaseBare(ctx, env.GraphQL("alice"), client.StartCaseInput{Definition: "permit", Tenant: ptr("acme"),
			CaseInstanceId: ptr("for_bob"), Team: []client.CaseTeamMemberInput{{MemberId: "bob", IsOwner: ptr(true)}}})
		if err != nil || resp.StartCase.Id != "for_bob" || resp.StartCase.Name != "BuildingPermit" {
			t.Fatalf("start for bob: %+v %v", resp, err)
		}
		if _, err := client.Case(ctx, env.GraphQL("bob"), "for_bob"); err != nil {
			t.Fatal(err)
		}
		_, err = client.Case(ctx, env.GraphQL("alice"), "for_bob")
		expectCode(t, err, "NOT_FOUND", "")
	})
}
