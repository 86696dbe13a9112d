package db

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// IsUnavailable reports whether err means the database could not serve the
// request at all, so that trying again later may succeed: the connection
// was refused, reset or lost; PostgreSQL is shutting down (57P01 admin
// shutdown, 57P02 crash shutdown), starting or recovering (57P03), has too
// many connections (53300), reports any connection exception (class 08),
// or refused a new connection for any reason. A transaction that fails so
// is rolled back by the database: nothing of it is applied.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	// Any failure to connect first: it wraps the server's refusal (a
	// database dropped or renamed, 3D000; a password changed, 28P01),
	// which an operator mends while clients wait.
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", "53300":
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08")
	}
	var netErr net.Error
	switch {
	case errors.As(err, &netErr),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF):
		return true
	}
	msg := err.Error()
	for _, s := range []string{"connection refused", "connection reset", "bad connection", "broken pipe", "conn closed",
		"database is closed", "failed to connect", "unexpected EOF", "SQLSTATE 57P0", "SQLSTATE 53300", "SQLSTATE 08"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// IsMisconfigured reports whether err is PostgreSQL refusing a connection
// for what the connection asked for: a database that does not exist
// (3D000) or credentials it does not accept (class 28). A running server
// answers such requests as unavailable (an operator may be restoring the
// database); at start it is most likely a mistake in the URL, not worth
// waiting for.
func IsMisconfigured(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	return pgErr.Code == "3D000" || strings.HasPrefix(pgErr.Code, "28")
}
