package engine

import (
	"slices"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// makeTransition applies a user's transition to the item with the given id
// or, failing that, to every item with that name whose stage allows it,
// newest first (reference issue #104).
func (r *run) makeTransition(cmd MakeTransition) error {
	t, ok := ParseTransition(string(cmd.Transition))
	if !ok {
		return errorf(ErrInvalid, "Transition %s is not valid", cmd.Transition)
	}
	cmd.Transition = t
	if p := r.item(cmd.PlanItem); p != nil {
		if !r.stageActive(p) {
			return r.stageNotActive(p, cmd.Transition)
		}
		changed, err := r.userTransition(p, cmd.Transition)
		if err != nil {
			return err
		}
		if !changed {
			return r.noEffect(p, cmd.Transition)
		}
		return nil
	}
	var named []*PlanItem
	for _, p := range slices.Backward(r.c.PlanItems) {
		if p.Name == cmd.PlanItem {
			named = append(named, p)
		}
	}
	if len(named) == 0 {
		return errorf(ErrInvalid, "There is no plan item with identifier '%s' in case %s", cmd.PlanItem, r.c.ID)
	}
	var allowed []*PlanItem
	for _, p := range named {
		if r.stageActive(p) {
			allowed = append(allowed, p)
		}
	}
	if len(allowed) == 0 {
		return r.stageNotActive(named[0], cmd.Transition)
	}
	changedAny := false
	for _, p := range allowed {
		changed, err := r.userTransition(p, cmd.Transition)
		if err != nil {
			return err
		}
		changedAny = changedAny || changed
	}
	if !changedAny {
		return r.noEffect(allowed[0], cmd.Transition)
	}
	return nil
}

func (r *run) stageNotActive(p *PlanItem, t Transition) error {
	return stateErrorf("Cannot perform action '%s' on '%s', since the surrounding stage is not active",
		cmmnTransition(t), p.Name)
}

func (r *run) noEffect(p *PlanItem, t Transition) error {
	return errorf(ErrNoEffect, "Transition has no effect: '%s' cannot be done on '%s' in state %s", cmmnTransition(t), p.Name, p.State)
}

// userTransition applies t to p on behalf of the actor, with the checks
// and special cases of a user's request, and reports whether p changed.
func (r *run) userTransition(p *PlanItem, t Transition) (bool, error) {
	def := r.definition(p)
	switch {
	case t == Occur && p.Type == string(cmmn.TypeUserEvent) && def != nil:
		if ue, ok := def.Definition().(*cmmn.UserEvent); ok && !r.mayRaise(ue) {
			return false, errorf(ErrNotAllowed, "User '%s' does not have the permission to raise the event %s", r.actor.UserID, p.Name)
		}
	case t == Complete && p.Type == string(cmmn.TypeHumanTask) && def != nil:
		// This route answers 400, not 401, to a missing role (§1.8).
		if !r.actor.HasRole(r.taskRole(p)) && !r.isAssignee(p) {
			return false, errorf(ErrInvalid, "You do not have the permission to perform the task %s", p.Name)
		}
		if p.State != Active {
			return false, nil
		}
		if err := r.pairing(cmdComplete, p, r.actor.UserID); err != nil {
			return false, err
		}
		// Completing through the plan runs the task's completion, with
		// empty output.
		return true, r.completeTask(p, nil)
	case t == Complete && (p.Type == string(cmmn.TypeStage) || p.Type == string(cmmn.TypeCasePlan)):
		if p.State != Active {
			return false, nil
		}
		if !r.canCompleteManually(p) {
			return false, stateErrorf("Cannot complete the stage as there are active items remaining")
		}
	}
	return r.transition(p, t, "")
}

// mayRaise reports whether the actor holds one of the event's authorized
// roles; an event without roles is open to every team member.
func (r *run) mayRaise(ue *cmmn.UserEvent) bool {
	roles := ue.AuthorizedRoles()
	if len(roles) == 0 {
		return true
	}
	for _, role := range roles {
		if r.actor.HasRole(role.Name()) {
			return true
		}
	}
	return false
}

// fireTimer makes a due timer event occur.
func (r *run) fireTimer(cmd FireTimer) error {
	p := r.item(cmd.PlanItemID)
	if p == nil || p.Type != string(cmmn.TypeTimerEvent) {
		return errorf(ErrInvalid, "There is no timer event with identifier '%s' in case %s", cmd.PlanItemID, r.c.ID)
	}
	if !r.stageActive(p) {
		return r.stageNotActive(p, Occur)
	}
	changed, err := r.transition(p, Occur, "")
	if err != nil {
		return err
	}
	if !changed {
		return r.noEffect(p, Occur)
	}
	return nil
}
