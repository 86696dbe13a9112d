// Package dbtest gives each test a database of its own: a fresh schema in
// the test PostgreSQL, or a fresh SQLite file, migrated and dropped when the
// test ends.
package dbtest

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver

	"github.com/casegraph/casegraph/db"
)

// DefaultDatabaseURL is the PostgreSQL the tests use unless
// TEST_DATABASE_URL names another: the local server CI starts.
const DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// DatabaseURL is the test PostgreSQL's URL. TEST_DATABASE_URL=none runs
// the suites on SQLite only, for a machine without PostgreSQL; CI never
// sets it, so there a missing PostgreSQL fails the run.
func DatabaseURL() string {
	return cmp.Or(os.Getenv("TEST_DATABASE_URL"), DefaultDatabaseURL)
}

// Flavors are the databases every integration suite runs against.
func Flavors() []db.Dialect {
	if DatabaseURL() == "none" {
		return []db.Dialect{db.SQLite}
	}
	return []db.Dialect{db.Postgres, db.SQLite}
}

// URL returns the DATABASE_URL of a new, empty database of the flavor,
// removed when the test ends.
func URL(tb testing.TB, flavor db.Dialect) string {
	tb.Helper()
	if flavor == db.SQLite {
		return "sqlite:" + filepath.Join(tb.TempDir(), "casegraph.db")
	}
	base := DatabaseURL()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		tb.Fatalf("open test PostgreSQL %s: %v", base, err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	schema := "test_" + randomHex(8)
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		tb.Fatalf("test PostgreSQL at %s is not usable (%v): start it (see .ci/run) or set TEST_DATABASE_URL", base, err)
	}
	tb.Cleanup(func() {
		admin, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer admin.Close()
		_, _ = admin.Exec("DROP SCHEMA " + schema + " CASCADE")
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Open returns a migrated database of the flavor for this test.
func Open(tb testing.TB, flavor db.Dialect) *db.DB {
	tb.Helper()
	d, err := db.Open(context.Background(), URL(tb, flavor), "")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Close() })
	if _, err := d.Migrate(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return d
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// MissingDatabaseURL is the test PostgreSQL's URL with a database name no
// database has; the test is skipped where there is no PostgreSQL.
func MissingDatabaseURL(tb testing.TB) string {
	tb.Helper()
	if DatabaseURL() == "none" {
		tb.Skip("TEST_DATABASE_URL=none: no PostgreSQL")
	}
	u, err := url.Parse(DatabaseURL())
	if err != nil {
		tb.Fatal(err)
	}
	u.Path = "/casegraph_no_such_database"
	return u.String()
}
