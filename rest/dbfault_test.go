package rest_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

// TestDatabaseTerminatedMidCommand: PostgreSQL terminates the connection
// of a command halfway through its transaction (after the case row and the
// events are written, while it waits for the case file row). The client
// gets 503 with Retry-After, not 500, and nothing of the command is left.
func TestDatabaseTerminatedMidCommand(t *testing.T) {
	if dbtest.DatabaseURL() == "none" {
		t.Skip("PostgreSQL only")
	}
	env := servertest.Start(t, db.Postgres)
	id := setupPermit(t, env)
	before := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/history/events", User: "alice"}).Body

	// A connection of the test's own, on the server's schema, holds the
	// case file row.
	lock, err := sql.Open("pgx", env.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	ctx := context.Background()
	tx, err := lock.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM case_files WHERE case_id = $1 FOR UPDATE", id); err != nil {
		t.Fatal(err)
	}

	done := make(chan *servertest.Response, 1)
	go func() {
		done <- env.Do(servertest.Request{Method: "PUT", Path: "/cases/" + id + "/casefile/update/Application", User: "bob",
			Body: map[string]any{"Floors": 9}})
	}()
	// Wait (bounded) until the command's backend blocks on that row, then
	// terminate it as an administrator would.
	pid := dbtest.BlockedBackend(t, lock, "case_files", id)
	var terminated bool
	if err := lock.QueryRowContext(ctx, "SELECT pg_terminate_backend($1)", pid).Scan(&terminated); err != nil || !terminated {
		t.Fatalf("terminate backend %d: %v %v", pid, terminated, err)
	}
	resp := <-done
	if resp.Status != 503 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("got %d %q (Retry-After %q), want 503 with Retry-After", resp.Status, resp.Body, resp.Header.Get("Retry-After"))
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}

	// Nothing half-applied: the events and the case file are as before.
	if after := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/history/events", User: "alice"}).Body; after != before {
		t.Fatalf("events changed by the failed command:\nbefore %s\nafter  %s", before, after)
	}
	file := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/casefile", User: "alice"}).Body
	if strings.Contains(file, `"Floors":9`) {
		t.Fatalf("the failed command's case file was stored: %s", file)
	}
	// And the server recovers: the same command now succeeds.
	expect(t, env.Do(servertest.Request{Method: "PUT", Path: "/cases/" + id + "/casefile/update/Application", User: "bob",
		Body: map[string]any{"Floors": 9}}), 200, "")
}
