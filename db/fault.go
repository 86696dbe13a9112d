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
// many connections (53300), or reports any connection exception (class
// 08). A transaction that fails so is rolled back by the database: nothing
// of it is applied.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", "53300":
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08")
	}
	var connErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connErr), errors.As(err, &netErr),
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
