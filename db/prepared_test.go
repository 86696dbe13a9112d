package db_test

import (
	"context"
	"slices"
	"testing"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/uptrace/bun"
)

// TestStatementsArePrepared checks that the hot paths' statements are
// prepared once per connection on PostgreSQL and run with their values
// bound, and that a DATABASE_URL choosing its own query mode is obeyed:
// then nothing is prepared, and the answers are the same.
func TestStatementsArePrepared(t *testing.T) {
	if !slices.Contains(dbtest.Flavors(), db.Postgres) {
		t.Skip("prepared statements are PostgreSQL's")
	}
	for _, tc := range []struct {
		name, params string
		prepared     int
	}{
		{"by default", "", 1},
		{"mode chosen by the URL", "&default_query_exec_mode=simple_protocol", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := setup(t, func(t *testing.T) *db.DB {
				d, err := db.Open(ctx, dbtest.URL(t, db.Postgres)+tc.params, "")
				must(t, err)
				t.Cleanup(func() { d.Close() })
				_, err = d.Migrate(ctx)
				must(t, err)
				return d
			})
			must(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				for range 3 {
					u, err := db.GetTenantUser(ctx, tx, "acme", "alice")
					if err != nil {
						return err
					}
					if u.UserID != "alice" || !u.IsOwner || !slices.Equal(u.Roles, []string{"Clerk"}) {
						t.Errorf("GetTenantUser = %+v", u)
					}
				}
				if _, err := db.GetTenantUser(ctx, tx, "acme", "nobody"); err != db.ErrNotFound {
					t.Errorf("GetTenantUser(nobody) = %v, want ErrNotFound", err)
				}
				var n int
				err := tx.NewRaw("SELECT COUNT(*) FROM pg_prepared_statements WHERE statement LIKE '%FROM tenant_users AS u LEFT JOIN%'").Scan(ctx, &n)
				if n != tc.prepared {
					t.Errorf("the account statement is prepared %d times on the connection, want %d", n, tc.prepared)
				}
				return err
			}))
		})
	}
}
