package engine

import (
	"github.com/casegraph/casegraph/engine/cmmn"
)

// transition makes p take t if its lifecycle allows it, and reports
// whether it did. crit names the exit criterion behind an Exit.
func (r *run) transition(p *PlanItem, t Transition, crit string) (bool, error) {
	to, ok := nextState(p, t)
	if !ok {
		return false, nil
	}
	from := p.State
	p.HistoryState = from
	p.State = to
	p.LastTransition = t
	p.LastModified = r.env.Now
	p.ModifiedBy = r.actor.UserID
	if t == Exit || t == Terminate || t == ParentTerminate {
		p.ExitCriterion = crit
	}
	seq := r.emit(PlanItemTransitioned{CaseInstanceID: r.c.ID, PlanItemID: p.ID, Name: p.Name, Type: p.Type,
		StageID: p.StageID, Index: p.Index, CurrentState: p.State, HistoryState: p.HistoryState, Transition: t,
		Repeating: p.Repeating, Required: p.Required, LastModified: p.LastModified, ModifiedBy: p.ModifiedBy})
	if p.Type == string(cmmn.TypeHumanTask) {
		if err := r.humanTaskTransition(p, from); err != nil {
			return false, err
		}
	}
	r.enqueue(action{kind: itemNotice, seq: seq, item: p, t: t, crit: crit})
	switch {
	case p.Type == string(cmmn.TypeCaseTask):
		if err := r.caseTaskTransition(p, from); err != nil {
			return false, err
		}
	case p.Type == string(cmmn.TypeProcessTask):
		r.processTaskTransition(p, from)
	case p.Type == string(cmmn.TypeCasePlan) && r.c.ParentID != "":
		r.reportToParent(p, from)
	}
	return true, nil
}

// createItem creates an instance of def in stage (nil for the case plan)
// and makes it take Create. Its criteria are looked at when the Create
// notice comes round, once its siblings exist too.
func (r *run) createItem(def *cmmn.PlanItem, stage *PlanItem, index int) (*PlanItem, error) {
	return r.createItemID(def, stage, index, "")
}

// createItemID is createItem with the new item's id given (a planned
// discretionary item's); "" draws a fresh one.
func (r *run) createItemID(def *cmmn.PlanItem, stage *PlanItem, index int, id string) (*PlanItem, error) {
	p := &PlanItem{
		DefinitionID: def.ID(),
		Name:         def.Name(),
		Type:         string(def.Type()),
		Index:        index,
		State:        Null,
		HistoryState: Null,
		CreatedOn:    r.env.Now,
		LastModified: r.env.Now,
		ModifiedBy:   r.actor.UserID,
		// Repetitions of a planned item are discretionary too.
		Discretionary: def.IsDiscretionary(),
	}
	switch {
	case stage == nil:
		p.ID = r.c.ID
	case id != "":
		p.ID, p.StageID = id, stage.ID
	default:
		p.ID, p.StageID = r.newID(), stage.ID
	}
	r.c.PlanItems = append(r.c.PlanItems, p)
	r.index(p)
	r.born[p] = true
	env := r.exprEnv(p, nil)
	p.Required = r.holds(def.RequiredRule(), env)
	p.Repeating = def.RepetitionRule() != nil && r.holds(def.RepetitionRule(), env)
	r.emit(PlanItemCreated{CaseInstanceID: r.c.ID, PlanItemID: p.ID, DefinitionID: p.DefinitionID, Name: p.Name,
		Type: p.Type, StageID: p.StageID, Index: p.Index, Required: p.Required, Repeating: p.Repeating,
		Discretionary: p.Discretionary, CreatedOn: p.CreatedOn, CreatedBy: r.actor.UserID})
	if _, err := r.transition(p, Create, ""); err != nil {
		return nil, err
	}
	if stage != nil {
		// The reference engine records both rules of every new plan item
		// right after its Create transition.
		r.emit(RepetitionRuleEvaluated{CaseInstanceID: r.c.ID, PlanItemID: p.ID, Name: p.Name, Type: p.Type, Repeating: p.Repeating})
		r.emit(RequiredRuleEvaluated{CaseInstanceID: r.c.ID, PlanItemID: p.ID, Name: p.Name, Type: p.Type, Required: p.Required})
	}
	if t, ok := def.Definition().(*cmmn.TimerEvent); ok {
		if src, _ := t.StartTrigger(); src == nil {
			r.startTimer(p, t)
		}
	}
	return p, nil
}

// holds evaluates a rule. The reference engine treats a rule that fails to
// evaluate (a property of an empty case file item) as not holding.
func (r *run) holds(rule *cmmn.Rule, env *exprEnv) bool {
	if rule != nil {
		env = env.withContext(rule.Condition())
	}
	ok, err := rule.Holds(env)
	return err == nil && ok
}

// enter makes p take its entry transition: start, or enable when its
// manual activation rule holds; milestones occur. Event listeners have no
// entry: they wait for a user or a timer.
func (r *run) enter(p *PlanItem) error {
	typ := cmmn.PlanItemType(p.Type)
	switch {
	case typ == cmmn.TypeMilestone:
		_, err := r.transition(p, Occur, "")
		return err
	case typ.IsEvent(), typ == cmmn.TypeCasePlan:
		return nil
	}
	t := StartTransition
	if def := r.definition(p); def != nil && r.holds(def.ManualActivationRule(), r.exprEnv(p, nil)) {
		t = Enable
	}
	_, err := r.transition(p, t, "")
	return err
}

// itemNotice carries out what follows from a plan item transition: the
// item's own consequences (children, repetition), then the sentries that
// listen to it.
func (r *run) itemNotice(a action) error {
	p := a.item
	p.Seq = a.seq
	r.seen[p] = seenTransition{t: a.t, seq: a.seq, crit: a.crit}
	def := r.definition(p)
	if def == nil {
		return nil // the definition lost the item; it only keeps its history
	}
	isStage := def.Stage() != nil
	switch a.t {
	case Create:
		if p.Type == string(cmmn.TypeCasePlan) {
			if err := r.createChildren(p, def.Stage()); err != nil {
				return err
			}
		}
		if err := r.criteriaOnCreate(p, def); err != nil {
			return err
		}
	case StartTransition, ManualStart:
		if isStage {
			if err := r.createChildren(p, def.Stage()); err != nil {
				return err
			}
		}
		if h, ok := def.Definition().(*cmmn.HumanTask); ok && !h.IsBlocking() && p.State == Active {
			// A non-blocking human task is done as soon as it started.
			r.enqueue(action{kind: doTransition, item: p, t: Complete})
		}
	case Suspend, ParentSuspend:
		if isStage {
			r.toChildren(p, isTerminal, func(*PlanItem) Transition { return ParentSuspend })
		}
	case Resume, ParentResume:
		if isStage {
			r.toChildren(p, isTerminal, func(*PlanItem) Transition { return ParentResume })
		}
	case Reactivate:
		if isStage && p.HistoryState == Suspended {
			r.toChildren(p, isTerminal, func(*PlanItem) Transition { return ParentResume })
		}
		// A failed stage whose work is all done completes; a case
		// reactivated after it ended stays open for what comes next.
		if isStage && p.HistoryState == Failed {
			r.scheduleCheck(p)
		}
	}
	if isTerminal(p.State) && (a.t == Complete || a.t == Terminate || a.t == Exit || a.t == ParentTerminate || a.t == Occur) {
		if isStage {
			// A completing stage leaves its disabled items as they are;
			// a terminating one ends everything still alive.
			keep := isTerminal
			if a.t == Complete {
				keep = isSemiTerminal
			}
			r.toChildren(p, keep, func(ch *PlanItem) Transition { return exitTransition(ch, true) })
		}
		// An item that exits (by its exit criterion or with its stage)
		// is stopped on purpose; only one that ended on its own or by a
		// user repeats, or an exit criterion that fired once would end
		// each new instance again, without end.
		if a.t == Complete || a.t == Terminate || a.t == Occur {
			if err := r.repeatDone(p, def); err != nil {
				return err
			}
		}
	}
	r.triggerTimers(p, def, a.t)
	if err := r.completeStageFirst(p, a.t); err != nil {
		return err
	}
	if err := r.informListeners(p, def, a); err != nil {
		return err
	}
	// A stage looks at completing when a child is done, not when one is
	// merely suspended: suspending the last active task must not end it.
	if parent := r.parent(p); parent != nil && isSemiTerminal(p.State) {
		r.scheduleCheck(parent)
	}
	return nil
}

// completeStageFirst completes p's auto-completing stage at once when p
// was its last child still going, before the sentries listening to p hear
// of it (addendum §18): the stage ends Completed, so that an exit
// criterion of the stage on that same child finds it done, and sentries on
// the stage's completion (which may repeat it) fire. With any child still
// to come, completion waits until the case settles, as ever.
func (r *run) completeStageFirst(p *PlanItem, t Transition) error {
	if t != Complete {
		return nil
	}
	stage := r.parent(p)
	if stage == nil || stage.State != Active || stage.Type != string(cmmn.TypeStage) {
		return nil
	}
	def := r.definition(stage)
	if def == nil || def.Stage() == nil || !def.Stage().AutoComplete() {
		return nil
	}
	for _, ch := range r.children(stage) {
		if !isSemiTerminal(ch.State) {
			return nil
		}
	}
	return r.autoComplete(stage)
}

// toChildren queues a transition for every child of stage not in a state
// skip accepts; children that cannot take it simply ignore it.
func (r *run) toChildren(stage *PlanItem, skip func(State) bool, t func(*PlanItem) Transition) {
	for _, ch := range r.children(stage) {
		if skip(ch.State) {
			continue
		}
		r.enqueue(action{kind: doTransition, item: ch, t: t(ch)})
	}
}

// createChildren creates the plan items of a stage that just became
// active. Discretionary items wait until they are planned.
//
// A stage otherwise looks at completing when a child is done; a stage
// without items has no child to wait for and completes at once (reference
// issue #366).
func (r *run) createChildren(stage *PlanItem, s *cmmn.Stage) error {
	if s == nil {
		return nil
	}
	if len(s.Items()) == 0 {
		r.scheduleCheck(stage)
	}
	for _, def := range s.Items() {
		if _, err := r.createItem(def, stage, 0); err != nil {
			return err
		}
	}
	return nil
}

// repeatDone repeats an item without entry criteria that completed or was
// terminated while its stage goes on (§4.1): a new instance with the next
// index enters at once. Items with entry criteria repeat when a criterion
// fires again instead.
func (r *run) repeatDone(p *PlanItem, def *cmmn.PlanItem) error {
	if len(def.EntryCriteria()) > 0 || def.RepetitionRule() == nil {
		return nil
	}
	stage := r.parent(p)
	if stage == nil || stage.State != Active || r.newest(p) != p {
		return nil
	}
	if !r.holds(def.RepetitionRule(), r.exprEnv(p, nil)) {
		return nil
	}
	_, err := r.repeat(p, def)
	return err
}

// repeat creates the next instance of p and makes it enter.
func (r *run) repeat(p *PlanItem, def *cmmn.PlanItem) (*PlanItem, error) {
	next, err := r.createItem(def, r.parent(p), r.newest(p).Index+1)
	if err != nil {
		return nil, err
	}
	return next, r.enter(next)
}

// newest returns the latest instance of p's definition in p's stage.
func (r *run) newest(p *PlanItem) *PlanItem {
	if n := r.newestOf[instanceKey{p.DefinitionID, p.StageID}]; n != nil {
		return n
	}
	return p
}

// stageActive reports whether the stage around p lets p change: Active,
// or Failed so that its failed work can be redone. The case plan has no
// stage around it.
func (r *run) stageActive(p *PlanItem) bool {
	parent := r.parent(p)
	if p.StageID == "" {
		return true
	}
	return parent != nil && (parent.State == Active || parent.State == Failed)
}
