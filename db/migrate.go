package db

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/uptrace/bun/migrate"
)

// Migrations live in one directory per dialect with the same version
// numbers, because the dialects need different DDL.
//
//go:embed migrations/postgres/*.sql migrations/sqlite/*.sql
var migrationFiles embed.FS

func (d *DB) migrations() (*migrate.Migrations, error) {
	sub, err := fs.Sub(migrationFiles, "migrations/"+string(d.Flavor))
	if err != nil {
		return nil, err
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(sub); err != nil {
		return nil, fmt.Errorf("db: discover migrations: %w", err)
	}
	return ms, nil
}

// Migrate applies the migrations that are not applied yet and returns their
// names. When another replica holds the migration lock, Migrate retries with
// backoff until ctx ends.
func (d *DB) Migrate(ctx context.Context) ([]string, error) {
	ms, err := d.migrations()
	if err != nil {
		return nil, err
	}
	m := migrate.NewMigrator(d.DB, ms, migrate.WithMarkAppliedOnSuccess(true))
	if err := initMigrations(ctx, m); err != nil {
		return nil, fmt.Errorf("db: init migrations: %w", err)
	}
	if err := lockWithBackoff(ctx, m); err != nil {
		return nil, err
	}
	// A failed unlock leaves the lock row behind; the next start says how
	// to clear it after migrationLockTimeout.
	defer m.Unlock(context.WithoutCancel(ctx)) //nolint:errcheck

	group, err := m.Migrate(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: migrate: %w", err)
	}
	var names []string
	for _, mig := range group.Migrations {
		names = append(names, mig.Name)
	}
	if len(names) > 0 && d.Flavor == Postgres {
		// The idle connections prepared their writes (preparedWrite) on
		// the schema before: let them go, the next ones prepare anew.
		d.DB.DB.SetMaxIdleConns(0)
		d.DB.DB.SetMaxIdleConns(maxIdleConns)
	}
	return names, nil
}

// initMigrations creates the migration bookkeeping tables. Replicas that
// start together on a new database race on CREATE TABLE IF NOT EXISTS,
// which PostgreSQL does not make safe against itself (the loser fails on a
// duplicate key of pg_type or "already exists"): the loser tries again and
// finds the tables there.
func initMigrations(ctx context.Context, m *migrate.Migrator) error {
	var err error
	for try := 1; try <= 5; try++ {
		if err = m.Init(ctx); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(time.Duration(try) * 50 * time.Millisecond):
		}
	}
	return err
}

// migrationLockTimeout is how long a start waits for another replica's
// migrations. A lock older than that was most likely left by a process that
// died while migrating.
const migrationLockTimeout = 2 * time.Minute

func lockWithBackoff(ctx context.Context, m *migrate.Migrator) error {
	wait := 100 * time.Millisecond
	deadline := time.Now().Add(migrationLockTimeout)
	for {
		err := m.Lock(ctx)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("db: another process has held the migration lock for %s; if none is migrating, "+
				"a migration died half way: check the schema, then DELETE FROM bun_migration_locks and start again (%w)", migrationLockTimeout, err)
		}
		select {
		case <-ctx.Done():
			return errors.Join(fmt.Errorf("db: migration lock: %w", err), ctx.Err())
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

// PendingMigrations returns the names of the migrations this build has that
// the database has not applied. It only reads, so a readiness probe may
// call it; an error means the database cannot say (unreachable, or never
// migrated).
func (d *DB) PendingMigrations(ctx context.Context) ([]string, error) {
	ms, err := d.migrations()
	if err != nil {
		return nil, err
	}
	all, err := migrate.NewMigrator(d.DB, ms).MigrationsWithStatus(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: read applied migrations: %w", err)
	}
	var names []string
	for _, m := range all.Unapplied() {
		names = append(names, m.Name)
	}
	return names, nil
}
