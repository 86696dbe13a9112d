package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
)

// ProcessConfig bounds and configures the calls of process tasks.
type ProcessConfig struct {
	// Timeout bounds one call (HTTP request or mail). Default 30s.
	Timeout time.Duration
	// Workers bounds the calls one replica makes at once. Default 4.
	Workers int
	// MaxResponseBytes bounds an HTTP response body; a larger one fails
	// the task. Default 1 MiB.
	MaxResponseBytes int64
	// AllowHosts lists the hosts HTTP calls may reach: "host",
	// "host:port", "*.domain" or "*.domain:port". Empty allows every host
	// except link-local addresses (cloud metadata services), which need
	// an entry naming them.
	AllowHosts []string
	// SMTP is the mail server; an empty Addr fails mail tasks with a
	// reason saying so.
	SMTP SMTPConfig
	// Called, when set, is told of every call made (tests count them).
	Called func(call engine.CallProcess, attempt int)
}

// SMTPConfig is the server mail tasks send through.
type SMTPConfig struct {
	Addr, User, Password, From string
}

func (c ProcessConfig) withDefaults() ProcessConfig {
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.Workers <= 0 {
		c.Workers = 4
	}
	if c.MaxResponseBytes <= 0 {
		c.MaxResponseBytes = 1 << 20
	}
	return c
}

// processService is the identity process tasks report their outcome as,
// like timers: the reference engine's process task actor.
var processService = auth.Identity{UserID: "ProcessTaskService"}

// lease is how long a claimed call belongs to its worker: longer than a
// call may take, so that only a worker that died loses its calls.
func (s *Service) lease() time.Duration { return s.process.Timeout + 30*time.Second }

// storeCall writes a call the engine asked for into the outbox, in the
// command's transaction.
func (s *Service) storeCall(ctx context.Context, tx bun.Tx, e engine.CallProcess) error {
	payload, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := db.AddOutboxCall(ctx, tx, db.OutboxCall{CallID: e.CallID, CaseID: e.CaseID, TaskID: e.TaskID,
		Payload: string(payload), CreatedAt: s.now()}); err != nil {
		return err
	}
	noteCallsAdded(ctx)
	return nil
}

type callsAddedKey struct{}

// noteCallsAdded counts a call the running command stored: once it
// commits, the worker wakes.
func noteCallsAdded(ctx context.Context) {
	if p, ok := ctx.Value(callsAddedKey{}).(*int); ok {
		*p++
	}
}

func (s *Service) wakeCalls() {
	select {
	case s.callWake <- struct{}{}:
	default:
	}
}

// RunProcessCalls makes the outbox's calls until ctx ends, at most
// Workers at once. It wakes when a command of this process stored a call,
// when a lease ends, and every poll for calls other replicas stored. A
// failed look is tried again after a growing pause (pacer): a database
// outage is logged once, when it starts, and once when it ends. On
// return, the calls under way have ended.
func (s *Service) RunProcessCalls(ctx context.Context, poll time.Duration) {
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, s.process.Workers)
	wait := time.NewTimer(0)
	defer wait.Stop()
	pace := s.newPacer("process_calls", "process calls")
	for {
		var err error
		for {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			var call db.OutboxCall
			var ok bool
			call, ok, err = s.claimCall(ctx)
			if !ok {
				<-slots
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				s.runCall(ctx, call)
			}()
		}
		msg := "claiming a process call failed"
		d := poll
		if err == nil {
			msg = "reading the next process call failed"
			var due time.Time
			var ok bool
			if due, ok, err = db.NextOutboxDue(ctx, s.db, s.now()); err == nil && ok {
				d = min(max(due.Sub(s.now()), 0)+time.Millisecond, poll)
			}
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			d = pace.failed(ctx, msg, err)
		} else {
			pace.succeeded(ctx)
		}
		if !pace.sleep(ctx, wait, d, s.callWake) {
			return
		}
	}
}

// RunDueCalls makes every call that can be claimed now, one after the
// other, and returns how many it made: for tests and one-off runs.
func (s *Service) RunDueCalls(ctx context.Context) (int, error) {
	n := 0
	for {
		call, ok, err := s.claimCall(ctx)
		if err != nil || !ok {
			return n, err
		}
		s.runCall(ctx, call)
		n++
	}
}

func (s *Service) claimCall(ctx context.Context) (db.OutboxCall, bool, error) {
	var (
		call db.OutboxCall
		ok   bool
	)
	err := s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		call, ok, err = db.ClaimOutboxCall(ctx, tx, s.db.Flavor, s.now(), s.lease())
		return err
	})
	return call, ok && err == nil, wrap("service.claimCall", err)
}

// runCall makes one claimed call and reports its outcome to the case.
// A call whose task no longer waits for it is dropped without being made.
// When the outcome cannot be reported, the row stays and is claimed again
// once its lease ends.
func (s *Service) runCall(ctx context.Context, row db.OutboxCall) {
	log := s.logger.With("case_id", row.CaseID, "task_id", row.TaskID, "call_id", row.CallID, "attempt", row.Attempts)
	obs := s.workerObserver()
	var done func(outcome string, took time.Duration)
	var took time.Duration
	outcome := "retried"
	defer func() {
		if p := recover(); p != nil {
			log.ErrorContext(ctx, "process call panicked; it is retried when its lease ends", "panic", fmt.Sprint(p))
		}
		if done != nil {
			done(outcome, took)
		}
	}()
	var call engine.CallProcess
	if err := json.Unmarshal([]byte(row.Payload), &call); err != nil {
		log.ErrorContext(ctx, "process call unreadable; dropped", "err", err)
		s.dropCall(ctx, row.CallID)
		if obs != nil {
			obs.ProcessCallDropped(callKind(call))
		}
		return
	}
	wanted, err := s.callWanted(ctx, row)
	if db.IsUnavailable(err) {
		// The outcome could not be reported either: making the call now
		// would only make it twice.
		log.WarnContext(ctx, "database unavailable; process call left for when its lease ends", "err", err)
		return
	}
	if !wanted {
		log.InfoContext(ctx, "process call no longer wanted; dropped")
		s.dropCall(ctx, row.CallID)
		if obs != nil {
			obs.ProcessCallDropped(callKind(call))
		}
		return
	}
	if row.Attempts > 1 {
		log.WarnContext(ctx, "process call claimed again after its lease ended; it may be made twice")
	}
	if s.process.Called != nil {
		s.process.Called(call, row.Attempts)
	}
	if obs != nil {
		done = obs.ProcessCallStarted(callKind(call))
	}
	cctx, cancel := context.WithTimeout(ctx, s.process.Timeout)
	start := time.Now()
	res := s.makeCall(cctx, call)
	took = time.Since(start)
	cancel()
	if ctx.Err() != nil {
		// Shutting down: the outcome may be the shutdown's; the call is
		// made again after the lease.
		return
	}
	if err := s.reportCall(ctx, row, res); err != nil {
		if db.IsUnavailable(err) {
			// Noting the failure would fail the same way; the outage
			// itself is the worker's one warning.
			log.WarnContext(ctx, "database unavailable; the outcome of a process call was not recorded: it is made again when its lease ends", "err", err)
			return
		}
		log.ErrorContext(ctx, "reporting a process call failed; it is retried when its lease ends", "err", err)
		if nerr := db.NoteOutboxError(ctx, s.db, row.CallID, err.Error()); nerr != nil {
			log.ErrorContext(ctx, "noting the failure failed", "err", nerr)
		}
		return
	}
	outcome = "ok"
	if res.Failed {
		outcome = "failed"
	}
}

// callKind is a call's metric label.
func callKind(c engine.CallProcess) string {
	switch {
	case c.HTTP != nil:
		return "http"
	case c.Mail != nil:
		return "mail"
	}
	return "other"
}

func (s *Service) dropCall(ctx context.Context, callID string) {
	if _, err := db.DeleteOutboxCall(ctx, s.db, callID); err != nil {
		s.logger.ErrorContext(ctx, "dropping a process call failed", "call_id", callID, "err", err)
	}
}

// callWanted reads (without a lock) whether the task still waits for the
// call, so that a task terminated meanwhile costs no call. The report
// checks again under the lock. An error other than an unavailable
// database counts as wanted: the report will tell.
func (s *Service) callWanted(ctx context.Context, row db.OutboxCall) (bool, error) {
	_, c, err := db.LoadCase(ctx, s.db, row.CaseID)
	if errors.Is(err, db.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	for _, p := range c.PlanItems {
		if p != nil && p.ID == row.TaskID {
			return p.Process != nil && p.Process.CallID == row.CallID, nil
		}
	}
	return false, nil
}

func (s *Service) makeCall(ctx context.Context, call engine.CallProcess) engine.ProcessResult {
	switch {
	case call.HTTP != nil:
		return s.httpCall(ctx, call)
	case call.Mail != nil:
		return s.sendMail(ctx, call)
	}
	return engine.ProcessResult{Failed: true, Reason: "The process call names no HTTP request and no mail"}
}

// reportCall tells the case the outcome, in one transaction that also
// deletes the outbox row: the outcome counts once.
func (s *Service) reportCall(ctx context.Context, row db.OutboxCall, res engine.ProcessResult) error {
	const op = "service.reportCall"
	var cmd engine.Command = engine.ProcessCompleted{TaskID: row.TaskID, CallID: row.CallID, StatusCode: res.StatusCode, Output: res.Output}
	if res.Failed {
		cmd = engine.ProcessFailed{TaskID: row.TaskID, CallID: row.CallID, Reason: res.Reason, StatusCode: res.StatusCode, Output: res.Output}
	}
	return s.command(unanswered(ctx), op, func(ctx context.Context, tx bun.Tx) error {
		if err := s.lockTree(ctx, tx, row.CaseID, false); err != nil {
			return err
		}
		there, err := db.DeleteOutboxCall(ctx, tx, row.CallID)
		if err != nil || !there {
			// Gone: another worker reported it, or the case was deleted.
			return err
		}
		rec, c, err := db.LoadCaseForUpdate(ctx, tx, s.db.Flavor, row.CaseID)
		if errors.Is(err, db.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		actor := engine.Actor{UserID: processService.UserID, IsOwner: true}
		effects, err := s.runOnCase(ctx, tx, rec, c, cmd, actor, processService)
		var ee *engine.Error
		if errors.As(err, &ee) {
			// The task moved on (terminated, reactivated): the outcome
			// is of no use, and retrying it would not change that.
			s.logger.InfoContext(ctx, "process outcome dropped", "case_id", row.CaseID, "task_id", row.TaskID, "reason", ee.Msg)
			return nil
		}
		if err != nil {
			return err
		}
		return s.settle(ctx, tx, op, processService, effects)
	})
}
