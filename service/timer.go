package service

import (
	"context"
	"errors"
	"fmt"
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
func (s *Service) FireDueTimers(ctx context.Context) (int, error) {
	const op = "service.FireDueTimers"
	fired := 0
	for {
		var claimed *db.DueTimer
		err := s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
			claimed = nil
			t, ok, err := db.ClaimDueTimer(ctx, tx, s.db.Flavor, s.now())
			if err != nil || !ok {
				return err
			}
			claimed = &t
			return s.fireTimer(ctx, tx, t)
		})
		switch {
		case claimed == nil:
			return fired, err
		case errors.Is(err, db.ErrLocked):
			// A command holds the case: this timer fires next round.
			return fired, nil
		case err != nil:
			// A timer that cannot fire must not block the ones behind it.
			s.logger.ErrorContext(ctx, "timer failed; retrying it in a minute", "case_id", claimed.CaseID,
				"plan_item_id", claimed.PlanItemID, "err", err)
			if perr := db.PostponeTimer(ctx, s.db, claimed.CaseID, claimed.PlanItemID, s.now().Add(time.Minute)); perr != nil {
				return fired, wrap(op, perr)
			}
		default:
			fired++
		}
	}
}

func (s *Service) fireTimer(ctx context.Context, tx bun.Tx, t db.DueTimer) (err error) {
	defer func() {
		// The timer worker has no HTTP server to catch a panic for it.
		if p := recover(); p != nil {
			err = fmt.Errorf("panic firing timer: %v", p)
		}
	}()
	rec, c, err := db.LoadCaseIfFree(ctx, tx, s.db.Flavor, t.CaseID)
	if errors.Is(err, db.ErrNotFound) {
		return db.DeleteTimer(ctx, tx, t.CaseID, t.PlanItemID)
	}
	if err != nil {
		return err
	}
	def, err := s.caseDefinition(ctx, tx, rec, c)
	if err != nil {
		return err
	}
	before, err := cloneCase(c)
	if err != nil {
		return err
	}
	actor := engine.Actor{UserID: timerService.UserID, IsOwner: true}
	events, err := engine.Execute(def, c, engine.FireTimer{PlanItemID: t.PlanItemID}, actor, engine.Env{Now: s.now(), NewID: newPlanItemID})
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
	_, err = s.saveCase(ctx, tx, def, rec, c, events, timerService, before)
	return err
}

// RunTimers fires due timers every interval until ctx ends.
func (s *Service) RunTimers(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		if n, err := s.FireDueTimers(ctx); err != nil && ctx.Err() == nil {
			s.logger.ErrorContext(ctx, "firing timers failed", "err", err)
		} else if n > 0 {
			s.logger.DebugContext(ctx, "timers fired", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
