package db_test

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

// TestCaseTrees: the root lock every command in a tree takes first, the
// tree walk, and plan item ids that a sub case's case plan shares with
// its case task.
func TestCaseTrees(t *testing.T) {
	for _, flavor := range dbtest.Flavors() {
		t.Run(string(flavor), func(t *testing.T) {
			t.Parallel()
			open := func(t *testing.T) *db.DB { return dbtest.Open(t, flavor) }
			d := setup(t, open)
			newCase(t, d, caseSpec{id: "root", name: "R"})
			newCase(t, d, caseSpec{id: "s1", name: "S", parent: "root"})
			newCase(t, d, caseSpec{id: "s2", name: "S", parent: "root"})
			newCase(t, d, caseSpec{id: "other", name: "O"})

			ids, err := db.CaseTreeIDs(ctx, d, "root")
			must(t, err)
			wantIDs(t, "tree of root", ids, []string{"root", "s1", "s2"})
			err = d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				_, err := db.LockCaseRoot(ctx, tx, d.Flavor, "nope", false)
				return err
			})
			wantErr(t, "the root of an unknown case", err, db.ErrNotFound)

			must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				root, err := db.LockCaseRoot(ctx, tx, d.Flavor, "s1", false)
				if err != nil || root != "root" {
					t.Errorf("root of s1: %q %v", root, err)
				}
				if d.Flavor != db.Postgres {
					return nil
				}
				// A command on the other sub case queues behind it; one in
				// another tree does not.
				err = d.InTx(ctx, func(ctx context.Context, other bun.Tx) error {
					_, err := db.LockCaseRoot(ctx, other, d.Flavor, "s2", true)
					return err
				})
				wantErr(t, "locking the root held through s1", err, db.ErrLocked)
				return d.InTx(ctx, func(ctx context.Context, other bun.Tx) error {
					_, _, err := db.LoadCaseIfFree(ctx, other, d.Flavor, "other")
					return err
				})
			}))

			// A case plan may share its id with another case's plan item
			// (the case task that started it); other plan items may not.
			insert := func(caseID, typ string) error {
				_, err := d.ExecContext(ctx, `INSERT INTO plan_items (id, case_id, position, definition_id, name, type, stage_id, idx, state,
					history_state, transition, is_required, is_repeating, created_on, last_modified, modified_by)
					VALUES ('s1', ?, 9, 'ct', 'Task', ?, ?, 0, 'Active', 'Available', 'Start', FALSE, FALSE, ?, ?, 'alice')`,
					caseID, typ, caseID, t0, t0)
				return err
			}
			must(t, insert("root", "CaseTask"))
			err = insert("other", "HumanTask")
			if err == nil {
				t.Error("a second task plan item with id s1 was stored")
			}
		})
	}
}
