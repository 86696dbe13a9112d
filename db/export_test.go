package db

import (
	"context"
	"time"

	"github.com/uptrace/bun/migrate"
)

// MigrateBefore applies the migrations named before name only: the schema
// a database had before the migration name, for a test to write rows the
// way the build of that time did and then run the rest with Migrate.
func (d *DB) MigrateBefore(ctx context.Context, name string) error {
	all, err := d.migrations()
	if err != nil {
		return err
	}
	older := migrate.NewMigrations()
	for _, m := range all.Sorted() {
		if m.Name < name {
			older.Add(m)
		}
	}
	m := migrate.NewMigrator(d.DB, older, migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		return err
	}
	_, err = m.Migrate(ctx)
	return err
}

// HoldCaseStarts makes the group commit of started cases (caseStarts)
// queue every start until release, which writes what queued with one
// flusher: a test then knows which starts go together.
func (d *DB) HoldCaseStarts() (queued func() int, release func()) {
	return d.caseStarts().hold()
}

// HoldCaseUpdates is HoldCaseStarts for the writes of commands on cases
// read without a lock (caseUpdates).
func (d *DB) HoldCaseUpdates() (queued func() int, release func()) {
	return d.caseUpdates().hold()
}

func (g *groupCommit[T]) hold() (queued func() int, release func()) {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		g.mu.Lock()
		if g.flushers == 0 || time.Now().After(deadline) {
			// None left from an earlier round to take what queues now.
			g.flushers = maxGroupFlushers
			g.mu.Unlock()
			break
		}
		g.mu.Unlock()
	}
	queued = func() int {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.pending)
	}
	release = func() {
		g.mu.Lock()
		g.flushers = 1
		g.mu.Unlock()
		go g.flush()
	}
	return queued, release
}
