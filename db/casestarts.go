package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
)

// newCases are the rows of started cases: case rows, first events and
// read rows. Those of several cases are written with one statement a
// table.
type newCases struct {
	cases  []caseRow
	events []caseEventBatchRow
	read   readRows
	// bytes is about the length of the rows' text in SQL.
	bytes int
}

func newCaseRows(row caseRow, events *caseEventBatchRow, read readRows) newCases {
	n := newCases{cases: []caseRow{row}, read: read, bytes: len(row.Snapshot)}
	if events != nil {
		n.events = []caseEventBatchRow{*events}
		n.bytes += len(events.Events)
	}
	for _, f := range read.files {
		n.bytes += len(f.Data)
	}
	// Every other row is ids, names and times.
	n.bytes += 200 * (len(read.members) + len(read.roles) + len(read.groups) + len(read.items) + len(read.tasks) + len(read.ids) + len(read.timers))
	for _, t := range read.tasks {
		n.bytes += len(t.Input) + len(t.Output) + len(t.TaskModel) + len(t.Documentation)
	}
	return n
}

func (n *newCases) add(o newCases) {
	n.cases = append(n.cases, o.cases...)
	n.events = append(n.events, o.events...)
	n.read.appendRows(o.read)
	n.bytes += o.bytes
}

// addTo adds the inserts to b, the case rows first: the read rows refer
// to them (SQLite checks it).
func (n *newCases) addTo(b *stmtBatch) {
	// Returning nothing: bun would return the defaulted columns.
	b.add("insert case", b.idb.NewInsert().Model(&n.cases).Returning("NULL"))
	if len(n.events) > 0 {
		b.add("insert case events", b.idb.NewInsert().Model(&n.events))
	}
	addReadRows(b, n.read, allTables)
}

// writeNewCases inserts the rows of started cases: in idb's transaction
// when it is one, else those of the cases started at the same time
// together (caseStarts) on PostgreSQL, and on their own on SQLite.
func writeNewCases(ctx context.Context, idb bun.IDB, rows newCases) error {
	if d, ok := idb.(*DB); ok && d.Flavor == Postgres {
		return d.caseStarts().write(ctx, rows)
	}
	b := newStmtBatch(idb)
	rows.addTo(b)
	_, err := b.exec(ctx)
	return err
}

// caseStarts writes the rows of the cases started at the same moment in
// one statement and one transaction (group commit). A start case's rows
// are a few statements of one row each, and PostgreSQL spends about as
// much per statement, and per commit, as per row: parsing, planning and
// opening each table and its indexes, then flushing the log. Started
// together, eight cases cost about one case's statements and one commit
// and eight cases' rows.
//
// At most maxStartFlushers statements are in flight; the cases started
// while they run wait and go with the next. A start waits for its own
// statement's outcome; when one case of a statement fails it (a taken id,
// a value the database refuses), every case of it is written again on its
// own, so each gets its own answer and no case depends on another. A
// failure of the statement as a whole (the database unreachable, the time
// up) is every case's answer.
type caseStarts struct {
	db *DB

	mu sync.Mutex
	// pending are the starts waiting for a statement: as many as there
	// are requests starting a case at once, which the server bounds
	// (CASEGRAPH_MAX_IN_FLIGHT).
	pending  []*startWrite
	flushers int
}

type startWrite struct {
	ctx  context.Context
	rows newCases
	err  error
	done chan struct{}
}

// Bounds of the group commit of started cases.
const (
	// maxStartFlushers bounds the statements in flight, so that cases
	// wait and gather when the database is busy rather than each taking
	// a connection.
	maxStartFlushers = 2
	// maxStartsPerWrite and maxStartWriteBytes bound one statement; a
	// case larger than the byte bound goes alone.
	maxStartsPerWrite  = 64
	maxStartWriteBytes = 1 << 20
	// startWriteTimeout bounds one statement: its cases share it, so it
	// does not end with one caller's request.
	startWriteTimeout = 30 * time.Second
)

func (d *DB) caseStarts() *caseStarts {
	d.startsOnce.Do(func() { d.starts = &caseStarts{db: d} })
	return d.starts
}

// write writes rows and returns once they are committed, or failed. A
// caller that gives up (ctx) before its statement starts is not written;
// once it started, write waits for its outcome, which is the answer.
func (c *caseStarts) write(ctx context.Context, rows newCases) error {
	w := &startWrite{ctx: ctx, rows: rows, done: make(chan struct{})}
	c.mu.Lock()
	c.pending = append(c.pending, w)
	if c.flushers < maxStartFlushers {
		c.flushers++
		go c.flush()
	}
	c.mu.Unlock()
	select {
	case <-w.done:
		return w.err
	case <-ctx.Done():
	}
	c.mu.Lock()
	if i := slices.Index(c.pending, w); i >= 0 {
		// Not taken yet: never written.
		c.pending = slices.Delete(c.pending, i, i+1)
		c.mu.Unlock()
		return ctx.Err()
	}
	c.mu.Unlock()
	// Its statement runs: its outcome is the answer.
	<-w.done
	return w.err
}

// flush writes pending starts until there are none.
func (c *caseStarts) flush() {
	var batch []*startWrite
	defer func() {
		// A panic fails the starts it was writing, not the process.
		if r := recover(); r != nil {
			for _, w := range batch {
				select {
				case <-w.done:
				default:
					w.err = fmt.Errorf("db: write started cases: panic: %v", r)
					close(w.done)
				}
			}
			c.mu.Lock()
			c.flushers--
			restart := len(c.pending) > 0
			if restart {
				c.flushers++
			}
			c.mu.Unlock()
			if restart {
				go c.flush()
			}
		}
	}()
	for {
		c.mu.Lock()
		batch = c.take()
		if len(batch) == 0 {
			c.flushers--
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		c.writeAll(batch)
	}
}

// take removes from pending the starts of the next statement, oldest
// first. Those whose caller gave up are answered and left out.
func (c *caseStarts) take() []*startWrite {
	var batch []*startWrite
	bytes, n := 0, 0
	for ; n < len(c.pending) && len(batch) < maxStartsPerWrite; n++ {
		w := c.pending[n]
		if err := w.ctx.Err(); err != nil {
			w.err = err
			close(w.done)
			continue
		}
		if len(batch) > 0 && bytes+w.rows.bytes > maxStartWriteBytes {
			break
		}
		batch = append(batch, w)
		bytes += w.rows.bytes
	}
	c.pending = c.pending[n:]
	if len(c.pending) == 0 {
		c.pending = nil
	}
	return batch
}

// writeAll writes batch's rows in one statement, each alone if that fails.
func (c *caseStarts) writeAll(batch []*startWrite) {
	if len(batch) > 1 {
		var all newCases
		for _, w := range batch {
			all.add(w.rows)
		}
		// The first caller's context carries the statement's trace.
		err := c.exec(batch[0].ctx, all)
		if err == nil || !rowError(err) {
			// Written, or failed for all of them alike (the database
			// unreachable, the time up): writing each again would fail
			// the same way, one timeout after another.
			for _, w := range batch {
				w.err = err
				close(w.done)
			}
			return
		}
	}
	for _, w := range batch {
		if err := w.ctx.Err(); err != nil && len(batch) > 1 {
			w.err = err // gone while the statement failed: not written
		} else {
			w.err = c.exec(w.ctx, w.rows)
		}
		close(w.done)
	}
}

// rowError reports whether err is the database refusing a row's values
// (SQLSTATE classes 22, data exception, and 23, integrity constraint
// violation, such as a taken id), which one case of a statement may cause
// alone.
func rowError(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (strings.HasPrefix(pgErr.Code, "22") || strings.HasPrefix(pgErr.Code, "23"))
}

// exec writes rows in one multi-statement query, which PostgreSQL runs as
// one transaction: all of them or none.
func (c *caseStarts) exec(ctx context.Context, rows newCases) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), startWriteTimeout)
	defer cancel()
	b := newStmtBatch(c.db)
	rows.addTo(b)
	_, err := b.exec(ctx)
	return err
}
