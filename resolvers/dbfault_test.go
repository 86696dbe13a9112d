package resolvers_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/graph/client"
)

// openAdmin opens a connection of the test's own on the server's database
// (and schema), to hold locks and watch the server's backends.
func openAdmin(t *testing.T, env *servertest.Env) *sql.DB {
	t.Helper()
	conn, err := sql.Open("pgx", env.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestDatabaseTerminatedMidMutation: PostgreSQL terminates the connection
// of a GraphQL mutation halfway through its transaction (while it waits
// for the case file row). The client gets the error with code UNAVAILABLE,
// nothing of the mutation is stored, and the same mutation then succeeds.
func TestDatabaseTerminatedMidMutation(t *testing.T) {
	if dbtest.DatabaseURL() == "none" {
		t.Skip("PostgreSQL only")
	}
	env := servertest.Start(t, db.Postgres)
	deployIncident(t, env)
	id, _ := startIncident(t, env)
	before, err := client.CaseWithHistory(ctx, env.GraphQL("alice"), id)
	if err != nil {
		t.Fatal(err)
	}
	fileBefore, err := client.Case(ctx, env.GraphQL("alice"), id)
	if err != nil {
		t.Fatal(err)
	}

	admin := openAdmin(t, env)
	tx, err := admin.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.Exec("SELECT 1 FROM case_files WHERE case_id = $1 FOR UPDATE", id); err != nil {
		t.Fatal(err)
	}

	mutation := fmt.Sprintf(`mutation { updateCaseFileItem(caseId: %q, path: "Incident", value: {Severity: 1}) { id caseFile } }`, id)
	done := make(chan graphQLAnswer, 1)
	go func() { done <- sendGraphQL(context.Background(), env, "alice", mutation) }()
	pid := dbtest.BlockedBackend(t, admin, "case_files", id)
	var terminated bool
	if err := admin.QueryRow("SELECT pg_terminate_backend($1)", pid).Scan(&terminated); err != nil || !terminated {
		t.Fatalf("terminate backend %d: %v %v", pid, terminated, err)
	}
	got := <-done
	if got.err != nil {
		t.Fatal(got.err)
	}
	if len(got.body.Errors) != 1 || got.body.Errors[0].Extensions["code"] != "UNAVAILABLE" {
		t.Fatalf("status %d, errors %+v, want one error with code UNAVAILABLE", got.status, got.body.Errors)
	}
	if msg := got.body.Errors[0].Message; strings.Contains(msg, "SQLSTATE") || strings.Contains(msg, "57P01") {
		t.Fatalf("the database's error leaks to the client: %q", msg)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}

	// Nothing half-applied: the history and the case file are as before.
	after, err := client.CaseWithHistory(ctx, env.GraphQL("alice"), id)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, before), mustJSON(t, after); a != b {
		t.Fatalf("history changed by the failed mutation:\nbefore %s\nafter  %s", a, b)
	}
	fileAfter, err := client.Case(ctx, env.GraphQL("alice"), id)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, fileBefore.Case.CaseFile), mustJSON(t, fileAfter.Case.CaseFile); a != b || fileBefore.Case.LastModified != fileAfter.Case.LastModified {
		t.Fatalf("the failed mutation changed the case:\nbefore %s %v\nafter  %s %v", a, fileBefore.Case.LastModified, b, fileAfter.Case.LastModified)
	}
	// And the server recovers: the same mutation now succeeds.
	_, body := postGraphQL(t, env, "alice", mutation)
	if len(body.Errors) != 0 || !strings.Contains(strings.ReplaceAll(string(body.Data), `\"`, `"`), `"Severity":1`) {
		t.Fatalf("after recovery: %s %+v", body.Data, body.Errors)
	}
}

type graphQLAnswer struct {
	status int
	body   graphQLBody
	err    error
}

// sendGraphQL is postGraphQL for another goroutine than the test's, and
// with a context the caller may cancel to hang up.
func sendGraphQL(ctx context.Context, env *servertest.Env, user, query string) graphQLAnswer {
	b, _ := json.Marshal(map[string]any{"query": query})
	req, err := http.NewRequestWithContext(ctx, "POST", env.URL+"/graphql", bytes.NewReader(b))
	if err != nil {
		return graphQLAnswer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+env.Issuer.Token(user))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return graphQLAnswer{err: err}
	}
	defer resp.Body.Close()
	a := graphQLAnswer{status: resp.StatusCode}
	a.err = json.NewDecoder(resp.Body).Decode(&a.body)
	return a
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
