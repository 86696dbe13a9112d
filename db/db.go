// Package db stores CaseGraph's data with bun, in PostgreSQL or in an
// embedded SQLite file. It owns the row types, the migrations and the SQL;
// callers get plain values and precise errors (ErrNotFound, ErrExists,
// ErrStaleVersion) and compose queries inside one transaction through
// bun.IDB.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" database/sql driver
)

// Dialect names the SQL flavour a DB speaks.
type Dialect string

// The dialects CaseGraph supports.
const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

// Errors returned by the query functions; service classifies them.
var (
	// ErrNotFound is returned when the addressed row does not exist.
	ErrNotFound = errors.New("db: not found")
	// ErrExists is returned when a row to be created already exists.
	ErrExists = errors.New("db: already exists")
	// ErrStaleVersion is returned when an optimistic version check fails:
	// another command changed the row since it was read.
	ErrStaleVersion = errors.New("db: stale version")
	// ErrRetry is returned when a command failed for its connection's sake
	// and nothing of it was written: run it again.
	ErrRetry = errors.New("db: the connection lost its prepared writes")
)

// maxIdleConns is how many PostgreSQL connections the pool keeps idle.
const maxIdleConns = 10

// DB is an open database with its dialect.
type DB struct {
	*bun.DB
	Flavor Dialect // which SQL the database speaks

	startsOnce sync.Once
	starts     *caseStarts // see caseStarts
}

// Open connects to the database named by url: a postgres:// or
// postgresql:// URL selects PostgreSQL; an empty url selects the embedded
// SQLite file casegraph.db in dataDir (created when missing); sqlite:PATH or
// file:PATH names another SQLite file. Open pings the database before it
// returns.
func Open(ctx context.Context, dsn, dataDir string) (*DB, error) {
	var (
		d   *DB
		err error
	)
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		d, err = openPostgres(dsn)
	case dsn == "":
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return nil, fmt.Errorf("db: create data dir: %w", err)
		}
		d, err = openSQLite(filepath.Join(dataDir, "casegraph.db"))
	case strings.HasPrefix(dsn, "sqlite:"):
		d, err = openSQLite(strings.TrimPrefix(dsn, "sqlite:"))
	case strings.HasPrefix(dsn, "file:"):
		d, err = openSQLite(strings.TrimPrefix(dsn, "file:"))
	default:
		return nil, fmt.Errorf("db: unsupported database URL %q: use postgres://… or leave it empty for the embedded SQLite file", redact(dsn))
	}
	if err != nil {
		return nil, err
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		err := d.PingContext(pingCtx)
		if err == nil {
			return d, nil
		}
		// A connection's first statements switch the file to WAL, which
		// answers SQLITE_BUSY at once, without the busy timeout, while
		// another process's connection is switching it too (servers
		// started together on one new file, TestMigrateTogether).
		if d.Flavor != SQLite || !strings.Contains(err.Error(), "SQLITE_BUSY") || !sleepCtx(pingCtx, 20*time.Millisecond) {
			d.Close()
			return nil, fmt.Errorf("db: connect to %s: %w", d.Flavor, err)
		}
	}
}

// sleepCtx waits for d, or until ctx ends: false then.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func openPostgres(dsn string) (*DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("db: open postgres: %w", err)
	}
	// Only what the URL does not choose itself: its query parameters
	// (a password or database name may hold any text).
	var params url.Values
	if u, err := url.Parse(dsn); err == nil {
		params = u.Query()
	}
	if !params.Has("default_query_exec_mode") {
		// bun sends every statement with its values inlined, so each text
		// is new: pgx's default (prepare each text, then run it, caching
		// the statement) costs a round trip and a server-side prepared
		// statement per query for nothing. The simple protocol runs it in
		// one.
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	if !params.Has("jit") {
		// JIT compiling a plan pays off for long analytical queries, not
		// for a command's millisecond statements, and the planner decides
		// on its cost estimates: on tables without statistics yet (a bulk
		// load before autovacuum came by) it compiled for two seconds to
		// run a list query of 76 ms.
		cfg.RuntimeParams["jit"] = "off"
	}
	// The statements of the hot paths (statement) are prepared once per
	// connection, unless the URL chose a mode for every query or turned
	// pgx's statement cache off (statement_cache_capacity=0, as for a
	// pooler that cannot keep prepared statements): pgx refuses the
	// cache-statement mode without a cache.
	prepare := !params.Has("default_query_exec_mode") && cfg.StatementCacheCapacity > 0
	sqldb := sql.OpenDB(paramConnector{Connector: stdlib.GetConnector(*cfg), prepare: prepare})
	sqldb.SetMaxOpenConns(20)
	sqldb.SetMaxIdleConns(maxIdleConns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	return &DB{DB: bun.NewDB(sqldb, pgdialect.New()), Flavor: Postgres}, nil
}

func openSQLite(path string) (*DB, error) {
	// _txlock=immediate makes every transaction take the write lock when it
	// begins: a deferred transaction that upgrades from read to write can
	// fail with SQLITE_BUSY at once, whatever the busy timeout.
	q := url.Values{}
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	q.Set("_time_format", "sqlite")
	sqldb, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("db: open sqlite: %w", err)
	}
	// SQLite has one writer; a few connections let reads run beside it.
	sqldb.SetMaxOpenConns(4)
	return &DB{DB: bun.NewDB(sqldb, sqlitedialect.New()), Flavor: SQLite}, nil
}

// redact hides a password in a URL before it is shown.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	return u.Redacted()
}

// InTx runs fn in one transaction: committed when fn returns nil, rolled
// back otherwise.
func (d *DB) InTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	return d.RunInTx(ctx, nil, fn)
}

// Ping reports whether the database answers.
func (d *DB) Ping(ctx context.Context) error {
	return d.PingContext(ctx)
}
