package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
)

// maxEffects bounds the changes of other cases one command may set off
// (sub cases started, ended, suspended, reporting back). The engine bounds
// how deep sub cases nest; this bounds how wide a command may spread.
const maxEffects = 1000

// settle carries out a command's effects in the command's transaction:
// each is an engine command on another case of the tree (starting a sub
// case, telling a sub case its task ended, telling a parent its sub case
// did), whose own effects follow, until none remain. The caller holds the
// root case's lock (memberCase, fireTimer), so the cases it touches here
// are the tree's and nobody else's.
func (s *Service) settle(ctx context.Context, tx bun.Tx, op string, who auth.Identity, effects []engine.Effect) error {
	for n := 0; len(effects) > 0; n++ {
		if n == maxEffects {
			return Ef(op, Invalid, "The command set off more than %d changes of sub cases; the definition keeps starting or ending them without end", maxEffects)
		}
		e := effects[0]
		effects = effects[1:]
		more, err := s.applyEffect(ctx, tx, op, who, e)
		if err != nil {
			return err
		}
		effects = append(effects, more...)
	}
	return nil
}

func (s *Service) applyEffect(ctx context.Context, tx bun.Tx, op string, who auth.Identity, e engine.Effect) ([]engine.Effect, error) {
	switch e := e.(type) {
	case engine.StartSubCase:
		return s.startSubCase(ctx, tx, op, who, e)
	case engine.SubCaseOrder:
		return s.effectCommand(ctx, tx, op, who, e.CaseID, engine.CaseTaskChanged{Transition: e.Transition})
	case engine.ParentReport:
		return s.effectCommand(ctx, tx, op, who, e.ParentID, engine.SubCaseChanged{TaskID: e.TaskID, State: e.State, Output: e.Output})
	case engine.CallProcess:
		return nil, s.storeCall(ctx, tx, e)
	}
	return nil, &Error{Op: op, Kind: Internal, Err: fmt.Errorf("unknown effect %T", e)}
}

// effectActor is the caller acting on another case of the tree because of
// its command on one of them. Its membership of that other case is not
// asked: a sub case's end reaches its parent, and a task's end its sub
// case, whoever caused it (reference §2.4, issue #126). The commands an
// effect runs check no roles.
func effectActor(who auth.Identity) engine.Actor {
	return engine.Actor{UserID: who.UserID, IsOwner: true}
}

// effectCommand runs an effect's command on case id and saves it. A case
// that is not there (a sub case whose start failed) or a command that
// changes nothing (the task already ended) is no error: the other side
// moved on first.
func (s *Service) effectCommand(ctx context.Context, tx bun.Tx, op string, who auth.Identity, id string, cmd engine.Command) ([]engine.Effect, error) {
	rec, c, err := db.LoadCaseForUpdate(ctx, tx, s.db.Flavor, id)
	if errors.Is(err, db.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	effects, err := s.runOnCase(ctx, tx, rec, c, cmd, effectActor(who), who)
	var ee *engine.Error
	switch {
	case errors.As(err, &ee) && ee.Kind == engine.ErrNoEffect:
		return nil, nil
	case ee != nil:
		return nil, engineError(op, err)
	}
	return effects, err
}

// runOnCase runs cmd on case c, loaded with rec, as actor, and saves what
// it changed in tx on behalf of who: the one path of the commands the
// system runs on a case rather than a caller (effects from another case
// of the tree, timers, process outcomes). It returns the effects on other
// cases for the caller to settle, and an engine refusal untranslated,
// since each caller gives it its own meaning.
func (s *Service) runOnCase(ctx context.Context, tx bun.Tx, rec db.CaseRecord, c *engine.Case, cmd engine.Command, actor engine.Actor,
	who auth.Identity) ([]engine.Effect, error) {
	def, err := s.caseDefinition(ctx, tx, rec, c)
	if err != nil {
		return nil, err
	}
	before := c.Clone()
	out, err := engine.ExecuteWithEffects(def, c, cmd, actor, engine.Env{Now: s.now(), NewID: newPlanItemID})
	if err != nil {
		return nil, err
	}
	if _, err := s.saveCase(ctx, tx, def, rec, c, out.Events, who, before); err != nil {
		return nil, err
	}
	return out.Effects, nil
}

// startSubCase starts the sub case a case task asked for, on the <case>
// of its parent's definitions document. A sub case whose start fails (its
// input does not fit) fails the case task instead, which reactivate
// retries; a start that would nest too deep fails the whole command.
func (s *Service) startSubCase(ctx context.Context, tx bun.Tx, op string, who auth.Identity, e engine.StartSubCase) ([]engine.Effect, error) {
	parent, _, err := db.LoadCase(ctx, tx, e.ParentID)
	if err != nil {
		return nil, err
	}
	defs, err := s.storedDefinitions(ctx, tx, parent.DefinitionHash)
	if err != nil {
		return nil, err
	}
	def := defs.Case(e.DefinitionID)
	if def == nil {
		return nil, &Error{Op: op, Kind: Internal, Err: fmt.Errorf("case task %s names case %q, which its definitions document lacks", e.TaskID, e.DefinitionID)}
	}
	now := s.now()
	c, out, err := engine.StartWithEffects(def, engine.StartCase{ID: e.TaskID, Tenant: e.Tenant, Inputs: e.Inputs, Team: e.Team, Debug: e.Debug,
		ParentID: e.ParentID, RootID: e.RootID, Depth: e.Depth}, effectActor(who), engine.Env{Now: now, NewID: newPlanItemID})
	var ee *engine.Error
	if errors.As(err, &ee) && !ee.TooDeep {
		s.logger.InfoContext(ctx, "sub case could not start; its case task fails", "case_id", e.ParentID, "task_id", e.TaskID, "reason", ee.Msg)
		return s.effectCommand(ctx, tx, op, who, e.ParentID, engine.SubCaseChanged{TaskID: e.TaskID, State: engine.Failed, NotStarted: true})
	}
	if err != nil {
		return nil, engineError(op, err)
	}
	rec := db.CaseRecord{ID: e.TaskID, Tenant: e.Tenant, Name: def.Name(), DefinitionName: parent.DefinitionName, DefinitionHash: parent.DefinitionHash,
		ParentCaseID: e.ParentID, RootCaseID: e.RootID, CreatedOn: now, CreatedBy: who.UserID}
	if _, err := s.saveCase(ctx, tx, def, rec, c, out.Events, who, nil); err != nil {
		if errors.Is(err, db.ErrExists) {
			return nil, Ef(op, Invalid, "The sub case of task %s cannot start: a case with id '%s' exists", e.TaskName, e.TaskID)
		}
		return nil, err
	}
	return out.Effects, nil
}

// lockTree takes the lock of the root of case id's tree, the first lock
// of every command on a case of the tree (db.LockCaseRoot). An unknown
// case is left to the load that follows, which says so.
func (s *Service) lockTree(ctx context.Context, tx bun.Tx, id string, nowait bool) error {
	if _, err := db.LockCaseRoot(ctx, tx, s.db.Flavor, id, nowait); err != nil && !errors.Is(err, db.ErrNotFound) {
		return err
	}
	return nil
}

// Output is the case's output parameters, computed from its case file
// once it completed; nil before.
func (v CaseView) Output() map[string]any {
	if v.State == nil || v.State.State() != engine.Completed || v.def == nil {
		return nil
	}
	return engine.CaseOutput(v.def, v.State)
}

// SubCaseIDs lists the sub cases the case's case tasks started, in the
// order the tasks were created.
func (v CaseView) SubCaseIDs() []string {
	if v.State == nil {
		return nil
	}
	var ids []string
	for _, p := range v.State.PlanItems {
		if p.SubCaseID != "" {
			ids = append(ids, p.SubCaseID)
		}
	}
	return ids
}

// CaseTreeTasks lists the tasks of a case and of its sub cases at any
// depth (GET /tasks/case/{id}?includeSubCaseTasks=true): the requested case
// must be the caller's (NotFound otherwise, whatever its sub cases), and
// of its sub cases only those whose own team has the caller count.
func (s *Service) CaseTreeTasks(ctx context.Context, who auth.Identity, caseID string) ([]CaseTask, error) {
	const op = "service.CaseTreeTasks"
	out, err := s.CaseTasks(ctx, who, caseID)
	if err != nil {
		return nil, err
	}
	ids, err := db.CaseTreeIDs(ctx, s.db, caseID)
	if err != nil {
		return nil, wrap(op, err)
	}
	for _, id := range ids[1:] {
		tasks, err := s.CaseTasks(ctx, who, id)
		switch {
		case KindOf(err) == NotFound || KindOf(err) == NotAllowed:
			// Not in that sub case's team (or disabled in it): its tasks
			// are not the caller's to see.
		case err != nil:
			return nil, err
		default:
			out = append(out, tasks...)
		}
	}
	return out, nil
}
