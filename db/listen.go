package db

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
)

// Channels are per database, but several CaseGraphs may share one database
// in schemas of their own (the tests do): the channel's name is the prefix
// and a digest of the current schema, short enough for an identifier.
const channelSQL = "? || left(md5(current_schema()), 16)"

// Notify queues a PostgreSQL notification on channel in idb's transaction:
// listeners hear it when the transaction commits, never when it rolls back.
func Notify(ctx context.Context, idb bun.IDB, channel, payload string) error {
	_, err := notifyQuery(idb, channel, payload).Exec(ctx)
	return err
}

func notifyQuery(idb bun.IDB, channel, payload string) *bun.RawQuery {
	return idb.NewRaw("SELECT pg_notify("+channelSQL+", ?)", channel, payload)
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
