package engine

import (
	"strings"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// The lifecycles of §4.1. A transition that is not in a table for the
// current state has no effect: the reference engine ignores it silently
// (REST answers 304), so it is not an error.
var (
	taskLifecycle = map[State]map[Transition]State{
		Null:      {Create: Available},
		Available: {StartTransition: Active, Enable: Enabled, Exit: Terminated, ParentSuspend: Suspended},
		Enabled:   {Disable: Disabled, ManualStart: Active, Exit: Terminated, ParentSuspend: Suspended},
		Disabled:  {Reenable: Enabled, Exit: Terminated, ParentSuspend: Suspended},
		Active: {Suspend: Suspended, Complete: Completed, Terminate: Terminated, Fault: Failed, Exit: Terminated,
			ParentSuspend: Suspended},
		Suspended: {Resume: Active, ParentResume: Active, Exit: Terminated},
		Failed:    {Reactivate: Active, Exit: Terminated},
	}
	eventLifecycle = map[State]map[Transition]State{
		Null: {Create: Available},
		Available: {Occur: Completed, Suspend: Suspended, ParentSuspend: Suspended, Terminate: Terminated,
			ParentTerminate: Terminated},
		Suspended: {Resume: Available, ParentResume: Available, ParentTerminate: Terminated},
	}
	casePlanLifecycle = map[State]map[Transition]State{
		Null:       {Create: Active},
		Active:     {Suspend: Suspended, Complete: Completed, Terminate: Terminated, Fault: Failed},
		Suspended:  {Reactivate: Active, Close: Closed},
		Completed:  {Reactivate: Active, Close: Closed},
		Terminated: {Reactivate: Active, Close: Closed},
		Failed:     {Reactivate: Active, Close: Closed},
	}
)

// nextState returns the state p reaches by t, and false when t does not
// apply in p's state.
func nextState(p *PlanItem, t Transition) (State, bool) {
	table := taskLifecycle
	switch typ := cmmn.PlanItemType(p.Type); {
	case typ == cmmn.TypeCasePlan:
		table = casePlanLifecycle
	case typ.IsEvent():
		table = eventLifecycle
	}
	to, ok := table[p.State][t]
	if !ok {
		return "", false
	}
	if p.State == Suspended {
		switch t {
		case ParentResume:
			// Only what the parent suspended returns with it, to where
			// it was; an item suspended on its own stays suspended.
			if p.LastTransition != ParentSuspend {
				return "", false
			}
			to = p.HistoryState
		case Resume:
			// A user resumes what was suspended by suspend, not what
			// the parent suspended.
			if p.LastTransition != Suspend {
				return "", false
			}
		}
	}
	return to, true
}

// isSemiTerminal reports whether an item in state s no longer keeps its
// stage from completing.
func isSemiTerminal(s State) bool {
	switch s {
	case Completed, Terminated, Disabled, Closed:
		return true
	}
	return false
}

// isTerminal reports whether an item in state s is done for good.
func isTerminal(s State) bool {
	return s == Completed || s == Terminated || s == Closed
}

// cmmnTransition spells an engine transition as the definition does
// (manualStart, parentSuspend), for matching on-parts and for messages.
func cmmnTransition(t Transition) cmmn.Transition {
	s := string(t)
	if s == "" {
		return ""
	}
	return cmmn.Transition(strings.ToLower(s[:1]) + s[1:])
}

// exitTransition is what an exit criterion or the end of the parent stage
// does to an item: tasks and stages exit, events and milestones are
// terminated with their parent, and the case plan terminates.
func exitTransition(p *PlanItem, byParent bool) Transition {
	switch typ := cmmn.PlanItemType(p.Type); {
	case typ == cmmn.TypeCasePlan:
		return Terminate
	case typ.IsEvent():
		if byParent {
			return ParentTerminate
		}
		return Terminate
	}
	return Exit
}
