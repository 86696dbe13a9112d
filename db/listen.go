package db

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
)

// notifyAll is one notification per payload, in one statement: the
// notifications of many commands share one transaction (see NotifyAll).
// Channels are per database, but several CaseGraphs may share one database
// in schemas of their own (the tests do): the channel's name is the prefix
// and a digest of the current schema, short enough for an identifier.
var notifyAll = newStatement("SELECT pg_notify(?::text || left(md5(current_schema()), 16), p) FROM unnest(?::text[]) AS p")

// NotifyAll sends a PostgreSQL notification on channel for each payload,
// in one statement: in a transaction of its own unless idb is one, in
// which case listeners hear them when it commits. A transaction that
// notifies holds a lock of the whole PostgreSQL server from its commit
// until it ends, so notifying transactions commit one at a time, each
// waiting for the log's flush alone: the commands' own transactions do
// not notify, and the notifications of many commands go in one.
// Identical payloads in one call are delivered once.
func NotifyAll(ctx context.Context, idb bun.IDB, channel string, payloads []string) error {
	if len(payloads) == 0 {
		return nil
	}
	return notifyAll.exec(ctx, idb, channel, payloads)
}

// Listen calls fn with the payload of every notification on channel, on one
// connection taken from the pool for as long as it listens, until ctx ends
// or the connection fails. listening is called once the channel is
// listened to. fn runs on the listening goroutine: it must not block.
func Listen(ctx context.Context, d *DB, channel string, listening func(), fn func(payload string)) error {
	if d.Flavor != Postgres {
		return errors.New("db: LISTEN needs PostgreSQL")
	}
	conn, err := d.DB.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var name string
	if err := conn.QueryRowContext(ctx, "SELECT $1::text || left(md5(current_schema()), 16)", channel).Scan(&name); err != nil {
		return err
	}
	return conn.Raw(func(dc any) error {
		sc, ok := dc.(interface{ Conn() *pgx.Conn }) // pgx's, or paramConn around it
		if !ok {
			return fmt.Errorf("db: LISTEN needs the pgx driver, not %T", dc)
		}
		pc := sc.Conn()
		if _, err := pc.Exec(ctx, "LISTEN "+quoteIdent(name)); err != nil {
			return errors.Join(err, driver.ErrBadConn)
		}
		listening()
		for {
			n, err := pc.WaitForNotification(ctx)
			if err != nil {
				// The connection is left listening or broken: never back
				// into the pool.
				return errors.Join(err, driver.ErrBadConn)
			}
			fn(n.Payload)
		}
	})
}

func quoteIdent(s string) string {
	out := []byte{'"'}
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			out = append(out, '"')
		}
		out = append(out, s[i])
	}
	return string(append(out, '"'))
}
