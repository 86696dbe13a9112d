package resolvers_test

import (
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

// TestKeysetCursorsSurviveInserts: cases started between two pages do not
// shift the next page (offset cursors would repeat a case), for every
// sort; a cursor used with another sort is refused.
func TestKeysetCursorsSurviveInserts(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		setupPermit(t, env)
		start := func() string {
			t.Helper()
			resp, err := client.StartCase(ctx, env.GraphQL("alice"), client.StartCaseInput{Definition: "permit", Tenant: ptr("acme")})
			if err != nil {
				t.Fatal(err)
			}
			return resp.StartCase.Id
		}
		for range 4 {
			start()
		}
		sorts := []*client.CaseFilter{
			nil, // last change, newest first: new cases come first
			{SortBy: ptr(client.CaseSortFieldCreatedOn), SortOrder: ptr(client.SortOrderDesc)},
			{SortBy: ptr(client.CaseSortFieldCaseName)},
			{SortBy: ptr(client.CaseSortFieldFailures), SortOrder: ptr(client.SortOrderAsc)},
			{SortBy: ptr(client.CaseSortFieldId), SortOrder: ptr(client.SortOrderAsc)},
		}
		for _, f := range sorts {
			total := len(mustCases(t, env, f, 1000, nil).Cases.Edges)
			seen := map[string]bool{}
			var after *string
			for pages := 0; ; pages++ {
				page := mustCases(t, env, f, 2, after)
				for _, e := range page.Cases.Edges {
					if seen[e.Node.Id] {
						t.Fatalf("sort %+v: case %s on two pages", f, e.Node.Id)
					}
					seen[e.Node.Id] = true
				}
				if !page.Cases.PageInfo.HasNextPage || pages > 10 {
					break
				}
				after = page.Cases.PageInfo.EndCursor
				if pages == 0 {
					// Inserted between pages: sorts before the cursor for the
					// default and createdOn sorts, anywhere for the others.
					start()
				}
			}
			if len(seen) < total {
				t.Fatalf("sort %+v: saw %d cases, had %d before the inserts", f, len(seen), total)
			}
		}
		// totalCount counts every page, with the filter.
		page := mustCases(t, env, nil, 2, nil)
		if all := mustCases(t, env, nil, 1000, nil); page.Cases.TotalCount != len(all.Cases.Edges) || page.Cases.TotalCount < 10 {
			t.Fatalf("totalCount %d, %d cases", page.Cases.TotalCount, len(all.Cases.Edges))
		}
		if none := mustCases(t, env, &client.CaseFilter{CaseName: ptr("no such case")}, 2, nil); none.Cases.TotalCount != 0 {
			t.Fatalf("totalCount of no case: %d", none.Cases.TotalCount)
		}
		// A cursor belongs to its sort.
		_, err := client.Cases(ctx, env.GraphQL("alice"), sorts[2], ptr(2), page.Cases.PageInfo.EndCursor)
		expectCode(t, err, "BAD_USER_INPUT", "The cursor belongs to a list sorted by lastmodified desc, not by casename desc: start again without after")
		_, err = client.Cases(ctx, env.GraphQL("alice"), nil, ptr(2), ptr("not a cursor"))
		expectCode(t, err, "BAD_USER_INPUT", "The cursor is not valid: pass the endCursor of the previous page as after")
		// A negative page size is refused, not answered with an empty page.
		_, err = client.Cases(ctx, env.GraphQL("alice"), nil, ptr(-1), nil)
		expectCode(t, err, "BAD_USER_INPUT", "first must not be negative (it is -1)")
		_, err = client.Tasks(ctx, env.GraphQL("alice"), nil, ptr(-5), nil)
		expectCode(t, err, "BAD_USER_INPUT", "first must not be negative (it is -5)")

		// Tasks by due date: some tasks have none (NULL), which sort last.
		var after *string
		seen := map[string]bool{}
		for pages := 0; pages < 20; pages++ {
			tp, err := client.Tasks(ctx, env.GraphQL("alice"), &client.TaskFilter{SortBy: ptr(client.TaskSortFieldDueDate), SortOrder: ptr(client.SortOrderAsc)}, ptr(1), after)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tp.Tasks.Edges {
				if seen[e.Node.Id] {
					t.Fatalf("task %s on two pages", e.Node.Id)
				}
				seen[e.Node.Id] = true
			}
			if !tp.Tasks.PageInfo.HasNextPage {
				break
			}
			after = tp.Tasks.PageInfo.EndCursor
		}
		all, err := client.Tasks(ctx, env.GraphQL("alice"), nil, ptr(1000), nil)
		if err != nil || len(seen) != len(all.Tasks.Edges) || len(seen) < 5 || all.Tasks.TotalCount != len(seen) {
			t.Fatalf("paged %d tasks by due date, %d in all (%v)", len(seen), len(all.Tasks.Edges), err)
		}
	})
}

func mustCases(t *testing.T, env *servertest.Env, f *client.CaseFilter, first int, after *string) *client.CasesResponse {
	t.Helper()
	page, err := client.Cases(ctx, env.GraphQL("alice"), f, ptr(first), after)
	if err != nil {
		t.Fatal(err)
	}
	return page
}
