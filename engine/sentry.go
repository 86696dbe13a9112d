package engine

import (
	"github.com/casegraph/casegraph/engine/cmmn"
)

// Sentries follow the reference engine: an on-part is active while the
// last transition it has been told about, of any instance of its source,
// is the one it listens for; a criterion is satisfied when all its
// on-parts are active and its if-part holds. A criterion is looked at when
// one of its sources makes a transition, and once when its item is
// created, so that an item created after its source moved (a stage
// started later, a sentry later in the XML) still sees it.

// criteriaOnCreate looks at the criteria of a new item: without entry
// criteria it enters at once; otherwise it enters if one is satisfied
// already. An exit criterion satisfied already makes it exit. This never
// repeats an item: repetition answers only to new transitions.
func (r *run) criteriaOnCreate(p *PlanItem, def *cmmn.PlanItem) error {
	for _, cr := range def.ExitCriteria() {
		if r.satisfied(cr, p, nil) {
			return r.fire(cr, p)
		}
	}
	if p.State != Available {
		return nil
	}
	entry := def.EntryCriteria()
	if len(entry) == 0 {
		return r.enter(p)
	}
	for _, cr := range entry {
		if r.satisfied(cr, p, nil) {
			return r.enter(p)
		}
	}
	return nil
}

// informListeners tells the sentries listening to p's definition about
// transition a.t of p.
func (r *run) informListeners(p *PlanItem, def *cmmn.PlanItem, a action) error {
	want := cmmnTransition(a.t)
	for _, o := range def.Listeners() {
		if o.Event() != want {
			continue
		}
		if cr := o.ExitCriterion(); cr != nil && cr.ID() != a.crit {
			continue
		}
		if err := r.informSentry(o.Sentry(), o, p); err != nil {
			return err
		}
	}
	return nil
}

// fileNotice tells the sentries listening to a case file item about its
// transition, and re-evaluates criteria that have only an if-part, as any
// case file change may change their outcome.
func (r *run) fileNotice(a action) error {
	// addChild and removeChild are told to the parent's on-parts but do
	// not replace its last own transition: a stage created later must
	// still see that the parent was created.
	if a.ft != cmmn.FileAddChild && a.ft != cmmn.FileRemoveChild {
		if r.c.FileTransitions == nil {
			r.c.FileTransitions = map[string]string{}
		}
		r.c.FileTransitions[a.file.Path()] = string(a.ft)
	}
	if a.array != "" && a.index >= 0 && a.ft != cmmn.FileDelete {
		r.setCurrent(a.array, a.index)
	}
	for _, o := range a.file.Listeners() {
		if o.Event() != a.ft {
			continue
		}
		if err := r.informSentry(o.Sentry(), o, nil); err != nil {
			return err
		}
	}
	return r.conditionOnly()
}

// conditionOnly evaluates the criteria without on-parts of every live item.
func (r *run) conditionOnly() error {
	for _, def := range r.conditionalItems() {
		for _, p := range r.byDef[def.ID()] {
			if isTerminal(p.State) || p.State == Null {
				continue
			}
			if err := r.conditionOnlyOf(p, def); err != nil {
				return err
			}
		}
	}
	return nil
}

// conditionOnlyOf evaluates p's criteria without on-parts. Such an entry
// criterion only starts a waiting item: it holds across many changes, and
// must not repeat the item on each.
func (r *run) conditionOnlyOf(p *PlanItem, def *cmmn.PlanItem) error {
	for _, list := range [][]*cmmn.Criterion{def.EntryCriteria(), def.ExitCriteria(), def.ReactivateCriteria()} {
		for _, cr := range list {
			s := cr.Sentry()
			if s == nil || len(s.PlanItemOnParts())+len(s.CaseFileItemOnParts()) > 0 {
				continue
			}
			if cr.Kind() == cmmn.EntryCriterion && p.State != Available {
				continue
			}
			if r.satisfied(cr, p, nil) {
				if err := r.fire(cr, p); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// informSentry evaluates, for every item instance the sentry's criteria
// apply to, whether the criterion is now satisfied, and fires it. source
// is the plan item instance that made the transition (nil for the case
// file); on-part o counts as active, whatever happened since.
func (r *run) informSentry(s *cmmn.Sentry, o any, source *PlanItem) error {
	if s == nil {
		return nil
	}
	for _, cr := range s.Criteria() {
		for _, target := range r.targets(cr, source) {
			if !r.satisfied(cr, target, o) {
				continue
			}
			if err := r.fire(cr, target); err != nil {
				return err
			}
		}
	}
	return nil
}

// targets returns the live instances of the criterion's item that a
// transition of source concerns: those in a stage instance related to the
// source's (the same, an enclosing or an enclosed one). For entry criteria
// only the newest instance per stage answers; it repeats if it must.
func (r *run) targets(cr *cmmn.Criterion, source *PlanItem) []*PlanItem {
	item := cr.PlanItem()
	if item == nil {
		return nil
	}
	candidates := r.byDef[item.ID()]
	if cr.Kind() == cmmn.EntryCriterion {
		keys := r.newestBy[item.ID()]
		candidates = make([]*PlanItem, len(keys))
		for i, k := range keys {
			candidates[i] = r.newestOf[k]
		}
	}
	var out []*PlanItem
	for _, p := range candidates {
		if p.State == Null || p.State == Closed {
			continue
		}
		if source != nil && !r.related(p, source) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// related reports whether a and b live in stage instances on one line of
// nesting: one's stage encloses (or is) the other's.
//
// An item inside another instance of a repeating stage is not related to
// an instance of that stage: a new round of a stage does not hear what
// happened inside the rounds before it.
func (r *run) related(a, b *PlanItem) bool {
	if r.insideOtherInstance(a, b) || r.insideOtherInstance(b, a) {
		return false
	}
	return r.encloses(a.StageID, b) || r.encloses(b.StageID, a)
}

// insideOtherInstance reports whether p lies inside an instance of item's
// definition other than item itself.
func (r *run) insideOtherInstance(item, p *PlanItem) bool {
	q := r.parent(p)
	for range len(r.c.PlanItems) + 1 {
		if q == nil {
			return false
		}
		if q.DefinitionID == item.DefinitionID && q != item {
			return true
		}
		q = r.parent(q)
	}
	return false
}

// encloses reports whether the stage instance with id stageID contains p,
// directly or deeper.
func (r *run) encloses(stageID string, p *PlanItem) bool {
	if stageID == "" {
		return true
	}
	// Bounded, so that a damaged state whose stages form a cycle cannot
	// hang the command.
	q := p
	for range len(r.c.PlanItems) + 1 {
		if q == nil || q.StageID == "" {
			return false
		}
		if q.StageID == stageID {
			return true
		}
		q = r.parent(q)
	}
	return false
}

// satisfied reports whether criterion cr of target is satisfied. active
// is an on-part known to be active by the transition being processed.
func (r *run) satisfied(cr *cmmn.Criterion, target *PlanItem, active any) bool {
	s := cr.Sentry()
	if s == nil {
		return false
	}
	for _, o := range s.PlanItemOnParts() {
		if any(o) == active {
			continue
		}
		if !r.planOnPartActive(o, target) {
			return false
		}
	}
	for _, o := range s.CaseFileItemOnParts() {
		if any(o) == active {
			continue
		}
		if o.Source() == nil || r.c.FileTransitions[o.Source().Path()] != string(o.Event()) {
			return false
		}
	}
	if x := s.IfPart(); x != nil {
		ok, err := x.EvalBool(r.exprEnv(target, nil).withContext(x))
		if err != nil || !ok {
			return false // as the reference engine: a failing if-part does not hold
		}
	}
	return true
}

// planOnPartActive reports whether the last transition sentries saw, of
// the source instances related to target, is the on-part's event.
func (r *run) planOnPartActive(o *cmmn.PlanItemOnPart, target *PlanItem) bool {
	src := o.Source()
	if src == nil {
		return false
	}
	var last seenTransition
	found := false
	for _, p := range r.byDef[src.ID()] {
		if !r.related(p, target) {
			continue
		}
		v, ok := r.visible(p)
		if ok && (!found || v.seq > last.seq) {
			last, found = v, true
		}
	}
	if !found || cmmnTransition(last.t) != o.Event() {
		return false
	}
	return o.ExitCriterion() == nil || o.ExitCriterion().ID() == last.crit
}

// visible returns the last transition of p that sentries have been told
// about. An item created in this command has none until its Create notice
// came round; transitions still queued are not visible yet.
func (r *run) visible(p *PlanItem) (seenTransition, bool) {
	if v, ok := r.seen[p]; ok {
		return v, true
	}
	if r.born[p] {
		return seenTransition{}, false
	}
	return seenTransition{t: p.LastTransition, seq: p.Seq, crit: p.ExitCriterion}, true
}

// fire does what a satisfied criterion does to its item.
func (r *run) fire(cr *cmmn.Criterion, p *PlanItem) error {
	switch cr.Kind() {
	case cmmn.EntryCriterion:
		return r.fireEntry(p)
	case cmmn.ExitCriterion:
		if isTerminal(p.State) || !r.stageActive(p) {
			return nil
		}
		_, err := r.transition(p, exitTransition(p, false), cr.ID())
		return err
	case cmmn.ReactivateCriterion:
		if p.State == Failed {
			_, err := r.transition(p, Reactivate, "")
			return err
		}
	case cmmn.SuspendCriterion:
		_, err := r.transition(p, Suspend, "")
		return err
	case cmmn.ResumeCriterion:
		_, err := r.transition(p, Resume, "")
		return err
	}
	return nil
}

// fireEntry starts (or enables) an item waiting for its entry criterion,
// or, when the item is past that and repeats, creates its next instance.
func (r *run) fireEntry(p *PlanItem) error {
	parent := r.parent(p)
	if parent == nil || parent.State != Active {
		return nil
	}
	if p.State == Available {
		return r.enter(p)
	}
	def := r.definition(p)
	if def == nil || def.RepetitionRule() == nil || !r.holds(def.RepetitionRule(), r.exprEnv(p, nil)) {
		return nil
	}
	_, err := r.repeat(p, def)
	return err
}

// triggerTimers starts the timers whose start trigger is this transition.
func (r *run) triggerTimers(src *PlanItem, def *cmmn.PlanItem, t Transition) {
	for _, td := range r.triggered(def) {
		timer := td.Definition().(*cmmn.TimerEvent)
		if _, on := timer.StartTrigger(); on != "" && on != cmmnTransition(t) {
			continue
		}
		for _, q := range r.byDef[td.ID()] {
			if q.State == Available && q.TimerDue == nil && r.related(q, src) {
				r.startTimer(q, timer)
			}
		}
	}
}
