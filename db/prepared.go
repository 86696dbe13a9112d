package db

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// A statement is a query of fixed text whose values travel as parameters,
// for the queries every command runs (the caller's account, the case's
// lock and load, ...). bun writes every value into a statement's text, so
// PostgreSQL parses, analyses and plans each of its statements afresh:
// about a fifth of its time per start case, and for the account query four
// times as long as running it. A statement's text is the same every time:
// on PostgreSQL each connection prepares it once (pgx's statement cache,
// 512 per connection) and runs it with its values bound, and PostgreSQL
// reuses the parse and, once it has seen a few, the plan. On SQLite bun
// inlines the values as for any query.
//
// The statement still goes through bun, so query hooks (tracing, the
// tests' statement counts) see it as any other; its values reach the
// driver beside it in the context, where paramConn picks them up. When
// DATABASE_URL chooses default_query_exec_mode, that mode runs it (with
// the simple protocol pgx binds the values itself, client side).
type statement struct {
	pg, lite string
}

// newStatement makes a statement of a query written with ? placeholders,
// each taking the next value, or with ?0, ?1... naming values by position
// as bun does (not both; and no ? anywhere else: the query is ours and
// fixed).
func newStatement(query string) statement {
	var pg strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] != '?' {
			pg.WriteByte(query[i])
			continue
		}
		j := i + 1
		for j < len(query) && query[j] >= '0' && query[j] <= '9' {
			j++
		}
		if j > i+1 {
			pos, _ := strconv.Atoi(query[i+1 : j])
			pg.WriteString("$" + strconv.Itoa(pos+1))
			i = j - 1
			continue
		}
		n++
		pg.WriteString("$" + strconv.Itoa(n))
	}
	return statement{pg: pg.String(), lite: query}
}

// boundArgsKey holds, in the context of a statement's run, its values.
type boundArgsKey struct{}

type boundArgs struct {
	query string
	args  []any
}

// scan runs the statement and scans its rows into dest as bun does.
func (s statement) scan(ctx context.Context, idb bun.IDB, dest any, args ...any) error {
	if idb.Dialect().Name() != dialect.PG {
		return idb.NewRaw(s.lite, args...).Scan(ctx, dest)
	}
	ctx = context.WithValue(ctx, boundArgsKey{}, &boundArgs{query: s.pg, args: args})
	return idb.NewRaw(s.pg).Scan(ctx, dest)
}

// exec runs the statement for its effect.
func (s statement) exec(ctx context.Context, idb bun.IDB, args ...any) error {
	if idb.Dialect().Name() != dialect.PG {
		_, err := idb.NewRaw(s.lite, args...).Exec(ctx)
		return err
	}
	ctx = context.WithValue(ctx, boundArgsKey{}, &boundArgs{query: s.pg, args: args})
	_, err := idb.NewRaw(s.pg).Exec(ctx)
	return err
}

// paramConnector hands database/sql connections that take a statement's
// values from the context (see statement).
type paramConnector struct {
	driver.Connector
	prepare bool
}

func (c paramConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(*stdlib.Conn)
	if !ok {
		return conn, nil
	}
	pc := &paramConn{stdlibConn: sc, prepare: c.prepare}
	if c.prepare {
		pc.writesPrepared = prepareWrites(ctx, sc.Conn())
	}
	return pc, nil
}

// paramConn is pgx's database/sql connection, with every method of it
// (Conn() too, which LISTEN needs: hence the alias, for a field named Conn
// would hide it), that binds a statement's values when bun passes on its
// text alone.
type paramConn struct {
	*stdlibConn
	prepare bool
	// writesPrepared is whether the connection has the preparedWrites;
	// retried is whether it tried again, once the schema was there.
	writesPrepared, retried bool
}

type stdlibConn = stdlib.Conn

func (c *paramConn) bind(ctx context.Context, query string, args []driver.NamedValue) []driver.NamedValue {
	b, ok := ctx.Value(boundArgsKey{}).(*boundArgs)
	if !ok || len(args) > 0 || b.query != query {
		return args
	}
	named := make([]driver.NamedValue, 0, len(b.args)+1)
	if c.prepare {
		// pgx takes a QueryExecMode before the values as the mode of this
		// one query; the connection's default stays the simple protocol
		// for bun's statements, whose texts never repeat.
		named = append(named, driver.NamedValue{Ordinal: 1, Value: pgx.QueryExecModeCacheStatement})
	}
	for _, a := range b.args {
		named = append(named, driver.NamedValue{Ordinal: len(named) + 1, Value: a})
	}
	return named
}

func (c *paramConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.stdlibConn.QueryContext(ctx, query, c.bind(ctx, query, args))
}

func (c *paramConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	p, ok := ctx.Value(plainBatchKey{}).(*plainBatch)
	if !ok || p.query != query {
		return c.stdlibConn.ExecContext(ctx, query, c.bind(ctx, query, args))
	}
	if !c.writesPrepared {
		plain, err := p.plain()
		if err != nil {
			return nil, err
		}
		return c.stdlibConn.ExecContext(ctx, plain, args)
	}
	res, err := c.stdlibConn.ExecContext(ctx, query, args)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "26000" {
		// A prepared write is gone (a transaction pooler put the
		// connection on another server connection): plain from now on.
		// The transaction failed with it, so the command runs again.
		c.writesPrepared, c.retried = false, true
		return nil, fmt.Errorf("%w: %w", ErrRetry, err)
	}
	return res, err
}

// ResetSession prepares the writes on a connection, taken from the pool,
// that could not when it opened (before the migrations made the tables).
func (c *paramConn) ResetSession(ctx context.Context) error {
	if err := c.stdlibConn.ResetSession(ctx); err != nil {
		return err
	}
	if !c.writesPrepared && c.prepare && !c.retried {
		c.retried = true
		c.writesPrepared = prepareWrites(ctx, c.Conn())
	}
	return nil
}

// modelStatement is a statement selecting every column of row type T,
// followed by rest (its WHERE, ORDER BY, FOR UPDATE...): the columns are
// those bun reads into T, listed on first use from bun's description of T.
type modelStatement[T any] struct {
	once sync.Once
	rest string
	s    statement
}

func selectModel[T any](rest string) *modelStatement[T] {
	return &modelStatement[T]{rest: rest}
}

func (m *modelStatement[T]) scan(ctx context.Context, idb bun.IDB, dest any, args ...any) error {
	m.once.Do(func() {
		t := idb.Dialect().Tables().Get(reflect.TypeFor[T]())
		m.s = newStatement("SELECT " + modelColumns(idb, reflect.TypeFor[T]()) + " FROM " + t.Name + " AS " + t.Alias + " " + m.rest)
	})
	return m.s.scan(ctx, idb, dest, args...)
}

// dialectStatement is a statement whose text differs by dialect (an
// aggregate, a lock clause) or needs bun's description of a model: text
// writes it on first use in each dialect.
type dialectStatement struct {
	text func(idb bun.IDB, flavor Dialect) string
	once [2]sync.Once
	s    [2]statement
}

func newDialectStatement(text func(idb bun.IDB, flavor Dialect) string) *dialectStatement {
	return &dialectStatement{text: text}
}

func (d *dialectStatement) scan(ctx context.Context, idb bun.IDB, dest any, args ...any) error {
	i, flavor := 0, Postgres
	if idb.Dialect().Name() != dialect.PG {
		i, flavor = 1, SQLite
	}
	d.once[i].Do(func() { d.s[i] = newStatement(d.text(idb, flavor)) })
	return d.s[i].scan(ctx, idb, dest, args...)
}

// modelColumns lists the columns bun reads into row type typ, each
// qualified by the model's alias.
func modelColumns(idb bun.IDB, typ reflect.Type) string {
	t := idb.Dialect().Tables().Get(typ)
	cols := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		cols[i] = t.Alias + "." + f.Name
	}
	return strings.Join(cols, ", ")
}
