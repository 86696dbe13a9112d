package db

import (
	"context"
	"fmt"
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

// exec runs the gathered statements in order and returns the rows affected
// by the last one, the only count a multi-statement query reports.
func (b *stmtBatch) exec(ctx context.Context) (int64, error) {
	stmts, err := b.stmts, b.err
	b.stmts, b.err = nil, nil
	if err != nil || len(stmts) == 0 {
		return 0, err
	}
	if b.multi {
		stmts = []string{strings.Join(stmts, ";\n")}
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
