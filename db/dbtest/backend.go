package dbtest

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"
)

// Until waits until cond holds, checking it whenever a short ticker fires,
// and fails tb when it still does not hold after timeout. The condition is
// a fact the test cannot be told of (PostgreSQL reports a backend's
// waits only in pg_stat_activity), so this is the one place that looks
// again: every test waits through it rather than sleeping in a loop of
// its own.
func Until(tb testing.TB, timeout time.Duration, what string, cond func() (bool, error)) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := cond()
		if err != nil {
			tb.Fatalf("waiting until %s: %v", what, err)
		}
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("%s did not happen within %v", what, timeout)
		case <-tick.C:
		}
	}
}

// BlockedBackend waits (bounded) until a PostgreSQL backend waits on a lock
// of table or of one of its rows while it runs a statement that mentions
// id, and returns its pid. conn is a connection of the test's own on the
// same database (and schema). The lock's table is read from pg_locks (the
// first backend to wait for a row holds a lock on the row's tuple), not
// from the statement's text, which PostgreSQL shows cut after 1 kB: a command's
// writes are one long multi-statement query.
func BlockedBackend(tb testing.TB, conn *sql.DB, table, id string) int {
	tb.Helper()
	var pid int
	Until(tb, 20*time.Second, "a statement on "+table+" for "+id+" waits on a lock", func() (bool, error) {
		err := conn.QueryRow(`SELECT a.pid FROM pg_stat_activity AS a JOIN pg_locks AS l ON l.pid = a.pid
			WHERE a.wait_event_type = 'Lock' AND a.state = 'active' AND a.query LIKE '%' || $2 || '%'
				AND l.relation = $1::regclass AND (l.locktype = 'tuple' OR NOT l.granted)
			LIMIT 1`, table, id).Scan(&pid)
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		return err == nil, err
	})
	return pid
}

// StatementStopped waits (bounded by within) until backend pid no longer
// runs a statement that mentions id.
func StatementStopped(tb testing.TB, conn *sql.DB, pid int, id string, within time.Duration) {
	tb.Helper()
	Until(tb, within, "the backend stops its statement", func() (bool, error) {
		var running bool
		err := conn.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE pid = $1 AND state = 'active' AND query LIKE '%' || $2 || '%')`, pid, id).Scan(&running)
		return !running, err
	})
}
