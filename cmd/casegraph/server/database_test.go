package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/casegraph/casegraph/db/dbtest"
)

// TestOpenDatabaseWaits: an unreachable PostgreSQL is tried again with
// backoff, each try logged, until the wait is over; the error names the URL
// without its password.
func TestOpenDatabaseWaits(t *testing.T) {
	var logs bytes.Buffer
	cfg := Config{DatabaseURL: "postgres://casegraph:s3cret@127.0.0.1:1/app?sslmode=disable"}
	cfg.DatabaseWait = 1500 * time.Millisecond
	start := time.Now()
	_, err := openDatabase(context.Background(), cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	if err == nil {
		t.Fatal("opened a database on port 1")
	}
	if time.Since(start) < time.Second {
		t.Errorf("gave up after %s, before the wait was over", time.Since(start))
	}
	msg := err.Error()
	if strings.Contains(msg, "s3cret") || strings.Contains(logs.String(), "s3cret") {
		t.Errorf("the password leaked: %s\n%s", msg, logs.String())
	}
	if !strings.Contains(msg, "postgres://casegraph:xxxxx@127.0.0.1:1/app") || !strings.Contains(msg, "CASEGRAPH_DATABASE_WAIT") {
		t.Errorf("error = %s", msg)
	}
	if n := strings.Count(logs.String(), "database does not answer yet"); n < 2 {
		t.Errorf("%d tries logged, want several:\n%s", n, logs.String())
	}
}

// TestOpenDatabaseMisconfigured: a database PostgreSQL says does not
// exist is a mistake in the URL; serve exits at once, naming it.
func TestOpenDatabaseMisconfigured(t *testing.T) {
	cfg := Config{DatabaseURL: dbtest.MissingDatabaseURL(t)}
	cfg.DatabaseWait = time.Minute
	start := time.Now()
	_, err := openDatabase(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil {
		t.Fatal("opened a database that does not exist")
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Errorf("waited %s for a database that does not exist", waited)
	}
	if !strings.Contains(err.Error(), "casegraph_no_such_database") {
		t.Errorf("error = %v, want it to name the database", err)
	}
}

func TestDisplayURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                                "the embedded SQLite file",
		"postgres://u:p@h:5432/d":         "postgres://u:xxxxx@h:5432/d",
		"postgres://u@h/d?password=p&x=1": "postgres://u@h/d?password=xxxxx&x=1",
	} {
		if got := displayURL(in); got != want {
			t.Errorf("displayURL(%q) = %q, want %q", in, got, want)
		}
	}
}
