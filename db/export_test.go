package db

import (
	"context"

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
