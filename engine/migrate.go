package engine

import (
	"regexp"
	"slices"
	"strings"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// MigrateDefinition moves a running case onto another definition; see
// Migrate.
type MigrateDefinition struct {
	// Previous is the definition the case ran on until now. Case file
	// items it declared that the new definition no longer has are dropped;
	// nil keeps every top-level item the new definition still declares
	// and drops the others.
	Previous *cmmn.Case
	// Team, when set, replaces the case team. Service has validated it
	// against the new definition, as for a team replace.
	Team *Team
	// WithRoot is set when c is a sub case moving because the root of its
	// tree moves: a sub case is never migrated on its own.
	WithRoot bool
}

// Migrate moves case c, in place, onto definition def: the case then runs
// on def as if it had been started on it, keeping what happened so far.
//
//   - Every plan item is matched with def by definition id, then (for an
//     item whose id def no longer has) by name among the items of the same
//     kind; the match gives the item its new definition id and name.
//   - A matched item keeps its state and, for a human task, its workflow
//     (assignee, owner, input, saved output); its performer role becomes
//     def's. One that def places in another stage moves to the newest
//     running instance of that stage, still in its state.
//   - An item def does not have, or whose new stage has no running instance
//     to move into, is terminated (Exit, or ParentTerminate for event
//     listeners) and keeps its history.
//   - Items def adds to a running stage are created there and go on as the
//     plan says: entry criteria, manual activation, required and repetition
//     rules are evaluated as for any new item; stages that are not running
//     create theirs from def when they start.
//   - Case roles follow def: without a new team, roles def no longer
//     declares are taken from every member; case file items def no longer
//     declares are dropped from the case file (CaseFileItemDropped).
//
// Its outcome carries effects as a command's does: a case task the
// new definition adds starts its sub case, a removed one ends it.
//
// A sub case cannot be migrated on its own (ErrInvalid), and a plan item
// whose id def gives to another kind of plan item stops the migration
// (ErrInvalid): its state would mean nothing there. On error c may be half
// changed and must be discarded.
func Migrate(def *cmmn.Case, c *Case, cmd MigrateDefinition, actor Actor, env Env) (Outcome, error) {
	if def == nil || def.Plan() == nil {
		return Outcome{}, errorf(ErrInvalid, "The new case definition is missing")
	}
	if c == nil || len(c.PlanItems) == 0 || slices.Contains(c.PlanItems, nil) || c.PlanItems[0].StageID != "" {
		return Outcome{}, errorf(ErrInvalid, "The case has no definition or no case plan")
	}
	if c.ParentID != "" && !cmd.WithRoot {
		return Outcome{}, errorf(ErrInvalid, "Case %s is a sub case of %s; only a case without a parent can be migrated to a new definition", c.ID, c.ParentID)
	}
	if c.File == nil {
		c.File = map[string]any{}
	}
	m := &migration{def: def, c: c, matched: map[*PlanItem]*cmmn.PlanItem{}, previous: map[*PlanItem]planItemPlace{}}
	if err := m.match(); err != nil {
		return Outcome{}, err
	}
	m.place()

	prevName, prevDef := c.Name, c.DefinitionID
	c.Name, c.DefinitionID = def.Name(), def.ID()
	r := newRun(def, c, actor, env)
	r.emit(CaseDefinitionMigrated{CaseInstanceID: c.ID, CaseName: c.Name, DefinitionID: c.DefinitionID,
		PreviousCaseName: prevName, PreviousDefinitionID: prevDef})
	m.report(r)
	if cmd.Team != nil {
		c.Team = cloneTeam(*cmd.Team)
		r.emit(CaseTeamSet{Team: cloneTeam(c.Team)})
	} else if dropped := dropUndefinedRoles(def, &c.Team); len(dropped) > 0 {
		r.emit(CaseRolesDropped{CaseInstanceID: c.ID, Roles: dropped})
	}
	dropCaseFileItems(r, cmd.Previous)
	for _, p := range m.removed {
		if isTerminal(p.State) {
			continue
		}
		if _, err := r.transition(p, exitTransition(p, true), ""); err != nil {
			return Outcome{}, err
		}
	}
	if err := m.addNewItems(r); err != nil {
		return Outcome{}, err
	}
	if err := r.drain(); err != nil {
		return Outcome{}, err
	}
	r.finish()
	return Outcome{Events: r.events, Effects: r.effects}, nil
}

// migration is the matching of a case's plan items with a new definition.
type migration struct {
	def *cmmn.Case
	c   *Case
	// matched gives each matched instance its new definition; the case
	// plan always matches the new case plan.
	matched map[*PlanItem]*cmmn.PlanItem
	// previous is where each matched instance was, for its
	// PlanItemMigrated event.
	previous map[*PlanItem]planItemPlace
	// removed are the instances that have no place in the new definition,
	// in creation order.
	removed []*PlanItem
}

type planItemPlace struct{ definitionID, name, stageID string }

// match pairs the definitions of the case's instances with def's: by id,
// then by name within a kind. Instances of one old definition share its
// match, so repetitions stay together.
func (m *migration) match() error {
	byID := map[string]*cmmn.PlanItem{}
	used := map[*cmmn.PlanItem]bool{}
	var unmatched []string
	names := map[string]string{} // old definition id -> name, type
	types := map[string]string{}
	for _, p := range m.c.PlanItems[1:] {
		if _, seen := names[p.DefinitionID]; seen {
			continue
		}
		names[p.DefinitionID], types[p.DefinitionID] = p.Name, p.Type
		d := m.def.PlanItem(p.DefinitionID)
		if d == nil {
			unmatched = append(unmatched, p.DefinitionID)
			continue
		}
		if string(d.Type()) != p.Type {
			return errorf(ErrInvalid, "Plan item '%s' cannot be migrated: the new definition gives its id %s to a %s, and it is a %s",
				p.Name, p.DefinitionID, d.Type(), p.Type)
		}
		byID[p.DefinitionID], used[d] = d, true
	}
	byName := map[string][]*cmmn.PlanItem{}
	for _, d := range m.def.PlanItems() {
		if !used[d] {
			key := string(d.Type()) + "\x00" + d.Name()
			byName[key] = append(byName[key], d)
		}
	}
	for _, id := range unmatched {
		key := types[id] + "\x00" + names[id]
		if list := byName[key]; len(list) > 0 {
			byID[id], byName[key] = list[0], list[1:]
		}
	}
	casePlan := m.c.PlanItems[0]
	m.previous[casePlan] = planItemPlace{casePlan.DefinitionID, casePlan.Name, casePlan.StageID}
	m.matched[casePlan] = m.def.Plan()
	casePlan.DefinitionID, casePlan.Name = m.def.Plan().ID(), m.def.Plan().Name()
	for _, p := range m.c.PlanItems[1:] {
		d := byID[p.DefinitionID]
		if d == nil {
			m.removed = append(m.removed, p)
			continue
		}
		m.previous[p] = planItemPlace{p.DefinitionID, p.Name, p.StageID}
		m.matched[p] = d
		p.DefinitionID, p.Name = d.ID(), d.Name()
	}
	return nil
}

// place puts every matched instance in the stage the new definition gives
// it: where it is when its stage instance is of that stage, else the
// newest running instance of that stage. One that has no such stage to go
// to is removed.
func (m *migration) place() {
	byID := map[string]*PlanItem{}
	for _, p := range m.c.PlanItems {
		byID[p.ID] = p
	}
	stageOf := func(p *PlanItem) *cmmn.Stage {
		if d := m.matched[p]; d != nil {
			return d.Stage()
		}
		return nil
	}
	// running lists, by stage definition, the instances that can take
	// items, newest last.
	running := map[*cmmn.Stage][]*PlanItem{}
	for _, p := range m.c.PlanItems {
		if s := stageOf(p); s != nil && (p.State == Active || p.State == Suspended || p.State == Failed) {
			running[s] = append(running[s], p)
		}
	}
	var gone []*PlanItem
	for _, p := range m.c.PlanItems[1:] {
		d := m.matched[p]
		if d == nil {
			continue
		}
		want := d.Parent()
		if want == nil {
			// A planned item of a human task's planning table lives in
			// the task's stage, wherever that is.
			continue
		}
		if parent := byID[p.StageID]; parent != nil && stageOf(parent) == want {
			continue
		}
		if list := running[want]; len(list) > 0 {
			p.StageID = list[len(list)-1].ID
			continue
		}
		gone = append(gone, p)
	}
	for _, p := range gone {
		// Matched by name, it goes back to its old definition id, which
		// the new definition does not have, so that no sentry of the new
		// definition hears it end.
		prev := m.previous[p]
		p.DefinitionID, p.Name = prev.definitionID, prev.name
		delete(m.matched, p)
		delete(m.previous, p)
		m.removed = append(m.removed, p)
	}
	pos := make(map[*PlanItem]int, len(m.c.PlanItems))
	for i, p := range m.c.PlanItems {
		pos[p] = i
	}
	slices.SortFunc(m.removed, func(a, b *PlanItem) int { return pos[a] - pos[b] })
}

// report records each matched instance's migration, brings its rules and
// its task's performer up to the new definition, and tells the run to
// check every running stage for completion: items removed from it may
// have been all it waited for.
func (m *migration) report(r *run) {
	for _, p := range r.c.PlanItems {
		d := m.matched[p]
		if d == nil {
			continue
		}
		if !isTerminal(p.State) && p.Type != string(cmmn.TypeCasePlan) {
			env := r.exprEnv(p, nil)
			p.Required = r.holds(d.RequiredRule(), env)
			p.Repeating = d.RepetitionRule() != nil && r.holds(d.RepetitionRule(), env)
		}
		prev := m.previous[p]
		r.emit(PlanItemMigrated{CaseInstanceID: r.c.ID, PlanItemID: p.ID, DefinitionID: p.DefinitionID, Name: p.Name, Type: p.Type,
			StageID: p.StageID, Index: p.Index, CurrentState: p.State, HistoryState: p.HistoryState, Transition: p.LastTransition,
			Required: p.Required, Repeating: p.Repeating, PreviousDefinitionID: prev.definitionID, PreviousName: prev.name,
			PreviousStageID: prev.stageID})
		if p.Task != nil && p.Task.State != TaskCompleted && p.Task.State != TaskTerminated {
			// A finished task keeps the performer it was done under.
			role := ""
			if h := r.humanTaskDef(p); h != nil && h.Performer() != nil {
				role = h.Performer().Name()
			}
			p.Task.Role = role
			r.taskEvent(p, HumanTaskMigrated{TaskID: p.ID, TaskName: p.Name, Role: role, State: p.Task.State})
		}
		if p.State == Active && d.Stage() != nil {
			r.scheduleCheck(p)
		}
	}
}

// addNewItems creates, in every running stage, the items of its new
// definition that it has no instance of.
func (m *migration) addNewItems(r *run) error {
	stages := slices.Clone(r.c.PlanItems)
	for _, s := range stages {
		d := m.matched[s]
		if d == nil || d.Stage() == nil || s.State != Active {
			continue
		}
		have := map[string]bool{}
		for _, ch := range r.children(s) {
			have[ch.DefinitionID] = true
		}
		for _, item := range d.Stage().Items() {
			if have[item.ID()] {
				continue
			}
			if _, err := r.createItem(item, s, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropUndefinedRoles takes from every member the case roles def does not
// declare, and returns them.
func dropUndefinedRoles(def *cmmn.Case, team *Team) []string {
	var dropped []string
	for i, mem := range team.Members {
		keep := make([]string, 0, len(mem.CaseRoles))
		for _, role := range mem.CaseRoles {
			if def.Role(role) != nil {
				keep = append(keep, role)
			} else if !slices.Contains(dropped, role) {
				dropped = append(dropped, role)
			}
		}
		team.Members[i].CaseRoles = keep
	}
	slices.Sort(dropped)
	return dropped
}

// arrayIndex matches the array positions in an instance path.
var arrayIndex = regexp.MustCompile(`\[\d+\]`)

// dropCaseFileItems removes from the case file what the new definition
// no longer declares: top-level items it lacks and, when the previous
// definition is known, nested case file items it lacks under items it
// keeps. Each dropped definition path is recorded once.
func dropCaseFileItems(r *run, previous *cmmn.Case) {
	c := r.c
	var paths []string
	for _, name := range sortedKeys(c.File) {
		if r.def.CaseFileItem(name) == nil {
			paths = append(paths, name)
		}
	}
	if previous != nil {
		for _, f := range previous.CaseFileItems() {
			if f.Parent() != nil && r.def.CaseFileItem(f.Path()) == nil && r.def.CaseFileItem(f.Parent().Path()) != nil {
				paths = append(paths, f.Path())
			}
		}
	}
	for _, path := range paths {
		had := dropValue(c.File, strings.Split(path, "/"))
		under := func(key string) bool {
			k := arrayIndex.ReplaceAllString(key, "")
			return k == path || strings.HasPrefix(k, path+"/")
		}
		for k := range c.FileStates {
			if under(k) {
				delete(c.FileStates, k)
				had = true
			}
		}
		for k := range c.FileTransitions {
			if under(k) {
				delete(c.FileTransitions, k)
			}
		}
		for k := range c.FileCurrent {
			if under(k) {
				delete(c.FileCurrent, k)
			}
		}
		if had {
			r.emit(CaseFileItemDropped{CaseInstanceID: c.ID, Path: path})
		}
	}
}

// dropValue deletes the value at the definition path parts under obj,
// in every element of the arrays on the way, and reports whether there
// was one.
func dropValue(obj map[string]any, parts []string) bool {
	v, ok := obj[parts[0]]
	if !ok {
		return false
	}
	if len(parts) == 1 {
		delete(obj, parts[0])
		return true
	}
	had := false
	switch x := v.(type) {
	case map[string]any:
		had = dropValue(x, parts[1:])
	case []any:
		for _, e := range x {
			if m, ok := e.(map[string]any); ok && dropValue(m, parts[1:]) {
				had = true
			}
		}
	}
	return had
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
