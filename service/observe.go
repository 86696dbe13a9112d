package service

import (
	"context"
	"strings"
	"time"
)

// Observer watches commands and timers for monitoring. It is set once, at
// New; the service knows nothing of the metrics or tracing behind it.
// Its methods are called on the hot path of every command, so they must
// be cheap and safe for concurrent use.
type Observer interface {
	// CommandStarted is called as a command begins, with its kind (the
	// operation without its package, e.g. "StartCase", "ClaimTask"). The
	// context it returns is the command's from then on, so that a tracer's
	// span parents the command's SQL. done is called once, when the
	// command has ended.
	CommandStarted(ctx context.Context, kind string) (_ context.Context, done func(CommandDone))
	// TimerFired is called after a timer fired, with when it was due and
	// when it fired.
	TimerFired(due, firedAt time.Time)
}

// LiveObserver, when the Observer implements it too, watches live updates
// (Service.LiveStats has the counters).
type LiveObserver interface {
	// LiveEventSent is called for each event handed to a live connection,
	// with the time since this process heard of its change.
	LiveEventSent(delay time.Duration)
}

// CommandDone is how a command ended.
type CommandDone struct {
	// Duration covers every attempt, the pauses between them included.
	Duration time.Duration
	// Retries is how often the command ran again after losing a version
	// race (0 when the first attempt settled it).
	Retries int
	// Outcome is "ok", or the error's kind in snake case ("not_found",
	// "conflict", "unavailable", …): a small fixed set.
	Outcome string
	// Err is the command's error, nil when Outcome is "ok".
	Err error
}

// Outcome names how err ends a command: "ok" for nil, else its kind in
// snake case.
func Outcome(err error) string {
	if err == nil {
		return "ok"
	}
	return strings.ReplaceAll(KindOf(err).String(), " ", "_")
}

// commandKind is op without its package: "service.StartCase" is
// "StartCase".
func commandKind(op string) string {
	if i := strings.LastIndexByte(op, '.'); i >= 0 {
		return op[i+1:]
	}
	return op
}
