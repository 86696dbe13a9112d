package service

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
)

// timerService is the identity timers fire as, the reference engine's
// internal origin for them.
var timerService = auth.Identity{UserID: "TimerService"}

// FireDueTimers fires every timer that is due, each in its own
// transaction, and returns how many fired. Any replica may call it at any
// time: a timer fires once.
//
// One worker looks; each timer that fires late (timerBehind) adds
// another, up to the service's TimerWorkers, so that timers falling due
// faster than one worker fires them (a reminder on every case started) do
// not pile up, while a replica that keeps up fires them one by one, with
// a plain read before each claim, as an idle look. The workers claim
// different timers: a claim skips those another transaction holds.
func (s *Service) FireDueTimers(ctx context.Context) (int, error) {
	ctx = unanswered(ctx)
	var (
		mu      sync.Mutex
		fired   int
		errs    []error
		running = 1
		wg      sync.WaitGroup
	)
	workers := s.timerWorkers
	if s.db.Flavor != db.Postgres {
		// SQLite has one writer: more workers would only queue for it.
		workers = 1
	}
	var work func()
	work = func() {
		defer wg.Done()
		defer func() {
			// A worker that stops (nothing it could claim, a case held)
			// leaves its place to another.
			mu.Lock()
			running--
			mu.Unlock()
		}()
		n, err := s.fireDueTimers(ctx, func() {
			mu.Lock()
			defer mu.Unlock()
			if running < workers {
				running++
				wg.Add(1)
				go work()
			}
		})
		mu.Lock()
		fired += n
		if err != nil {
			errs = append(errs, err)
		}
		mu.Unlock()
	}
	wg.Add(1)
	work()
	wg.Wait()
	return fired, errors.Join(errs...)
}

// timerBehind is how late a timer must fire for its worker to count as
// behind: then it claims the next timer without looking first, and calls
// for help.
const timerBehind = 100 * time.Millisecond

// fireDueTimers fires due timers one after another until none is left
// that it can claim, calling more after each one that fired late.
func (s *Service) fireDueTimers(ctx context.Context, more func()) (int, error) {
	const op = "service.FireDueTimers"
	fired := 0
	behind := false
	for {
		// A plain read first: the claim is a locking transaction, and a
		// command (with its metrics and span) for each idle look would
		// drown the timers that do fire. Behind, the claim goes straight
		// ahead: timers are surely due.
		if !behind {
			if due, ok, err := db.NextTimerDue(ctx, s.db); err != nil || !ok || due.After(s.now()) {
				return fired, wrap(op, err)
			}
		}
		var claimed *db.DueTimer
		err := s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
			claimed = nil
			// Most timers are a root case's: claimed with the case, locked
			// and loaded, in one statement. Else the timer claimed stays
			// claimed, and the plain claim returns it.
			t, rec, c, ok, err := db.ClaimDueRootTimer(ctx, tx, s.db.Flavor, s.now())
			if err != nil {
				return err
			}
			if ok {
				claimed = &t
				return s.fireTimerOn(ctx, tx, t, rec, c)
			}
			if t, ok, err = db.ClaimDueTimer(ctx, tx, s.db.Flavor, s.now()); err != nil || !ok {
				return err
			}
			claimed = &t
			return s.fireTimer(ctx, tx, t)
		})
		switch {
		case errors.Is(err, db.ErrLocked):
			// A command holds the case: this timer fires next round.
			return fired, nil
		case claimed == nil:
			return fired, err
		case err != nil:
			// A timer that cannot fire must not block the ones behind it.
			s.logger.ErrorContext(ctx, "timer failed; retrying it in a minute", "case_id", claimed.CaseID,
				"plan_item_id", claimed.PlanItemID, "err", err)
			if perr := db.PostponeTimer(ctx, s.db, claimed.CaseID, claimed.PlanItemID, s.now().Add(time.Minute)); perr != nil {
				return fired, wrap(op, perr)
			}
		default:
			fired++
			if behind = s.now().Sub(claimed.DueAt) > timerBehind; behind {
				more()
			}
			if s.timerFired != nil || s.observer != nil {
				now := s.now()
				if s.timerFired != nil {
					s.timerFired(*claimed, now)
				}
				if s.observer != nil {
					s.observer.TimerFired(claimed.DueAt, now)
				}
			}
		}
	}
}

// fireTimer fires t, locking and loading its case (its root first).
func (s *Service) fireTimer(ctx context.Context, tx bun.Tx, t db.DueTimer) error {
	rec, c, err := db.LockAndLoadCase(ctx, tx, s.db.Flavor, t.CaseID, true)
	if errors.Is(err, db.ErrNotFound) {
		return db.DeleteTimer(ctx, tx, t.CaseID, t.PlanItemID)
	}
	if err != nil {
		return err
	}
	return s.fireTimerOn(ctx, tx, t, rec, c)
}

// fireTimerOn fires t on its case, locked and loaded as rec and c.
func (s *Service) fireTimerOn(ctx context.Context, tx bun.Tx, t db.DueTimer, rec db.CaseRecord, c *engine.Case) (err error) {
	defer func() {
		// The timer worker has no HTTP server to catch a panic for it.
		if p := recover(); p != nil {
			err = fmt.Errorf("panic firing timer: %v", p)
		}
	}()
	actor := engine.Actor{UserID: timerService.UserID, IsOwner: true}
	effects, err := s.runOnCase(ctx, tx, rec, c, engine.FireTimer{PlanItemID: t.PlanItemID}, actor, timerService)
	var ee *engine.Error
	if errors.As(err, &ee) {
		// The timer no longer applies (its item moved on): drop it rather
		// than retry it forever.
		s.logger.WarnContext(ctx, "timer dropped", "case_id", t.CaseID, "plan_item_id", t.PlanItemID, "reason", ee.Msg)
		return db.DeleteTimer(ctx, tx, t.CaseID, t.PlanItemID)
	}
	if err != nil {
		return err
	}
	return s.settle(ctx, tx, "service.fireTimer", timerService, effects)
}

// RunTimers fires due timers until ctx ends. It sleeps until the next
// timer is due, so that a timer fires at its moment, not at the next poll:
// it reads the earliest due time from the database after each round, and
// a command of this process that stores a timer wakes it at once. poll
// bounds every sleep, so that timers stored by other replicas are seen
// within poll of being stored. Any number of replicas may run it: each
// timer is claimed once (see db.ClaimDueTimer). A failed round is tried
// again after a growing pause (pacer): a database outage is logged once,
// when it starts, and once when it ends.
func (s *Service) RunTimers(ctx context.Context, poll time.Duration) {
	wait := time.NewTimer(0)
	defer wait.Stop()
	s.timerPoll.Store(int64(poll))
	s.timerBeat.Store(s.now().UnixNano())
	pace := s.newPacer("timers", "timers")
	for {
		n, err := s.FireDueTimers(ctx)
		msg := "firing timers failed"
		var d time.Duration
		if err == nil {
			msg = "reading the next timer failed"
			d, err = s.nextTimerWait(ctx, poll)
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			d = pace.failed(ctx, msg, err)
		} else {
			pace.succeeded(ctx)
			s.timerBeat.Store(s.now().UnixNano())
			if n > 0 {
				s.logger.DebugContext(ctx, "timers fired", "count", n)
			}
			if d == 0 {
				// A due timer is still there: another replica or a command
				// holds it. Looking again at once would spin until they
				// commit.
				d = heldTimerPause
			}
		}
		if !pace.sleep(ctx, wait, d, s.timerWake) {
			return
		}
	}
}

// heldTimerPause is how long the runner waits for a due timer that
// another transaction holds.
const heldTimerPause = 10 * time.Millisecond

// nextTimerWait is how long RunTimers may sleep: until the earliest timer
// is due, at most poll.
func (s *Service) nextTimerWait(ctx context.Context, poll time.Duration) (time.Duration, error) {
	due, ok, err := db.NextTimerDue(ctx, s.db)
	if err != nil || !ok {
		return poll, err
	}
	return min(max(due.Sub(s.now()), 0), poll), nil
}

// wakeTimers tells RunTimers to look at the timers again.
func (s *Service) wakeTimers() {
	select {
	case s.timerWake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

type timersSetKey struct{}

// noteTimersSet records, for the command running in ctx, that it stored a
// new or moved timer; the command wakes the runner once committed.
func noteTimersSet(ctx context.Context) {
	if p, ok := ctx.Value(timersSetKey{}).(*bool); ok {
		*p = true
	}
}

// newTimers reports whether a case write stores a timer that was not
// stored before, or stores it for another moment.
func newTimers(w db.CaseWrite) bool {
	old := map[string]time.Time{}
	if w.Before != nil {
		for _, t := range w.Before.Timers {
			old[t.PlanItemID] = t.Due
		}
	}
	for _, t := range w.Timers {
		if due, ok := old[t.PlanItemID]; !ok || !due.Equal(t.Due) {
			return true
		}
	}
	return false
}
