package engine

import (
	"fmt"
	"slices"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// maxSteps bounds the work one command may cause. Models can loop: a
// repeating milestone without entry criteria occurs, repeats and occurs
// again; two sentries can keep starting each other. Such a command fails
// instead of running forever.
const maxSteps = 20000

// run is one command being executed: the case it changes and the events it
// produced so far. Work that follows from a change (sentries, children,
// repetition) goes through a queue rather than the call stack, so that deep
// chains cannot overflow it and loops can be bounded. The queue is worked
// depth first: what follows from an action is done before the action's
// siblings, as the reference engine handles one event completely before
// the next (a stage started by the first of three new array elements is
// set up while that element is still the current one).
type run struct {
	def   *cmmn.Case
	c     *Case
	actor Actor
	env   Env

	events []Event
	// effects is the work the command asks of other cases; see Effect.
	effects []Effect
	// stack holds pending actions, the next one last; fresh collects the
	// actions caused by the one being processed, in order.
	stack []action
	fresh []action
	// held collects the case file notices of case input parameters at
	// StartCase; they are released once the plan exists (reference
	// issue #115), so entry criteria on the case file see every one.
	held    []action
	holding bool
	// checks are stages to check for completion once the queue is empty:
	// a stage must not complete while its sentries are still settling.
	checks   []*PlanItem
	checkSet map[*PlanItem]bool
	// seen overlays, for items changed in this command, the last
	// transition sentries have been told about; see visible.
	seen map[*PlanItem]seenTransition
	born map[*PlanItem]bool

	steps int
	ids   int

	// Indexes over the plan items, kept up to date as items are created,
	// so that a command costs about the same however many items a case
	// has accumulated.
	byID     map[string]*PlanItem
	byDef    map[string][]*PlanItem // instances by definition id, oldest first
	kids     map[string][]*PlanItem // children by stage id, oldest first
	newestOf map[instanceKey]*PlanItem
	newestBy map[string][]instanceKey // the keys of newestOf by definition id
	// Per definition, computed when first needed: the timers a plan item
	// starts, and the items with criteria that have no on-part.
	timerTriggers map[*cmmn.PlanItem][]*cmmn.PlanItem
	conditional   []*cmmn.PlanItem
	condDone      bool
}

// instanceKey names the instances of one definition in one stage instance.
type instanceKey struct{ def, stage string }

// seenTransition is a plan item transition as sentries know it.
type seenTransition struct {
	t    Transition
	seq  int64
	crit string
}

// actionKind says what a queued action does.
type actionKind int

const (
	// itemNotice tells the case that item made transition t.
	itemNotice actionKind = iota
	// fileNotice tells the case that a case file item made transition ft.
	fileNotice
	// doTransition makes item take transition t, if it still can.
	doTransition
)

type action struct {
	kind actionKind
	seq  int64
	item *PlanItem
	t    Transition
	crit string // exit criterion behind an Exit
	file *cmmn.CaseFileItem
	ft   cmmn.CaseFileTransition
	// array is the instance path of the array holding the element, and
	// index the element's position; -1 for other items.
	array string
	index int
}

func newRun(def *cmmn.Case, c *Case, actor Actor, env Env) *run {
	r := &run{def: def, c: c, actor: actor, env: env,
		checkSet: map[*PlanItem]bool{}, seen: map[*PlanItem]seenTransition{}, born: map[*PlanItem]bool{},
		byID: map[string]*PlanItem{}, byDef: map[string][]*PlanItem{}, kids: map[string][]*PlanItem{},
		newestOf: map[instanceKey]*PlanItem{}, newestBy: map[string][]instanceKey{}}
	for _, p := range c.PlanItems {
		if p != nil {
			r.index(p)
		}
	}
	return r
}

// index adds a plan item to the run's indexes.
func (r *run) index(p *PlanItem) {
	if _, dup := r.byID[p.ID]; !dup {
		r.byID[p.ID] = p
	}
	r.byDef[p.DefinitionID] = append(r.byDef[p.DefinitionID], p)
	if p.StageID != "" {
		r.kids[p.StageID] = append(r.kids[p.StageID], p)
	}
	key := instanceKey{p.DefinitionID, p.StageID}
	n, seen := r.newestOf[key]
	if !seen {
		r.newestBy[p.DefinitionID] = append(r.newestBy[p.DefinitionID], key)
	}
	if !seen || p.Index > n.Index {
		r.newestOf[key] = p
	}
}

// item returns the plan item with the given id, or nil.
func (r *run) item(id string) *PlanItem { return r.byID[id] }

// Execute runs cmd on c, changing c in place, and returns the events it
// produced, the last of which is CaseModified. It drops the effects the
// command has on other cases (see ExecuteWithEffects), so it is only for
// callers that look at one case alone, like tests of a model without case
// tasks. On error c may be half
// changed and must be discarded; the error is an *Error whose Kind says
// why (ErrNoEffect for a transition or a workflow command that changed
// nothing: claiming one's own task, revoking an unassigned one). The id
// of a planned discretionary item is PlannedItemID(events).
func Execute(def *cmmn.Case, c *Case, cmd Command, actor Actor, env Env) ([]Event, error) {
	out, err := ExecuteWithEffects(def, c, cmd, actor, env)
	return out.Events, err
}

// Outcome is what a command produced: the events of the case it ran on,
// and the effects it asks for on other cases.
type Outcome struct {
	Events  []Event
	Effects []Effect
}

// ExecuteWithEffects is Execute that also returns the command's effects;
// the caller applies them (see Effect) in the same transaction.
func ExecuteWithEffects(def *cmmn.Case, c *Case, cmd Command, actor Actor, env Env) (Outcome, error) {
	if def == nil || c == nil || len(c.PlanItems) == 0 || c.PlanItems[0] == nil || c.PlanItems[0].StageID != "" {
		return Outcome{}, errorf(ErrInvalid, "The case has no definition or no case plan")
	}
	if slices.Contains(c.PlanItems, nil) {
		return Outcome{}, errorf(ErrInvalid, "The state of case %s is damaged: it has an empty plan item", c.ID)
	}
	if c.File == nil {
		c.File = map[string]any{}
	}
	r := newRun(def, c, actor, env)
	var err error
	switch cmd := cmd.(type) {
	case MakeTransition:
		err = r.makeTransition(cmd)
	case ChangeCaseFile:
		err = r.changeCaseFile(cmd)
	case CompleteHumanTask:
		err = r.completeHumanTask(cmd)
	case FireTimer:
		err = r.fireTimer(cmd)
	case ClaimTask:
		err = r.claimTask(cmd)
	case AssignTask:
		err = r.assignTask(cmd)
	case DelegateTask:
		err = r.delegateTask(cmd)
	case RevokeTask:
		err = r.revokeTask(cmd)
	case SaveTaskOutput:
		err = r.saveTaskOutput(cmd)
	case PlanDiscretionaryItem:
		err = r.planDiscretionaryItem(cmd)
	case SubCaseChanged:
		err = r.subCaseChanged(cmd)
	case CaseTaskChanged:
		err = r.caseTaskChanged(cmd)
	case ProcessCompleted:
		err = r.processDone(cmd.TaskID, cmd.CallID, ProcessResult{StatusCode: cmd.StatusCode, Output: cmd.Output})
	case ProcessFailed:
		err = r.processDone(cmd.TaskID, cmd.CallID, ProcessResult{Failed: true, Reason: cmd.Reason, StatusCode: cmd.StatusCode, Output: cmd.Output})
	default:
		err = errorf(ErrInvalid, "The engine does not know the command %T", cmd)
	}
	if err == nil {
		err = r.drain()
	}
	if err != nil {
		return Outcome{}, err
	}
	r.finish()
	return Outcome{Events: r.events, Effects: r.effects}, nil
}

// emit appends an event and returns its sequence number.
func (r *run) emit(payload any) int64 {
	r.events = append(r.events, Event{Type: eventName(payload), Payload: payload})
	return r.c.Sequence + int64(len(r.events))
}

func (r *run) enqueue(a action) {
	if a.kind == fileNotice && r.holding {
		r.held = append(r.held, a)
		return
	}
	r.fresh = append(r.fresh, a)
}

// push moves the fresh actions onto the stack, so that they come next, in
// the order they were caused.
func (r *run) push() {
	for i := len(r.fresh) - 1; i >= 0; i-- {
		r.stack = append(r.stack, r.fresh[i])
	}
	r.fresh = r.fresh[:0]
}

// scheduleCheck asks for stage to be checked for completion once the case
// has settled.
func (r *run) scheduleCheck(stage *PlanItem) {
	if stage == nil || r.checkSet[stage] {
		return
	}
	r.checkSet[stage] = true
	r.checks = append(r.checks, stage)
}

// drain processes queued work until the case is quiescent.
func (r *run) drain() error {
	for {
		r.push()
		for len(r.stack) > 0 {
			a := r.stack[len(r.stack)-1]
			r.stack = r.stack[:len(r.stack)-1]
			if err := r.step(); err != nil {
				return err
			}
			var err error
			switch a.kind {
			case itemNotice:
				err = r.itemNotice(a)
			case fileNotice:
				err = r.fileNotice(a)
			case doTransition:
				_, err = r.transition(a.item, a.t, a.crit)
			}
			if err != nil {
				return err
			}
			r.push()
		}
		if len(r.held) > 0 {
			// The case input's case file notices reach the sentries
			// once the plan exists, before any stage may complete.
			r.fresh, r.held = r.held, nil
			continue
		}
		if len(r.checks) == 0 {
			return nil
		}
		stage := r.checks[0]
		r.checks = r.checks[1:]
		delete(r.checkSet, stage)
		if err := r.step(); err != nil {
			return err
		}
		if err := r.autoComplete(stage); err != nil {
			return err
		}
	}
}

func (r *run) step() error {
	r.steps++
	if r.steps > maxSteps {
		return errorf(ErrInvalid, "The case did not settle within %d steps; the definition keeps repeating items or firing sentries without end", maxSteps)
	}
	return nil
}

// finish stamps the case and ends the command's events with CaseModified.
func (r *run) finish() {
	c := r.c
	c.LastModified = r.env.Now
	c.ModifiedBy = r.actor.UserID
	c.Failures = 0
	for _, p := range c.PlanItems {
		if p.State == Failed {
			c.Failures++
		}
	}
	r.emit(CaseModified{CaseInstanceID: c.ID, State: c.State(), Failures: c.Failures,
		LastModified: c.LastModified, ModifiedBy: c.ModifiedBy})
	c.Sequence += int64(len(r.events))
}

// newID returns a fresh plan item id from the environment, or a
// deterministic one when the environment has no generator.
func (r *run) newID() string {
	if r.env.NewID != nil {
		if id := r.env.NewID(); id != "" && r.item(id) == nil {
			return id
		}
	}
	for {
		r.ids++
		id := fmt.Sprintf("%s_%d", r.c.ID, len(r.c.PlanItems)+r.ids)
		if r.item(id) == nil {
			return id
		}
	}
}

// casePlan returns the case plan item.
func (r *run) casePlan() *PlanItem { return r.c.PlanItems[0] }

// parent returns the stage item holding p, or nil for the case plan.
func (r *run) parent(p *PlanItem) *PlanItem {
	if p.StageID == "" {
		return nil
	}
	return r.item(p.StageID)
}

// definition returns the definition plan item of an instance, or nil when
// the definition no longer has it.
func (r *run) definition(p *PlanItem) *cmmn.PlanItem {
	if p.Type == string(cmmn.TypeCasePlan) {
		return r.def.Plan()
	}
	return r.def.PlanItem(p.DefinitionID)
}

// children returns the items of a stage instance in creation order.
func (r *run) children(stage *PlanItem) []*PlanItem { return r.kids[stage.ID] }

// triggered returns the timer event definitions that item def starts.
func (r *run) triggered(def *cmmn.PlanItem) []*cmmn.PlanItem {
	if r.timerTriggers == nil {
		r.timerTriggers = map[*cmmn.PlanItem][]*cmmn.PlanItem{}
		for _, q := range r.def.PlanItems() {
			if t, ok := q.Definition().(*cmmn.TimerEvent); ok {
				if src, _ := t.StartTrigger(); src != nil {
					r.timerTriggers[src] = append(r.timerTriggers[src], q)
				}
			}
		}
	}
	return r.timerTriggers[def]
}

// conditionalItems returns the definitions with a criterion whose sentry
// has an if-part and no on-part: any case file change may satisfy it.
func (r *run) conditionalItems() []*cmmn.PlanItem {
	if !r.condDone {
		r.condDone = true
		for _, q := range append([]*cmmn.PlanItem{r.def.Plan()}, r.def.PlanItems()...) {
			for _, list := range [][]*cmmn.Criterion{q.EntryCriteria(), q.ExitCriteria(), q.ReactivateCriteria()} {
				for _, cr := range list {
					if s := cr.Sentry(); s != nil && len(s.PlanItemOnParts())+len(s.CaseFileItemOnParts()) == 0 {
						r.conditional = append(r.conditional, q)
					}
				}
			}
		}
		r.conditional = slices.Compact(r.conditional)
	}
	return r.conditional
}
