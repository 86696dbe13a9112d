package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
)

// LockCaseRoot locks the row of the root case of id's tree until the
// transaction ends, and returns the root's id. Every command on any case of
// a tree takes this lock first, before the rows of the cases it touches
// (a command on a sub case may change its parent, and one on a parent its
// sub cases), so that two commands in one tree queue on one row instead of
// locking two in opposite orders. On PostgreSQL only: SQLite's write
// transactions exclude each other anyway. A top-level case is its own
// root, and loading it for update locks it, so nothing happens here.
// nowait returns ErrLocked instead of waiting; an unknown id ErrNotFound.
func LockCaseRoot(ctx context.Context, tx bun.Tx, flavor Dialect, id string, nowait bool) (string, error) {
	var root string
	err := tx.NewSelect().Model((*caseRow)(nil)).Column("root_case_id").Where("id = ?", id).Scan(ctx, &root)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("db: select root case: %w", err)
	}
	if root == "" || root == id || flavor != Postgres {
		return root, nil
	}
	lock := "UPDATE"
	if nowait {
		lock = "UPDATE NOWAIT"
	}
	var got string
	err = tx.NewSelect().Model((*caseRow)(nil)).Column("id").Where("id = ?", root).For(lock).Scan(ctx, &got)
	switch {
	case lockNotAvailable(err):
		return "", ErrLocked
	case errors.Is(err, sql.ErrNoRows):
		// A tree whose root is gone has nothing left to queue on.
		return root, nil
	case err != nil:
		return "", fmt.Errorf("db: lock root case: %w", err)
	}
	return root, nil
}

// CaseTreeIDs returns id and the ids of its sub cases at any depth,
// parents before their sub cases.
func CaseTreeIDs(ctx context.Context, idb bun.IDB, id string) ([]string, error) {
	return caseTreeIDs(ctx, idb, id)
}
