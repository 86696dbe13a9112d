package service

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/casegraph/casegraph/db"
)

// The pauses of a background worker after a failed pass: the first is
// short, so that a blip costs little; they double up to the cap, so that
// an outage costs the database a look every few seconds per worker, and
// the worker resumes within the cap of the database coming back.
const (
	retryFirst = 100 * time.Millisecond
	retryCap   = 5 * time.Second
)

// WorkerObserver, when the Config's Observer also implements it, is told
// what the background workers do (metrics). Like Observer, its methods
// must be cheap and safe for concurrent use.
type WorkerObserver interface {
	// WorkerFailed is called after a pass of worker ("timers",
	// "process_calls") failed; unavailable is whether the database could
	// not be reached (db.IsUnavailable).
	WorkerFailed(worker string, unavailable bool)
	// WorkerPaused is called when worker pauses for a database outage
	// (true) and when it resumes (false).
	WorkerPaused(worker string, paused bool)
	// ProcessCallsStored is called after a command of this process
	// committed n calls to the outbox.
	ProcessCallsStored(n int)
	// ProcessCallStarted is called as the worker makes a call of kind
	// ("http", "mail"); done is called once, after the outcome was
	// reported, with the outcome and how long the call itself took. The
	// outcome is "ok" or "failed" (made and reported to the case) or
	// "retried" (made, but the outcome was not reported: the call is made
	// again when its lease ends).
	ProcessCallStarted(kind string) (done func(outcome string, took time.Duration))
	// ProcessCallDropped is called for a claimed call that is not made
	// (its task moved on, or the row cannot be read).
	ProcessCallDropped(kind string)
}

// workerObserver is the service's WorkerObserver, nil when the Observer
// is not one.
func (s *Service) workerObserver() WorkerObserver {
	w, _ := s.observer.(WorkerObserver)
	return w
}

// pacer paces one background worker through failures so that an outage
// neither floods the logs nor spins against the database. It belongs to
// the worker's loop goroutine.
type pacer struct {
	worker string // metric label
	paused string // the outage's warning ("database unavailable; timers paused")
	resume string // its end ("database available again; timers resumed")
	logger *slog.Logger
	now    func() time.Time
	obs    WorkerObserver

	// bound is the longest next pause; 0 while passes succeed.
	bound time.Duration
	// downSince is when the current outage began; zero outside one.
	downSince time.Time
}

func (s *Service) newPacer(worker, what string) *pacer {
	return &pacer{worker: worker, paused: "database unavailable; " + what + " paused",
		resume: "database available again; " + what + " resumed", logger: s.logger, now: s.now, obs: s.workerObserver()}
}

// failed records a failed pass and returns the pause before the next one.
// An unavailable database is one outage, warned of once however long it
// lasts; any other error is logged at ERROR with msg each time, but the
// pauses grow the same, so that a persistent fault cannot spin.
func (p *pacer) failed(ctx context.Context, msg string, err error) time.Duration {
	unavailable := db.IsUnavailable(err)
	if p.obs != nil {
		p.obs.WorkerFailed(p.worker, unavailable)
	}
	switch {
	case !unavailable:
		p.logger.ErrorContext(ctx, msg, "err", err)
	case p.downSince.IsZero():
		p.downSince = p.now()
		p.logger.WarnContext(ctx, p.paused, "err", err)
		if p.obs != nil {
			p.obs.WorkerPaused(p.worker, true)
		}
	}
	p.bound = min(max(2*p.bound, retryFirst), retryCap)
	// Jitter, so that the replicas of a cluster that lost the database at
	// one moment do not all come back to it at one moment.
	return p.bound/2 + rand.N(p.bound/2+1)
}

// succeeded records a pass that reached the database, which ends an
// outage.
func (p *pacer) succeeded(ctx context.Context) {
	p.bound = 0
	if p.downSince.IsZero() {
		return
	}
	down := p.now().Sub(p.downSince)
	p.downSince = time.Time{}
	p.logger.InfoContext(ctx, p.resume, "down_for", down.Round(time.Millisecond).String())
	if p.obs != nil {
		p.obs.WorkerPaused(p.worker, false)
	}
}

// heedsWake reports whether a wake-up may cut the current pause short. A
// wake-up comes from a command of this process that committed, so the
// database is up again: an outage's pause ends at once. After another
// error the commit tells nothing about the fault, and a busy server would
// otherwise retry it at the rate of its commands.
func (p *pacer) heedsWake() bool {
	return p.bound == 0 || !p.downSince.IsZero()
}

// sleep waits d, until ctx ends (false) or a wake-up on wake that p heeds.
func (p *pacer) sleep(ctx context.Context, t *time.Timer, d time.Duration, wake <-chan struct{}) bool {
	t.Reset(d)
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		case <-wake:
			if p.heedsWake() {
				// Since Go 1.23 Reset after Stop leaves no stale tick.
				t.Stop()
				return true
			}
		}
	}
}
