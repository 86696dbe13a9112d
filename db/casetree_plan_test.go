package db_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/engine"
)

// TestCaseTreeUsesParentIndex checks that the walk down a case tree
// (archive, delete, tenant deletion) can use cases_parent, partial since
// migration 00017 (only non-empty parents), on a level of more than 100
// sub cases: past 100 values PostgreSQL no longer proves that an IN list
// implies the index's condition, and without the condition in the query
// each level read every case of every tenant.
func TestCaseTreeUsesParentIndex(t *testing.T) {
	if !slices.Contains(dbtest.Flavors(), db.Postgres) {
		t.Skip("the partial index is PostgreSQL's")
	}
	d := setup(t, func(t *testing.T) *db.DB { return dbtest.Open(t, db.Postgres) })
	newCase(t, d, caseSpec{id: "c1", name: "P"})
	_, err := d.ExecContext(ctx, `INSERT INTO cases (id, tenant, name, definition_name, definition_hash, state, failures,
		parent_case_id, root_case_id, created_on, created_by, last_modified, modified_by, version, snapshot)
		SELECT 's' || g, tenant, name, definition_name, definition_hash, state, failures, 'c1', 'c1', created_on, created_by,
		last_modified, modified_by, version, snapshot FROM cases, generate_series(1, 150) AS g WHERE id = 'c1'`)
	must(t, err)
	capture := &dbtest.Statements{Match: "parent_case_id IN"}
	//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
	d.AddQueryHook(capture)
	ids, err := db.CaseTreeIDs(ctx, d, "c1")
	must(t, err)
	if len(ids) != 151 {
		t.Fatalf("the tree of c1 has %d cases, want 151", len(ids))
	}
	queries := capture.All()
	if len(queries) < 2 {
		t.Fatalf("the walk ran %d statements on parent_case_id, want the root's level and its sub cases'", len(queries))
	}
	for i, p := range plansWithoutSeqScan(t, d, queries) {
		if !strings.Contains(p, "cases_parent") {
			t.Errorf("%.120s… does not use cases_parent:\n%s", queries[i], p)
		}
	}
}

// TestPlanItemLookupsUseKeys checks that the lookups of a plan item by
// id alone, case plans included, read only by key since migration 00018
// dropped plan_items_any_id: the other plan items by plan_items_id, a
// case plan (which has its case's id) by the primary key.
func TestPlanItemLookupsUseKeys(t *testing.T) {
	if !slices.Contains(dbtest.Flavors(), db.Postgres) {
		t.Skip("the plans are PostgreSQL's")
	}
	d := setup(t, func(t *testing.T) *db.DB { return dbtest.Open(t, db.Postgres) })
	newCase(t, d, caseSpec{id: "c1", name: "P", members: []engine.Member{user("alice", true)},
		tasks: []*engine.PlanItem{humanTask("t1", "Review", "", "", engine.Unassigned, nil)}})
	capture := &dbtest.Statements{Match: "FROM plan_items WHERE id ="}
	//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
	d.AddQueryHook(capture)
	for _, id := range []string{"c1", "t1"} {
		if got, err := db.CaseOfPlanItem(ctx, d, id); err != nil || got != "c1" {
			t.Errorf("CaseOfPlanItem(%s) = %q %v", id, got, err)
		}
		if got, err := db.PlanItemCase(ctx, d, "alice", id); err != nil || got != "c1" {
			t.Errorf("PlanItemCase(%s) = %q %v", id, got, err)
		}
		if ok, err := db.PlanItemExists(ctx, d, id); err != nil || !ok {
			t.Errorf("PlanItemExists(%s) = %v %v", id, ok, err)
		}
	}
	queries := capture.All()
	if len(queries) != 6 {
		t.Fatalf("captured %d lookups, want 6", len(queries))
	}
	for i, p := range plansWithoutSeqScan(t, d, queries) {
		if strings.Contains(p, "Seq Scan on plan_items") || !strings.Contains(p, "plan_items_id") || !strings.Contains(p, "plan_items_pkey") {
			t.Errorf("%.120s… does not read plan_items by its two keys:\n%s", queries[i], p)
		}
	}
}

// plansWithoutSeqScan returns the plans of queries with sequential scans
// turned off: whether an index can serve at all, whatever the tables' size.
func plansWithoutSeqScan(t *testing.T, d *db.DB, queries []string) []string {
	t.Helper()
	var plans []string
	must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
			return err
		}
		for _, q := range queries {
			var plan []string
			if err := tx.NewRaw("EXPLAIN "+q).Scan(ctx, &plan); err != nil {
				return err
			}
			plans = append(plans, strings.Join(plan, "\n"))
		}
		return nil
	}))
	return plans
}

// TestTaskCaseLookupUsesKeys checks the generic plan (the one PostgreSQL
// keeps for a prepared statement) of a task command's lookup of its case
// with the case and the caller's account (db.TaskCaseWithCase): the
// caller's membership must be read by the team's whole key. Written as a
// join, the plan read every membership of the caller instead (a
// thousand index entries for a user in a thousand cases) and filtered
// them by case.
func TestTaskCaseLookupUsesKeys(t *testing.T) {
	if !slices.Contains(dbtest.Flavors(), db.Postgres) {
		t.Skip("the plans are PostgreSQL's")
	}
	d := setup(t, func(t *testing.T) *db.DB { return dbtest.Open(t, db.Postgres) })
	newCase(t, d, caseSpec{id: "c1", name: "P", members: []engine.Member{user("alice", true)},
		tasks: []*engine.PlanItem{humanTask("t1", "Review", "", "", engine.Unassigned, nil)}})
	capture := &dbtest.Statements{Match: "FROM tasks AS t WHERE t.id ="}
	//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
	d.AddQueryHook(capture)
	for user, member := range map[string]bool{"alice": true, "mallory": false} {
		tc, err := db.TaskCaseWithCase(ctx, d, user, "t1")
		must(t, err)
		if tc.CaseID != "c1" || tc.Member != member || (tc.Case != nil) != member || (tc.Account != nil) != member {
			t.Errorf("TaskCaseWithCase(%s) = %+v, want case c1, member %v with the case and the account", user, tc, member)
		}
	}
	queries := capture.All()
	if len(queries) != 2 {
		t.Fatalf("captured %d lookups, want 2", len(queries))
	}
	var plan []string
	must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range []string{"SET LOCAL plan_cache_mode = force_generic_plan", "SET LOCAL enable_seqscan = off", "PREPARE task_case AS " + queries[0]} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		defer tx.ExecContext(ctx, "DEALLOCATE task_case") //nolint:errcheck
		return tx.NewRaw("EXPLAIN EXECUTE task_case('alice', 't1')").Scan(ctx, &plan)
	}))
	text := strings.Join(plan, "\n")
	for i, line := range plan {
		if strings.Contains(line, " on case_team_members") && (i+1 == len(plan) || !strings.Contains(plan[i+1], "case_id = t.case_id")) {
			t.Errorf("the membership is not read by the team's key:\n%s", text)
		}
	}
	if !strings.Contains(text, " on case_team_members") {
		t.Errorf("no membership read in the plan:\n%s", text)
	}
}
