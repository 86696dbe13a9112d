package db

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// caseUpdate is the writes of a command on a case it read without a lock
// (SaveCase outside a transaction, PostgreSQL): one multi-statement query
// whose first statement, the case row's update, fails it (CG409) when
// another command changed the case after readVersion.
type caseUpdate struct {
	caseID      string
	readVersion int64
	query       multiQuery
}

// caseUpdates writes the updates of the commands on different cases that
// arrive at the same moment in one query (a groupCommit): their case rows
// in the order of their ids, so that two queries in flight lock them in
// one order, each followed by its other writes. Two commands on one case
// never go together: the later waits for the next query, where its
// version check fails alone when the earlier changed the case. A command
// that lost such a race (CG409 names its case and the version it read)
// gets its ErrStaleVersion and the others are written together again; a
// row the database refuses, or a connection that lost its prepared
// writes, has each written again on its own.
func (d *DB) caseUpdates() *groupCommit[caseUpdate] {
	d.updatesOnce.Do(func() {
		d.updates = newGroupCommit(groupOps[caseUpdate]{
			what: "write case updates",
			key:  func(u caseUpdate) string { return u.caseID },
			size: func(u caseUpdate) int { return len(u.query.sql) },
			combine: func(us []caseUpdate) caseUpdate {
				qs := make([]multiQuery, len(us))
				for i, u := range us {
					qs[i] = u.query
				}
				return caseUpdate{query: joinQueries(qs)}
			},
			exec: func(ctx context.Context, u caseUpdate) error {
				_, err := u.query.exec(ctx, d)
				return err
			},
			retryAlone: func(err error) bool {
				var pgErr *pgconn.PgError
				if !errors.As(err, &pgErr) {
					return false
				}
				// Class 40 (a deadlock, a serialization failure) cannot
				// happen with rows locked in one order; if it does, the
				// transaction rolled back all the same.
				return rowError(err) || pgErr.Code == staleCaseWriteCode || pgErr.Code == "26000" || strings.HasPrefix(pgErr.Code, "40")
			},
			blame: func(err error, us []caseUpdate) int {
				var pgErr *pgconn.PgError
				if !errors.As(err, &pgErr) || pgErr.Code != staleCaseWriteCode {
					return -1
				}
				for i, u := range us {
					if pgErr.Message == staleCaseWriteMessage(u.caseID, u.readVersion) {
						return i
					}
				}
				return -1
			},
		})
	})
	return d.updates
}

// staleCaseWriteMessage is casegraph_case_written's error message (see
// migration 00019).
func staleCaseWriteMessage(caseID string, readVersion int64) string {
	return fmt.Sprintf("case %s changed after this command read its version %d", caseID, readVersion)
}
