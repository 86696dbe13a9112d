package engine

import (
	"github.com/casegraph/casegraph/engine/cmmn"
)

// MaxCaseDepth bounds how deep case tasks may nest sub cases: the
// definition check refuses a case task that always starts itself, but a
// model can still recurse through sentries or repetition, and such a chain
// must stop with an error instead of filling the database.
const MaxCaseDepth = 32

// Effect is work a command asks for outside the case it ran on. The engine
// does no I/O, so it cannot start or change another case itself: it
// returns effects with its events, and service carries each out in the
// same transaction, by running the command the effect names on the other
// case, whose own effects follow in turn (service.settle).
//
// Work outside the database plugs in here too: a process task that
// becomes Active is meant to return an effect asking for its call; service
// stores it in an outbox row in the same transaction, makes the call after
// the commit, and reports the outcome back with a command on the case.
type Effect interface{ effect() }

// StartSubCase asks for a sub case to start: a case task became Active.
// The sub case's id is the case task's plan item id (TaskID), as in the
// reference engine, so that clients find it at GET /cases/{planItemId}.
type StartSubCase struct {
	ParentID string
	RootID   string
	Tenant   string
	TaskID   string
	TaskName string
	// DefinitionID is the <case> to run, in the parent's definitions
	// document.
	DefinitionID string
	// Depth is the sub case's depth (its parent's plus one).
	Depth  int
	Inputs map[string]any
	// Team is derived from the parent's team: the same members, with the
	// case roles the sub case defines.
	Team  Team
	Debug bool
}

// SubCaseOrder asks sub case CaseID to follow its case task: terminate,
// suspend, or reactivate (a resumed or reactivated task). Service runs
// CaseTaskChanged on it.
type SubCaseOrder struct {
	CaseID     string
	Transition Transition
}

// ParentReport tells case ParentID that its sub case (run by case task
// TaskID, which is also the sub case's id) reached State: Completed with
// Output, Failed, Terminated, or Active again after it failed. Service
// runs SubCaseChanged on the parent; as in the reference engine, that
// report needs no membership in the parent.
type ParentReport struct {
	ParentID string
	TaskID   string
	State    State
	Output   map[string]any
}

func (StartSubCase) effect() {}
func (SubCaseOrder) effect() {}
func (ParentReport) effect() {}

// SubCaseChanged tells a case that the sub case of its case task TaskID
// reached State (see ParentReport). NotStarted reports a sub case that
// could not start (its input did not fit): the task fails, and
// reactivating it tries to start the sub case again. A report that changes
// nothing (the task already ended) fails with ErrNoEffect.
type SubCaseChanged struct {
	TaskID     string
	State      State
	Output     map[string]any
	NotStarted bool
}

// CaseTaskChanged tells a sub case that its case task took Transition
// (Terminate, Suspend or Reactivate): the case plan follows. An order that
// changes nothing fails with ErrNoEffect.
type CaseTaskChanged struct {
	Transition Transition
}

func (SubCaseChanged) command()  {}
func (CaseTaskChanged) command() {}

// mappedTask is what the three task definitions share: parameters and the
// mappings to and from their implementation.
type mappedTask interface {
	Inputs() []*cmmn.Parameter
	Outputs() []*cmmn.Parameter
	InputMappings() []*cmmn.Mapping
	OutputMappings() []*cmmn.Mapping
	IsBlocking() bool
}

// caseTaskDef returns the case task definition of an instance, or nil.
func (r *run) caseTaskDef(p *PlanItem) *cmmn.CaseTask {
	if def := r.definition(p); def != nil {
		ct, _ := def.Definition().(*cmmn.CaseTask)
		return ct
	}
	return nil
}

// caseTaskTransition keeps a case task's sub case in step with it: it
// starts the sub case when the task becomes Active (again, after a start
// that failed), and passes suspend, resume, reactivate and termination on.
func (r *run) caseTaskTransition(p *PlanItem, from State) error {
	ct := r.caseTaskDef(p)
	if ct == nil {
		return nil
	}
	order := func(t Transition) {
		r.effects = append(r.effects, SubCaseOrder{CaseID: p.SubCaseID, Transition: t})
	}
	switch {
	case p.State == Active && p.SubCaseID == "":
		return r.startSubCase(p, ct)
	case p.SubCaseID == "":
	case p.State == Active && (from == Failed || from == Suspended):
		order(Reactivate)
	case p.State == Suspended && from == Active:
		order(Suspend)
	case p.State == Terminated && (from == Active || from == Suspended || from == Failed):
		order(Terminate)
	}
	return nil
}

// startSubCase asks for the sub case of a case task that became Active,
// with its input mapped from the case file and a team derived from this
// case's. A non-blocking task completes at once.
func (r *run) startSubCase(p *PlanItem, ct *cmmn.CaseTask) error {
	sub := ct.SubCase()
	if sub == nil {
		return nil
	}
	if r.c.Depth+1 > MaxCaseDepth {
		e := errorf(ErrInvalid, "CaseTask '%s' cannot start its sub case: cases nest at most %d levels deep, and case %s is at level %d",
			p.Name, MaxCaseDepth, r.c.ID, r.c.Depth)
		e.TooDeep = true
		return e
	}
	inputs := map[string]any{}
	for name, v := range r.taskInput(p, ct) {
		// A task without mappings passes every parameter by its name;
		// only those the sub case defines reach it.
		if v != nil && sub.Input(name) != nil {
			inputs[name] = v
		}
	}
	p.SubCaseID = p.ID
	r.effects = append(r.effects, StartSubCase{ParentID: r.c.ID, RootID: r.c.RootID, Tenant: r.c.Tenant, TaskID: p.ID, TaskName: p.Name,
		DefinitionID: sub.ID(), Depth: r.c.Depth + 1, Inputs: inputs, Team: derivedTeam(r.c.Team, sub), Debug: r.c.Debug})
	if !ct.IsBlocking() {
		r.enqueue(action{kind: doTransition, item: p, t: Complete})
	}
	return nil
}

// derivedTeam is a sub case's first team: the parent's members, each
// keeping only the case roles the sub case defines (reference §2.4).
func derivedTeam(parent Team, sub *cmmn.Case) Team {
	out := cloneTeam(parent)
	for i, m := range out.Members {
		kept := []string{}
		for _, role := range m.CaseRoles {
			if sub.Role(role) != nil {
				kept = append(kept, role)
			}
		}
		out.Members[i].CaseRoles = kept
	}
	return out
}

// reportToParent tells the parent case what became of this sub case when
// its case plan ended, failed, or came back from failing.
func (r *run) reportToParent(plan *PlanItem, from State) {
	rep := ParentReport{ParentID: r.c.ParentID, TaskID: r.c.ID, State: plan.State}
	switch plan.State {
	case Completed:
		rep.Output = r.caseOutput()
	case Failed, Terminated:
	case Active:
		if from != Failed {
			return
		}
	default:
		return
	}
	r.effects = append(r.effects, rep)
}

// subCaseChanged runs SubCaseChanged: the case task follows its sub case.
func (r *run) subCaseChanged(cmd SubCaseChanged) error {
	p := r.item(cmd.TaskID)
	if p == nil || p.Type != string(cmmn.TypeCaseTask) {
		return errorf(ErrNotFound, "There is no case task with identifier '%s' in case %s", cmd.TaskID, r.c.ID)
	}
	if cmd.NotStarted {
		// Reactivating the task starts the sub case anew.
		p.SubCaseID = ""
	}
	var (
		t  Transition
		ok bool
	)
	switch cmd.State {
	case Completed:
		ct := r.caseTaskDef(p)
		if p.State != Active || ct == nil || !ct.IsBlocking() {
			// A non-blocking task completed when the sub case started.
			return r.noEffect(p, Complete)
		}
		return r.completeCaseTask(p, ct, cmd.Output)
	case Failed:
		t = Fault
	case Terminated:
		t = Terminate
	case Active:
		t = Reactivate
	default:
		return errorf(ErrInvalid, "A sub case cannot report state %s to its case task", cmd.State)
	}
	ok, err := r.transition(p, t, "")
	if err != nil {
		return err
	}
	if !ok {
		return r.noEffect(p, t)
	}
	return nil
}

// completeCaseTask maps a completed sub case's output through the task's
// output mappings into the case file and completes the task. Output that
// does not fit the case file fails the task instead: the sub case is done
// and cannot be asked again.
func (r *run) completeCaseTask(p *PlanItem, ct *cmmn.CaseTask, output map[string]any) error {
	norm, err := normalize(output, 0)
	out, _ := norm.(map[string]any)
	if err != nil || out == nil {
		out = map[string]any{}
	}
	values, problems := r.taskOutput(p, ct, out, out)
	if len(problems) > 0 {
		_, err := r.transition(p, Fault, "")
		return err
	}
	for _, tp := range ct.Outputs() {
		if v := values[tp]; v != nil && tp.Binding() != nil {
			if err := r.bindOutput(tp, v, p); err != nil {
				return err
			}
		}
	}
	r.enqueue(action{kind: doTransition, item: p, t: Complete})
	return nil
}

// caseTaskChanged runs CaseTaskChanged on a sub case: its case plan
// follows the case task.
func (r *run) caseTaskChanged(cmd CaseTaskChanged) error {
	plan := r.casePlan()
	var changed bool
	var err error
	switch cmd.Transition {
	case Terminate:
		if plan.State == Suspended {
			// A suspended case plan cannot terminate: it resumes first.
			if _, err := r.transition(plan, Reactivate, ""); err != nil {
				return err
			}
		}
		changed, err = r.transition(plan, Terminate, "")
	case Suspend:
		changed, err = r.transition(plan, Suspend, "")
	case Reactivate:
		// Only what the task's suspension or failure stopped comes back:
		// a sub case that completed stays completed.
		if plan.State == Suspended || plan.State == Failed {
			changed, err = r.transition(plan, Reactivate, "")
		}
	default:
		return errorf(ErrInvalid, "A case task cannot pass transition %s to its sub case", cmd.Transition)
	}
	if err != nil {
		return err
	}
	if !changed {
		return r.noEffect(plan, cmd.Transition)
	}
	return nil
}

// caseOutput returns the case's output parameters by name; see CaseOutput.
func (r *run) caseOutput() map[string]any {
	out := map[string]any{}
	for _, p := range r.def.Outputs() {
		var v any
		if f := p.Binding(); f != nil {
			if s, ok, err := r.bindingSlot(f, false); err == nil && ok {
				v = canonical(s.get())
			}
		}
		out[p.Name()] = v
	}
	return out
}
