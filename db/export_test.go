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
	c := d.caseStarts()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		c.mu.Lock()
		if c.flushers == 0 || time.Now().After(deadline) {
			// None left from an earlier round to take what queues now.
			c.flushers = maxStartFlushers
			c.mu.Unlock()
			break
		}
		c.mu.Unlock()
	}
	queued = func() int {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.pending)
	}
	release = func() {
		c.mu.Lock()
		c.flushers = 1
		c.mu.Unlock()
		go c.flush()
	}
	return queued, release
}
