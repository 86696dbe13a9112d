package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"time"
)

// levelCounter counts records by level and keeps their messages.
type levelCounter struct {
	n    map[slog.Level]int
	msgs []string
}

func (c *levelCounter) Enabled(context.Context, slog.Level) bool { return true }
func (c *levelCounter) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *levelCounter) WithGroup(string) slog.Handler            { return c }
func (c *levelCounter) Handle(_ context.Context, r slog.Record) error {
	c.n[r.Level]++
	c.msgs = append(c.msgs, r.Message)
	return nil
}

// TestPacer: pauses start near 100 ms, double with jitter no lower than
// half, stop growing at 5 s, and start over after a success; an outage
// is one warning and one info line however many looks fail; another
// error is an ERROR per look; a wake-up cuts an outage's pause short but
// not another error's.
func TestPacer(t *testing.T) {
	logs := &levelCounter{n: map[slog.Level]int{}}
	clock := time.Unix(0, 0)
	p := (&Service{logger: slog.New(logs), now: func() time.Time { return clock }}).newPacer("timers", "timers")
	ctx := context.Background()
	down := fmt.Errorf("db: select next timer: %w", syscall.ECONNREFUSED)
	if !p.heedsWake() {
		t.Fatal("a healthy worker must heed wake-ups")
	}
	bound := retryFirst
	for i := range 12 {
		d := p.failed(ctx, "firing timers failed", down)
		if d < bound/2 || d > bound {
			t.Fatalf("pause %d = %v; want within [%v, %v]", i, d, bound/2, bound)
		}
		bound = min(2*bound, retryCap)
		clock = clock.Add(d)
		if !p.heedsWake() {
			t.Fatal("a wake-up (a commit) must end an outage's pause")
		}
	}
	if logs.n[slog.LevelWarn] != 1 || logs.n[slog.LevelError] != 0 || logs.msgs[0] != "database unavailable; timers paused" {
		t.Fatalf("12 failed looks in an outage logged %v %q", logs.n, logs.msgs)
	}
	p.succeeded(ctx)
	p.succeeded(ctx)
	if logs.n[slog.LevelInfo] != 1 || !strings.HasPrefix(logs.msgs[1], "database available again; timers resumed") {
		t.Fatalf("the end of the outage logged %v %q", logs.n, logs.msgs)
	}
	bound = retryFirst
	for range 3 {
		if d := p.failed(ctx, "firing timers failed", errors.New("relation does not exist")); d < bound/2 || d > bound {
			t.Fatalf("pause %v after a success; want within [%v, %v]", d, bound/2, bound)
		}
		bound *= 2
		if p.heedsWake() {
			t.Fatal("a wake-up must not cut the pause after an error other than an outage")
		}
	}
	if logs.n[slog.LevelError] != 3 || logs.n[slog.LevelWarn] != 1 {
		t.Fatalf("3 failed looks logged %v", logs.n)
	}
}
