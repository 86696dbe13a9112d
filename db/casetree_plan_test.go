package db_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

// treeQueries records the statements that walk a case tree down.
type treeQueries struct {
	mu      sync.Mutex
	queries []string
}

func (c *treeQueries) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (c *treeQueries) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if strings.Contains(e.Query, "parent_case_id IN") {
		c.mu.Lock()
		c.queries = append(c.queries, e.Query)
		c.mu.Unlock()
	}
}

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
	capture := &treeQueries{}
	//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
	d.AddQueryHook(capture)
	ids, err := db.CaseTreeIDs(ctx, d, "c1")
	must(t, err)
	if len(ids) != 151 {
		t.Fatalf("the tree of c1 has %d cases, want 151", len(ids))
	}
	capture.mu.Lock()
	queries := slices.Clone(capture.queries)
	capture.mu.Unlock()
	if len(queries) < 2 {
		t.Fatalf("the walk ran %d statements on parent_case_id, want the root's level and its sub cases'", len(queries))
	}
	must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		// Whether the index can serve at all, whatever the table's size.
		if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
			return err
		}
		for _, q := range queries {
			var plan []string
			if err := tx.NewRaw("EXPLAIN "+q).Scan(ctx, &plan); err != nil {
				return err
			}
			if p := strings.Join(plan, "\n"); !strings.Contains(p, "cases_parent") {
				t.Errorf("%.120s… does not use cases_parent:\n%s", q, p)
			}
		}
		return nil
	}))
}
