package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

func readyz(t *testing.T, admin http.Handler) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	admin.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	return rec.Code, rec.Body.String()
}

// TestReadyzMigrations: a database that lacks a migration of this build
// (another replica still migrating) is not ready.
func TestReadyzMigrations(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		admin, d, ctx := env.Server.AdminHandler(), env.Server.DB(), context.Background()
		if code, body := readyz(t, admin); code != 200 {
			t.Fatalf("readyz: %d %s", code, body)
		}
		var last string
		if err := d.NewRaw("SELECT max(name) FROM bun_migrations").Scan(ctx, &last); err != nil {
			t.Fatal(err)
		}
		if _, err := d.ExecContext(ctx, "UPDATE bun_migrations SET name = name || '_away' WHERE name = ?", last); err != nil {
			t.Fatal(err)
		}
		if code, body := readyz(t, admin); code != http.StatusServiceUnavailable || !strings.Contains(body, last) {
			t.Errorf("readyz without migration %s: %d %s", last, code, body)
		}
		if _, err := d.ExecContext(ctx, "UPDATE bun_migrations SET name = ? WHERE name = ?", last, last+"_away"); err != nil {
			t.Fatal(err)
		}
		if code, body := readyz(t, admin); code != 200 {
			t.Errorf("readyz after the migration is back: %d %s", code, body)
		}
	})
}

// TestReadyzDatabaseDown: while the database cannot be reached, /readyz
// answers 503, and 200 again once it can; /livez answers throughout.
func TestReadyzDatabaseDown(t *testing.T) {
	if !slices.Contains(dbtest.Flavors(), db.Postgres) {
		t.Skip("needs PostgreSQL")
	}
	proxy := dbtest.NewProxy(t, "")
	env := servertest.Start(t, db.Postgres, func(c *server.Config) {
		c.DatabaseURL = proxy.Via(t, c.DatabaseURL)
	})
	admin := env.Server.AdminHandler()
	if code, body := readyz(t, admin); code != 200 {
		t.Fatalf("readyz: %d %s", code, body)
	}
	proxy.SetDown(true)
	if code, body := readyz(t, admin); code != http.StatusServiceUnavailable || !strings.Contains(body, "database unreachable") {
		t.Errorf("readyz with the database down: %d %s", code, body)
	}
	if got := scrape(t, admin, "/livez"); got != "ok" {
		t.Errorf("livez with the database down: %q", got)
	}
	proxy.SetDown(false)
	if code, body := readyz(t, admin); code != 200 {
		t.Errorf("readyz with the database back: %d %s", code, body)
	}
}
