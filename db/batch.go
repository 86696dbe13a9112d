package db

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/schema"
)

// stmtBatch gathers the writes of one case save. On PostgreSQL they leave
// as one multi-statement query: one round trip where a start case took
// nine (the case row, its events and every read table), and the server
// parses and runs them with no network wait between. SQLite runs in
// process, so there each statement runs on its own.
//
// The statements are formatted by bun with their values inlined, as bun
// does for every query; they run in the caller's transaction, so a failing
// one fails the whole command.
type stmtBatch struct {
	idb   bun.IDB
	gen   schema.QueryGen
	multi bool
	stmts []string
	// plain holds, for a statement of stmts made of EXECUTEs of
	// preparedWrites, the same writes as plain statements, for a
	// connection without them.
	plain map[int]schema.QueryAppender
	err   error
}

func newStmtBatch(idb bun.IDB) *stmtBatch {
	return &stmtBatch{idb: idb, gen: schema.NewQueryGen(idb.Dialect()), multi: idb.Dialect().Name() == dialect.PG}
}

// add appends a statement; an error building it is kept and returned by exec.
func (b *stmtBatch) add(what string, q schema.QueryAppender) {
	if b.err != nil {
		return
	}
	sql, err := q.AppendQuery(b.gen, nil)
	if err != nil {
		b.err = fmt.Errorf("db: %s: %w", what, err)
		return
	}
	b.stmts = append(b.stmts, string(sql))
}

// addPrepared appends the EXECUTEs of w, one for each row of rows (a
// slice of w's row model, or a pointer to one) followed by extra, or, when
// rows is nil, one with extra alone, as one statement; plain is the same
// writes as a plain statement. SQLite, which runs in process and has no
// PREPARE, runs plain.
func (b *stmtBatch) addPrepared(what string, w *preparedWrite, rows any, plain schema.QueryAppender, extra ...any) {
	if b.err != nil {
		return
	}
	if !b.multi {
		b.add(what, plain)
		return
	}
	if rows == nil {
		b.addExecutes(w.appendExecute(b.gen, nil, nil, extra...), plain)
		return
	}
	v := reflect.Indirect(reflect.ValueOf(rows))
	if v.Len() > maxExecutesPerStatement {
		b.add(what, plain)
		return
	}
	var sql []byte
	for i := range v.Len() {
		if i > 0 {
			sql = append(sql, ";\n"...)
		}
		sql = w.appendExecute(b.gen, sql, v.Index(i).Addr().Interface(), extra...)
	}
	b.addExecutes(sql, plain)
}

func (b *stmtBatch) addExecutes(sql []byte, plain schema.QueryAppender) {
	if b.plain == nil {
		b.plain = map[int]schema.QueryAppender{}
	}
	b.plain[len(b.stmts)] = plain
	b.stmts = append(b.stmts, string(sql))
}

// maxExecutesPerStatement bounds the EXECUTEs standing for one statement:
// many rows go faster in one plain statement than in one EXECUTE each.
const maxExecutesPerStatement = 8

// plainBatchKey holds, in the context of a batch's run, its plainBatch.
type plainBatchKey struct{}

// plainBatch is a batch with EXECUTEs of preparedWrites (query) and the
// same batch in plain statements, for paramConn to run on a connection
// without them.
type plainBatch struct {
	query string
	plain func() (string, error)
}

// exec runs the gathered statements in order and returns the rows affected
// by the last one, the only count a multi-statement query reports.
func (b *stmtBatch) exec(ctx context.Context) (int64, error) {
	stmts, plain, err := b.stmts, b.plain, b.err
	b.stmts, b.plain, b.err = nil, nil, nil
	if err != nil || len(stmts) == 0 {
		return 0, err
	}
	if b.multi {
		query := strings.Join(stmts, ";\n")
		if len(plain) > 0 {
			parts := stmts
			ctx = context.WithValue(ctx, plainBatchKey{}, &plainBatch{query: query, plain: func() (string, error) {
				out := slices.Clone(parts)
				for i, q := range plain {
					sql, err := q.AppendQuery(b.gen, nil)
					if err != nil {
						return "", fmt.Errorf("db: build plain statements: %w", err)
					}
					out[i] = string(sql)
				}
				return strings.Join(out, ";\n"), nil
			}})
		}
		stmts = []string{query}
	}
	var affected int64
	for _, s := range stmts {
		res, err := b.idb.ExecContext(ctx, s)
		if err != nil {
			return 0, err
		}
		affected, _ = res.RowsAffected()
	}
	return affected, nil
}
