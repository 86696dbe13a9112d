package resolvers_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

// TestClientDisconnectStopsQuery: a GraphQL query whose SQL statement
// cannot finish (the test holds an exclusive lock on the cases table)
// is abandoned by its client. The request's context is cancelled, and the
// server's backend stops running the statement within a second, while the
// lock that blocked it is still held: the work was cancelled, it did not
// end on its own.
func TestClientDisconnectStopsQuery(t *testing.T) {
	if dbtest.DatabaseURL() == "none" {
		t.Skip("PostgreSQL only: pg_stat_activity shows the server's statements")
	}
	env := servertest.Start(t, db.Postgres)
	deployIncident(t, env)
	id, _ := startIncident(t, env)

	admin := openAdmin(t, env)
	tx, err := admin.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.Exec("LOCK TABLE cases IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}

	hangUp, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan graphQLAnswer, 1)
	go func() {
		done <- sendGraphQL(hangUp, env, "alice", fmt.Sprintf(`{ case(id: %q) { id caseFile } }`, id))
	}()
	pid := dbtest.BlockedBackend(t, admin, "cases", id)

	cancel()
	if got := <-done; got.err == nil {
		t.Fatalf("the request was answered while its statement was blocked: %d %+v", got.status, got.body)
	}
	hungUp := time.Now()
	dbtest.StatementStopped(t, admin, pid, id, time.Second)
	t.Logf("the statement stopped %v after the client hung up", time.Since(hungUp))

	// The lock was held throughout; released, the server answers again.
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	_, body := postGraphQL(t, env, "alice", fmt.Sprintf(`{ case(id: %q) { id } }`, id))
	if len(body.Errors) != 0 {
		t.Fatalf("after the disconnect: %+v", body.Errors)
	}
}
