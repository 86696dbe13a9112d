package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/casegraph/casegraph/db"
)

// openDatabase opens the configured database, waiting for it with
// growing pauses for up to cfg.DatabaseWait: in a deployment the database
// often starts beside the server, and a process that exits at once only
// gets restarted in a loop. A database that does not exist or refuses the
// credentials is a mistake in the URL: no wait. Every failed try is
// logged; the final error names the database URL without its password.
func openDatabase(ctx context.Context, cfg Config, logger *slog.Logger) (*db.DB, error) {
	deadline := time.Now().Add(cfg.DatabaseWait)
	pause := 250 * time.Millisecond
	for attempt := 1; ; attempt++ {
		d, err := db.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
		if err == nil {
			if attempt > 1 {
				logger.InfoContext(ctx, "database answers", "database", displayURL(cfg.DatabaseURL), "attempt", attempt)
			}
			return d, nil
		}
		left := time.Until(deadline)
		if !db.IsUnavailable(err) || db.IsMisconfigured(err) || left <= 0 {
			return nil, fmt.Errorf("cannot open the database %s (waited %s, %d tries; CASEGRAPH_DATABASE_WAIT sets how long): %w",
				displayURL(cfg.DatabaseURL), cfg.DatabaseWait, attempt, err)
		}
		logger.WarnContext(ctx, "database does not answer yet; retrying", "database", displayURL(cfg.DatabaseURL),
			"attempt", attempt, "retry_in", pause.String(), "err", err.Error())
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("cannot open the database %s: %w", displayURL(cfg.DatabaseURL), ctx.Err())
		case <-time.After(min(pause, left)):
		}
		pause = min(pause*2, 5*time.Second)
	}
}

// displayURL is the database URL fit for logs: without its password, or
// "the embedded SQLite file" when none is configured.
func displayURL(dsn string) string {
	if dsn == "" {
		return "the embedded SQLite file"
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "(an unparsable database URL)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}
