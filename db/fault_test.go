package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

// TestUnavailableWhenDatabaseGone: a database dropped under a running
// server refuses new connections (SQLSTATE 3D000); requests must get the
// 503 of a database that is down, not a 500.
func TestUnavailableWhenDatabaseGone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := db.Open(ctx, dbtest.MissingDatabaseURL(t), "")
	if err == nil {
		t.Fatal("opened a database that does not exist")
	}
	if !db.IsUnavailable(err) {
		t.Errorf("connecting to a database that does not exist: %v is not unavailable", err)
	}
}
