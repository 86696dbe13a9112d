package db

import (
	"context"

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
// one statement a table and one transaction (a groupCommit). A start
// case's rows are a few statements of one row each, and PostgreSQL spends
// about as much per statement, and per commit, as per row: parsing,
// planning and opening each table and its indexes, then flushing the log.
// Started together, eight cases cost about one case's statements and one
// commit and eight cases' rows. When one case fails the statement (a
// taken id, a value the database refuses), every case of it is written
// again on its own.
func (d *DB) caseStarts() *groupCommit[newCases] {
	d.startsOnce.Do(func() {
		d.starts = newGroupCommit(groupOps[newCases]{
			what: "write started cases",
			size: func(n newCases) int { return n.bytes },
			combine: func(ns []newCases) newCases {
				var all newCases
				for _, n := range ns {
					all.add(n)
				}
				return all
			},
			exec: func(ctx context.Context, rows newCases) error {
				b := newStmtBatch(d)
				rows.addTo(b)
				_, err := b.exec(ctx)
				return err
			},
			retryAlone: rowError,
		})
	})
	return d.starts
}
