package service

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
	"github.com/casegraph/casegraph/engine/cmmn"
)

// caseCommand runs one engine command on a case for a team member.
func (s *Service) caseCommand(ctx context.Context, op string, who auth.Identity, id string, cmd engine.Command) (LastModified, error) {
	return s.caseCommandOr(ctx, op, who, id, CaseNotFound(op, id), nil, cmd)
}

// caseCommandOr is caseCommand answering a caller outside the team with
// notFound (see memberCaseOr), starting from the case as read by pre when
// it is not nil (see caseChangeOr).
func (s *Service) caseCommandOr(ctx context.Context, op string, who auth.Identity, id string, notFound error, pre *caseRead, cmd engine.Command) (LastModified, error) {
	return s.caseChangeOr(ctx, op, who, id, notFound, pre, func(_ bun.IDB, ca caseAccess, def *cmmn.Case, who auth.Identity) (engine.Outcome, error) {
		out, err := engine.ExecuteWithEffects(def, ca.c, cmd, ca.actor, engine.Env{Now: s.now(), NewID: newPlanItemID})
		if err != nil {
			return engine.Outcome{}, engineError(op, err)
		}
		return out, nil
	})
}

// caseChange is the path of every change of a case a caller makes: it
// loads the case (team members only), lets change edit its state and
// return the events that say so, and saves both, all or nothing, retried
// when another command on the case won the race.
//
// On PostgreSQL a change of a root case with no effects (no sub case or
// process task to start), most of them, holds no lock: it reads the case
// and the caller's account in one statement, and its writes leave as one
// multi-statement query, a transaction of its own, whose first write, the
// case row's, checks the version read and fails the whole query when
// another command changed the case in between (db.SaveCase). Two round
// trips where a transaction took four (BEGIN, the lock and load, the
// writes, COMMIT). A change that has effects, of a sub case (its tree's
// root is locked first), or that lost a race once, runs again in a
// transaction holding the case's lock, as every change on SQLite does:
// there the effects are applied with it, and commands on one case queue
// instead of failing their version check again.
func (s *Service) caseChange(ctx context.Context, op string, who auth.Identity, id string,
	change func(idb bun.IDB, ca caseAccess, def *cmmn.Case, who auth.Identity) (engine.Outcome, error)) (LastModified, error) {
	return s.caseChangeOr(ctx, op, who, id, CaseNotFound(op, id), nil, change)
}

// caseChangeOr is caseChange answering a caller outside the team with
// notFound; with a NotModified error it also returns the case's last
// modification as it found it. pre, when not nil, is the case and the
// caller's account as a statement of the caller's just read them unlocked
// (a task command finds its task's case so): the first attempt without the
// lock starts from them instead of reading them again.
func (s *Service) caseChangeOr(ctx context.Context, op string, who auth.Identity, id string, notFound error, pre *caseRead,
	change func(idb bun.IDB, ca caseAccess, def *cmmn.Case, who auth.Identity) (engine.Outcome, error)) (LastModified, error) {
	who = s.commandIdentity(who)
	var lm LastModified
	err := s.oneBatchCommand(ctx, op, func(ctx context.Context, idb bun.IDB) error {
		unlocked := !inTx(idb)
		var (
			ca  caseAccess
			err error
		)
		if unlocked && pre != nil {
			// Once: the attempt edits the case it was given.
			ca, err = s.caseAccessOf(ctx, idb, op, who, *pre, notFound)
			pre = nil
		} else {
			ca, err = s.memberCaseOr(ctx, idb, op, who, id, notFound)
		}
		if err != nil {
			return err
		}
		if unlocked && !ca.isRoot() {
			return errNeedsTx
		}
		// A change that changes nothing (NotModified) answers the case's
		// last change, as the reference engine answers its actor's.
		lm = LastModified{At: ca.c.LastModified, ID: id}
		def, err := s.caseDefinition(ctx, idb, ca.rec, ca.c)
		if err != nil {
			return err
		}
		before := ca.c.Clone()
		out, err := change(idb, ca, def, who)
		if err != nil {
			return err
		}
		if unlocked && len(out.Effects) > 0 {
			return errNeedsTx
		}
		if _, err := s.saveCase(ctx, idb, def, ca.rec, ca.c, out.Events, who, before); err != nil {
			return err
		}
		lm = LastModified{At: ca.c.LastModified, ID: id}
		if len(out.Effects) == 0 {
			return nil
		}
		tx := idb.(bun.Tx)
		if err := s.settle(ctx, tx, op, who, out.Effects); err != nil {
			return err
		}
		// A sub case may have reported back and changed the case again.
		_, c, err := db.LoadCase(ctx, tx, id)
		if err != nil {
			return err
		}
		lm.At = c.LastModified
		return nil
	})
	return lm, err
}

// MakeTransition applies a transition (a name such as "complete" or
// "manualStart", any case) to the plan items with that id or name. Any team
// member may; the engine checks the roles a transition needs. NotModified
// when nothing changed.
func (s *Service) MakeTransition(ctx context.Context, who auth.Identity, caseID, planItem, transition string) (LastModified, error) {
	const op = "service.MakeTransition"
	t, ok := engine.ParseTransition(transition)
	if !ok {
		return LastModified{}, E(op, Invalid, "Transition null is not valid")
	}
	return s.caseCommand(ctx, op, who, caseID, engine.MakeTransition{PlanItem: planItem, Transition: t})
}

// ChangeCaseFile creates, updates, replaces or deletes a case file item.
// Any team member may.
func (s *Service) ChangeCaseFile(ctx context.Context, who auth.Identity, id string, op CaseFileOp, path string, value any) (LastModified, error) {
	return s.caseCommand(ctx, "service.ChangeCaseFile", who, id, engine.ChangeCaseFile{Op: op, Path: path, Value: value})
}

// CaseFileOp is a case file operation: create, update, replace or delete.
type CaseFileOp = engine.CaseFileOp

// Case file operations.
const (
	FileCreate  = engine.FileCreate
	FileUpdate  = engine.FileUpdate
	FileReplace = engine.FileReplace
	FileDelete  = engine.FileDelete
)
