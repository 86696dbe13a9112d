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
)

// groupCommit writes the writes of several commands that arrive at the
// same moment in one multi-statement query: one round trip, one
// transaction and one commit (one flush of the log) for all of them.
// PostgreSQL spends about as much per round trip and per transaction as
// on a command's statements (docs/performance.md), so commands written
// together cost it little more than one.
//
// At most maxGroupFlushers queries of a group are in flight; the writes
// that arrive while they run wait and go with the next. A write waits for
// its own query's outcome. When a query fails for one write's sake (the
// database refusing its values, a case another command changed meanwhile:
// ops.retryAlone), the write to blame, when ops.blame can tell, gets the
// error and the others are written together again; else each is written
// again on its own. So each gets its own answer and none depends on
// another. A failure of the query as a whole (the database unreachable,
// the time up) is every write's answer: writing each again would fail the
// same way, one timeout after another.
type groupCommit[T any] struct {
	ops groupOps[T]

	mu sync.Mutex
	// pending are the writes waiting for a query: as many as there are
	// requests writing at once, which the server bounds
	// (CASEGRAPH_MAX_IN_FLIGHT).
	pending  []*groupWrite[T]
	flushers int
	// busy are the keys of the writes in flight.
	busy map[string]bool
}

// groupOps is what a groupCommit needs to know of its writes.
type groupOps[T any] struct {
	// what names the writes in errors.
	what string
	// key, when not nil, gives the writes that must not share a query,
	// nor run in two at once (writes to one case): the later waits for
	// the next query. Writes go in the order of their keys, so that two
	// queries in flight take their rows' locks in one order.
	key func(T) string
	// size is about the length of a write's SQL, to bound a query's.
	size func(T) int
	// combine makes one write of several, in the order given.
	combine func([]T) T
	// exec runs a write as one multi-statement query.
	exec func(ctx context.Context, w T) error
	// retryAlone reports whether err, the failure of a combined query,
	// may be one of its writes' doing.
	retryAlone func(err error) bool
	// blame, when not nil, returns the index of the write err is the
	// doing of, or -1 when it cannot tell.
	blame func(err error, ws []T) int
}

type groupWrite[T any] struct {
	ctx  context.Context
	rows T
	err  error
	done chan struct{}
}

// Bounds of a group commit.
const (
	// maxGroupFlushers bounds the queries in flight, so that writes wait
	// and gather when the database is busy rather than each taking a
	// connection.
	maxGroupFlushers = 2
	// maxGroupWrites and maxGroupBytes bound one query; a write larger
	// than the byte bound goes alone.
	maxGroupWrites = 64
	maxGroupBytes  = 1 << 20
	// groupWriteTimeout bounds one query: its writes share it, so it does
	// not end with one caller's request.
	groupWriteTimeout = 30 * time.Second
)

func newGroupCommit[T any](ops groupOps[T]) *groupCommit[T] {
	return &groupCommit[T]{ops: ops, busy: map[string]bool{}}
}

// write writes rows and returns once they are committed, or failed. A
// caller that gives up (ctx) before its query starts is not written; once
// it started, write waits for its outcome, which is the answer.
func (g *groupCommit[T]) write(ctx context.Context, rows T) error {
	w := &groupWrite[T]{ctx: ctx, rows: rows, done: make(chan struct{})}
	g.mu.Lock()
	g.pending = append(g.pending, w)
	if g.flushers < maxGroupFlushers {
		g.flushers++
		go g.flush()
	}
	g.mu.Unlock()
	select {
	case <-w.done:
		return w.err
	case <-ctx.Done():
	}
	g.mu.Lock()
	if i := slices.Index(g.pending, w); i >= 0 {
		// Not taken yet: never written.
		g.pending = slices.Delete(g.pending, i, i+1)
		g.mu.Unlock()
		return ctx.Err()
	}
	g.mu.Unlock()
	// Its query runs: its outcome is the answer.
	<-w.done
	return w.err
}

// flush writes pending writes until there are none it may take.
func (g *groupCommit[T]) flush() {
	var batch []*groupWrite[T]
	defer func() {
		// A panic fails the writes it was writing, not the process.
		if r := recover(); r != nil {
			for _, w := range batch {
				select {
				case <-w.done:
				default:
					w.err = fmt.Errorf("db: %s: panic: %v", g.ops.what, r)
					close(w.done)
				}
			}
			g.mu.Lock()
			g.release(batch)
			g.flushers--
			restart := len(g.pending) > 0
			if restart {
				g.flushers++
			}
			g.mu.Unlock()
			if restart {
				go g.flush()
			}
		}
	}()
	for {
		g.mu.Lock()
		g.release(batch)
		batch = g.take()
		if len(batch) == 0 {
			// What is left waits for keys in flight: the flusher writing
			// them takes it next.
			g.flushers--
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		g.writeAll(batch)
	}
}

// release frees the keys of batch, written.
func (g *groupCommit[T]) release(batch []*groupWrite[T]) {
	if g.ops.key == nil {
		return
	}
	for _, w := range batch {
		delete(g.busy, g.ops.key(w.rows))
	}
}

// take removes from pending the writes of the next query, oldest first,
// but for those whose key is taken. Those whose caller gave up are
// answered and left out.
func (g *groupCommit[T]) take() []*groupWrite[T] {
	var batch []*groupWrite[T]
	var rest []*groupWrite[T]
	bytes := 0
	for i, w := range g.pending {
		if len(batch) == maxGroupWrites {
			rest = append(rest, g.pending[i:]...)
			break
		}
		if err := w.ctx.Err(); err != nil {
			w.err = err
			close(w.done)
			continue
		}
		key := ""
		if g.ops.key != nil {
			key = g.ops.key(w.rows)
		}
		if key != "" && g.busy[key] {
			rest = append(rest, w)
			continue
		}
		size := g.ops.size(w.rows)
		if len(batch) > 0 && bytes+size > maxGroupBytes {
			rest = append(rest, g.pending[i:]...)
			break
		}
		batch = append(batch, w)
		bytes += size
		if key != "" {
			g.busy[key] = true
		}
	}
	g.pending = rest
	return batch
}

// writeAll writes batch in one query, and again as its failure says.
// The caller's batch stays as it was, for release.
func (g *groupCommit[T]) writeAll(batch []*groupWrite[T]) {
	batch = slices.Clone(batch)
	if g.ops.key != nil {
		slices.SortStableFunc(batch, func(a, b *groupWrite[T]) int {
			return strings.Compare(g.ops.key(a.rows), g.ops.key(b.rows))
		})
	}
	for len(batch) > 1 {
		rows := make([]T, len(batch))
		for i, w := range batch {
			rows[i] = w.rows
		}
		// The first caller's context carries the query's trace.
		err := g.exec(batch[0].ctx, g.ops.combine(rows))
		if err == nil || !g.ops.retryAlone(err) {
			for _, w := range batch {
				w.err = err
				close(w.done)
			}
			return
		}
		i := -1
		if g.ops.blame != nil {
			i = g.ops.blame(err, rows)
		}
		if i < 0 {
			break
		}
		batch[i].err = err
		close(batch[i].done)
		batch = slices.Delete(batch, i, i+1)
		batch = slices.DeleteFunc(batch, g.answerGone)
	}
	if len(batch) > 1 {
		batch = slices.DeleteFunc(batch, g.answerGone)
	}
	for _, w := range batch {
		w.err = g.exec(w.ctx, w.rows)
		close(w.done)
	}
}

// answerGone answers w, not written, when its caller gave up while its
// query failed, and reports whether it did.
func (g *groupCommit[T]) answerGone(w *groupWrite[T]) bool {
	if err := w.ctx.Err(); err != nil {
		w.err = err
		close(w.done)
		return true
	}
	return false
}

func (g *groupCommit[T]) exec(ctx context.Context, rows T) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), groupWriteTimeout)
	defer cancel()
	return g.ops.exec(ctx, rows)
}

// rowError reports whether err is the database refusing a row's values
// (SQLSTATE classes 22, data exception, and 23, integrity constraint
// violation, such as a taken id), which one write of a query may cause
// alone.
func rowError(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (strings.HasPrefix(pgErr.Code, "22") || strings.HasPrefix(pgErr.Code, "23"))
}
