package db_test

import (
	"context"
	"sync"
	"testing"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

// TestMigrateTogether starts the migrations of several replicas at once on
// a new database: each succeeds, and the migrations are applied once.
func TestMigrateTogether(t *testing.T) {
	for _, flavor := range dbtest.Flavors() {
		t.Run(string(flavor), func(t *testing.T) {
			url := dbtest.URL(t, flavor)
			const replicas = 4
			applied := make([][]string, replicas)
			errs := make([]error, replicas)
			var wg sync.WaitGroup
			for i := range replicas {
				wg.Add(1)
				go func() {
					defer wg.Done()
					d, err := db.Open(context.Background(), url, "")
					if err != nil {
						errs[i] = err
						return
					}
					defer d.Close()
					applied[i], errs[i] = d.Migrate(context.Background())
				}()
			}
			wg.Wait()
			total := 0
			for i, err := range errs {
				if err != nil {
					t.Errorf("replica %d: %v", i, err)
				}
				if len(applied[i]) > 0 {
					total++
				}
			}
			if total != 1 {
				t.Errorf("%d replicas applied migrations, want exactly 1: %v", total, applied)
			}
		})
	}
}
