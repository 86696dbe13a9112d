package db_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

// queryCapture records the last SELECT a database ran.
type queryCapture struct {
	mu   sync.Mutex
	last string
}

func (c *queryCapture) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (c *queryCapture) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if strings.HasPrefix(e.Query, "SELECT") {
		c.mu.Lock()
		c.last = e.Query
		c.mu.Unlock()
	}
}

// TestListPlansAfterBulkLoad bulk-loads a PostgreSQL schema — CASEGRAPH_PLAN_CASES
// cases (at least 1,000), alice in every tenth, one task each — with
// plain SQL and no ANALYZE (autovacuum off on the tables, so the planner
// has no statistics, as right after a bulk load), then runs the first
// page of the case list, the task list, the inbox and the task count as
// alice, logs their plans and times, and again after ANALYZE. Each must
// take less than CASEGRAPH_PLAN_LIMIT (default 100ms) both times.
//
// It takes about a minute for 200,000 cases on a small machine, so it
// runs only when CASEGRAPH_PLAN_CASES is set.
func TestListPlansAfterBulkLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CASEGRAPH_PLAN_CASES"))
	if n == 0 || dbtest.DatabaseURL() == "none" {
		t.Skip("set CASEGRAPH_PLAN_CASES (e.g. 200000) to bulk-load PostgreSQL and check the list plans")
	}
	n = max(n, 1000)
	limit := 100 * time.Millisecond
	if v, err := time.ParseDuration(os.Getenv("CASEGRAPH_PLAN_LIMIT")); err == nil {
		limit = v
	}
	d := dbtest.Open(t, db.Postgres)
	capture := &queryCapture{}
	//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
	d.AddQueryHook(capture)
	start := time.Now()
	for _, q := range []string{
		`ALTER TABLE cases SET (autovacuum_enabled = false)`,
		`ALTER TABLE case_team_members SET (autovacuum_enabled = false)`,
		`ALTER TABLE case_team_roles SET (autovacuum_enabled = false)`,
		`ALTER TABLE tasks SET (autovacuum_enabled = false)`,
		`ALTER TABLE tenant_users SET (autovacuum_enabled = false)`,
		`ALTER TABLE tenant_user_roles SET (autovacuum_enabled = false)`,
		`INSERT INTO tenants (name, created_at, created_by, last_modified, modified_by) VALUES ('acme', now(), 'admin', now(), 'admin')`,
		`INSERT INTO definition_documents (hash, xml, created_at) VALUES ('h', '<definitions/>', now())`,
		`INSERT INTO tenant_users (tenant, user_id, is_owner) SELECT 'acme', 'u' || i, i = 0 FROM generate_series(0, 999) AS i`,
		`INSERT INTO tenant_users (tenant, user_id) VALUES ('acme', 'alice'), ('acme', 'carol'), ('acme', 'dave')`,
		`INSERT INTO tenant_user_roles (tenant, user_id, role) SELECT 'acme', 'u' || i, 'Clerk' FROM generate_series(0, 99) AS i`,
		`INSERT INTO cases (id, tenant, name, definition_name, definition_hash, state, root_case_id, created_on, created_by,
			last_modified, modified_by, version, snapshot)
			SELECT 'c' || i, 'acme', 'Review', 'review.xml', 'h', 'Active', 'c' || i, now(), 'u' || (i % 1000),
			timestamptz '2026-01-01' + i * interval '1 second', 'u' || (i % 1000), 1, '{}' FROM generate_series(1, ?0) AS i`,
		`INSERT INTO case_team_members (case_id, member_type, member_id, is_owner, origin)
			SELECT 'c' || i, 'user', 'u' || (i % 1000), true, 'Tenant' FROM generate_series(1, ?0) AS i`,
		`INSERT INTO case_team_members (case_id, member_type, member_id, origin)
			SELECT 'c' || i, 'user', 'alice', 'Tenant' FROM generate_series(10, ?0, 10) AS i`,
		`INSERT INTO case_team_members (case_id, member_type, member_id, origin)
			SELECT 'c' || i, 'user', 'carol', 'Tenant' FROM generate_series(1000, ?0, 1000) AS i`,
		`INSERT INTO case_team_roles (case_id, member_type, member_id, role)
			SELECT case_id, member_type, member_id, 'Worker' FROM case_team_members`,
		`INSERT INTO tasks (id, case_id, tenant, case_name, task_name, task_state, role, assignee, owner, created_on, created_by,
			activated_on, last_modified, modified_by, input, output, task_model)
			SELECT 't' || i, 'c' || i, 'acme', 'Review', 'Review', CASE WHEN i % 2 = 0 THEN 'Unassigned' ELSE 'Assigned' END, 'Worker',
			CASE WHEN i % 2 = 0 THEN '' ELSE 'u' || (i % 1000) END, CASE WHEN i % 2 = 0 THEN '' ELSE 'u' || (i % 1000) END,
			now(), 'u' || (i % 1000), now(), timestamptz '2026-01-01' + i * interval '1 second', 'u' || (i % 1000), '{}', '{}', ''
			FROM generate_series(1, ?0) AS i`,
	} {
		if _, err := d.ExecContext(ctx, q, n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Logf("loaded %d cases in %s", n, time.Since(start).Round(time.Millisecond))

	lists := []struct {
		name string
		run  func() error
	}{
		{"GET /cases (first page of 100)", func() error {
			_, err := db.ListCases(ctx, d, "alice", db.CaseFilter{Limit: 100}, false)
			return err
		}},
		{"GET /tasks (first page of 100)", func() error {
			_, err := db.ListTasks(ctx, d, "alice", db.TaskFilter{Limit: 100})
			return err
		}},
		{"inbox: unassigned tasks of a tenant (first 20)", func() error {
			_, err := db.ListTasks(ctx, d, "alice", db.TaskFilter{Tenant: "acme", TaskStates: []string{"Unassigned"}, Limit: 20})
			return err
		}},
		{"inbox: tasks assigned to alice (first 20)", func() error {
			_, err := db.ListTasks(ctx, d, "alice", db.TaskFilter{Assignee: "alice", Limit: 20})
			return err
		}},
		{"carol (in 0.1 % of the cases): inbox, unassigned tasks of the tenant (first 20)", func() error {
			_, err := db.ListTasks(ctx, d, "carol", db.TaskFilter{Tenant: "acme", TaskStates: []string{"Unassigned"}, Limit: 20})
			return err
		}},
		{"carol: GET /cases (first page of 100)", func() error {
			_, err := db.ListCases(ctx, d, "carol", db.CaseFilter{Limit: 100}, false)
			return err
		}},
		{"dave (an account in no case): inbox, unassigned tasks of the tenant (first 20)", func() error {
			_, err := db.ListTasks(ctx, d, "dave", db.TaskFilter{Tenant: "acme", TaskStates: []string{"Unassigned"}, Limit: 20})
			return err
		}},
		{"dave: GET /tasks (first page of 100)", func() error {
			_, err := db.ListTasks(ctx, d, "dave", db.TaskFilter{Limit: 100})
			return err
		}},
	}
	for _, phase := range []string{"before ANALYZE", "after ANALYZE"} {
		if phase == "after ANALYZE" {
			if _, err := d.ExecContext(ctx, "ANALYZE"); err != nil {
				t.Fatal(err)
			}
		}
		for _, l := range lists {
			if err := l.run(); err != nil {
				t.Fatalf("%s: %v", l.name, err)
			}
			capture.mu.Lock()
			query := capture.last
			capture.mu.Unlock()
			var plan []string
			if err := d.NewRaw("EXPLAIN (ANALYZE, COSTS OFF) "+query).Scan(ctx, &plan); err != nil {
				t.Fatalf("explain %s: %v", l.name, err)
			}
			took := planTime(plan)
			t.Logf("%s, %s: %s\n%s", l.name, phase, took, strings.Join(plan, "\n"))
			if took > limit {
				t.Errorf("%s, %s: %s, over %s", l.name, phase, took, limit)
			}
		}
	}
}

// planTime reads the execution time an EXPLAIN ANALYZE reports.
func planTime(plan []string) time.Duration {
	for _, line := range plan {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "Execution Time: "); ok {
			var ms float64
			if _, err := fmt.Sscanf(rest, "%f ms", &ms); err == nil {
				return time.Duration(ms * float64(time.Millisecond))
			}
		}
	}
	return 0
}
