package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/casegraph/casegraph/engine/cmmn"
	"github.com/casegraph/casegraph/engine/expr"
)

// humanTaskTransition keeps a human task's workflow in step with its plan
// item (§4.2): the first time it becomes Active the task is activated;
// later transitions move the workflow state along.
func (r *run) humanTaskTransition(p *PlanItem, from State) error {
	if p.Task == nil {
		if p.State == Active {
			return r.activate(p)
		}
		return nil
	}
	t := p.Task
	switch {
	case p.State == Suspended && from == Active:
		t.State = TaskSuspended
		r.taskEvent(p, HumanTaskSuspended{TaskID: p.ID, State: t.State})
	case p.State == Active && from == Suspended:
		t.State = workflowState(t)
		r.taskEvent(p, HumanTaskResumed{TaskID: p.ID, State: t.State})
	case p.State == Completed:
		t.State = TaskCompleted
		r.taskEvent(p, HumanTaskCompleted{TaskID: p.ID, Output: canonicalMap(t.Output), State: t.State})
	case p.State == Terminated:
		t.State = TaskTerminated
		r.taskEvent(p, HumanTaskTerminated{TaskID: p.ID, State: t.State})
	}
	return nil
}

// taskEvent records an event of p's task and stamps the task with the
// change, as the reference engine's task records are: a claim or a save
// moves the task's lastModified (and the task lists sorted by it) while
// the plan item, which did not transition, keeps its own.
func (r *run) taskEvent(p *PlanItem, payload any) {
	p.Task.LastModified, p.Task.ModifiedBy = r.env.Now, r.actor.UserID
	r.emit(payload)
}

// workflowState is the state an active task is in given who has it.
func workflowState(t *HumanTask) TaskState {
	switch {
	case t.Assignee == "":
		return Unassigned
	case t.Owner != "" && t.Owner != t.Assignee:
		return Delegated
	}
	return Assigned
}

// humanTaskDef returns the human task definition of an instance.
func (r *run) humanTaskDef(p *PlanItem) *cmmn.HumanTask {
	if def := r.definition(p); def != nil {
		h, _ := def.Definition().(*cmmn.HumanTask)
		return h
	}
	return nil
}

// activate makes a task appear in task lists: mapped input, rendered task
// model, due date and dynamic assignment, all evaluated now.
func (r *run) activate(p *PlanItem) error {
	h := r.humanTaskDef(p)
	if h == nil {
		return nil
	}
	w := h.Workflow()
	t := &HumanTask{State: Unassigned, Input: r.taskInput(p, h), Output: map[string]any{},
		ActivatedOn: r.env.Now, CreatedBy: r.actor.UserID, TaskModel: w.TaskModel()}
	if h.Performer() != nil {
		t.Role = h.Performer().Name()
	}
	if pd := r.definition(p); pd != nil {
		t.Documentation = pd.Documentation()
		if t.Documentation == "" {
			t.Documentation = h.Documentation()
		}
	}
	p.Task = t
	env := r.exprEnv(p, t.Input)
	if tmpl := w.TaskModelTemplate(); tmpl != nil && tmpl.HasSubstitutions() {
		// A substitution that fails leaves the model as written, rather
		// than keeping the task from its users.
		if text, err := tmpl.Render(env); err == nil {
			t.TaskModel = text
		}
	}
	if x := w.DueDate(); x != nil {
		if v, err := x.Eval(env.withContext(x)); err == nil {
			if due, ok := dueTime(v, r.env.Now); ok {
				t.DueDate = &due
			}
		}
	}
	assignee := ""
	if x := w.Assignment(); x != nil {
		// The reference engine takes the result's toString(); errors
		// leave the task unassigned.
		if v, err := x.Eval(env.withContext(x)); err == nil && v != nil {
			if s, ok := v.(string); ok {
				assignee = strings.TrimSpace(s)
			} else if s, ok := canonical(v).(string); ok {
				assignee = strings.TrimSpace(s)
			} else if b, err := json.Marshal(canonical(v)); err == nil {
				assignee = strings.TrimSpace(string(b))
			}
		}
	}
	r.taskEvent(p, HumanTaskActivated{CaseInstanceID: r.c.ID, TaskID: p.ID, TaskName: p.Name, Role: t.Role, State: t.State,
		Input: canonicalMap(t.Input), TaskModel: t.TaskModel, DueDate: t.DueDate, Assignee: assignee,
		CreatedOn: r.env.Now, CreatedBy: r.actor.UserID})
	// The reference engine's order: activation; the assignee joins the
	// team, then the assignment and the new owner; then the due date.
	if assignee != "" {
		r.addToTeam(assignee, t.Role, "IDP")
		t.Assignee, t.Owner, t.State = assignee, assignee, Assigned
		r.taskEvent(p, HumanTaskAssigned{TaskID: p.ID, Assignee: assignee, Owner: assignee, State: t.State})
		r.taskEvent(p, HumanTaskOwnerChanged{TaskID: p.ID, Owner: assignee})
	}
	if t.DueDate != nil {
		r.taskEvent(p, HumanTaskDueDateFilled{TaskID: p.ID, DueDate: *t.DueDate})
	}
	return nil
}

// dueTime interprets a due date expression's value: an instant, a date,
// a duration from now, or text holding one of those.
func dueTime(v any, now time.Time) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x.UTC(), true
	case expr.Duration:
		return x.AddTo(now).UTC(), true
	case expr.Date:
		return time.Date(x.Year, x.Month, x.Day, 0, 0, 0, 0, time.UTC), true
	case expr.DateTime:
		return x.Wall().UTC(), true
	case string:
		s := strings.TrimSpace(x)
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC(), true
		}
		if t, err := time.Parse(time.DateOnly, s); err == nil {
			return t, true
		}
		if d, err := expr.ParseDuration(s); err == nil {
			return d.AddTo(now).UTC(), true
		}
	}
	return time.Time{}, false
}

// addToTeam makes a user assigned by expression or by an owner a member
// holding the task's role, unless the user already owns the case or holds
// the role (§2.5, reference issue #112). Whether the user exists is not
// checked, as in the reference engine; origin is that of a new member
// ("" leaves it to service, which knows where users come from).
func (r *run) addToTeam(user, role, origin string) {
	members := r.c.Team.Members
	for i, m := range members {
		if m.Type != UserMember || m.ID != user {
			continue
		}
		if m.IsOwner || role == "" || slices.Contains(m.CaseRoles, role) {
			return
		}
		members[i].CaseRoles = append(slices.Clone(m.CaseRoles), role)
		r.emit(CaseTeamMemberSet{Member: cloneMember(members[i])})
		return
	}
	m := Member{ID: user, Type: UserMember, CaseRoles: []string{}, Origin: origin}
	if role != "" {
		m.CaseRoles = []string{role}
	}
	r.c.Team.Members = append(members, m)
	r.emit(CaseTeamMemberSet{Member: cloneMember(m)})
}

func cloneMember(m Member) Member {
	m.CaseRoles = slices.Clone(m.CaseRoles)
	if m.Mappings != nil {
		m.Mappings = slices.Clone(m.Mappings)
		for i := range m.Mappings {
			m.Mappings[i].CaseRoles = slices.Clone(m.Mappings[i].CaseRoles)
		}
	}
	return m
}

// taskInput maps the task's input parameters, read from their bound case
// file items, through the workflow's input mappings. A task without
// mappings passes its parameters by their own names.
func (r *run) taskInput(p *PlanItem, h mappedTask) map[string]any {
	input := map[string]any{}
	values := map[*cmmn.Parameter]any{}
	for _, param := range h.Inputs() {
		values[param] = r.boundValue(param, p)
	}
	mappings := h.InputMappings()
	if len(mappings) == 0 {
		for _, param := range h.Inputs() {
			input[param.Name()] = values[param]
		}
		return input
	}
	for _, m := range mappings {
		if m.Source() == nil || m.Target() == nil {
			continue
		}
		v := values[m.Source()]
		if x := m.Transformation(); x != nil {
			// A transformation that fails gives no value, as reading an
			// empty case file item would.
			out, err := x.Eval(r.exprEnv(p, map[string]any{m.Source().Name(): v}))
			v = nil
			if err == nil {
				v = canonical(out)
			}
		}
		input[m.Target().Name()] = v
	}
	return input
}

// boundValue reads a task parameter's bound case file item: for an array,
// the whole list, the element at the task's index, or the current one,
// depending on the binding refinement.
func (r *run) boundValue(param *cmmn.Parameter, p *PlanItem) any {
	f := param.Binding()
	if f == nil {
		return nil
	}
	s, ok, err := r.bindingSlot(f, false)
	if err != nil || !ok {
		return nil
	}
	if !f.IsArray() {
		return canonical(s.get())
	}
	list := s.list()
	switch param.BindingRefinement() {
	case cmmn.RefineList:
		if list == nil {
			return nil
		}
		return canonical(list)
	case cmmn.RefineIndexed, cmmn.RefineReferenceIndexed:
		if p.Index < len(list) {
			return canonical(list[p.Index])
		}
		return nil
	}
	if i := r.current(s.array, list); i >= 0 {
		return canonical(list[i])
	}
	return nil
}

// completeHumanTask runs the CompleteHumanTask command: the actor needs
// the performer role or must be the assignee, and the task must be Active
// (§2.5).
func (r *run) completeHumanTask(cmd CompleteHumanTask) error {
	if p := r.item(cmd.PlanItemID); p != nil && p.Type == string(cmmn.TypeHumanTask) && !r.stageActive(p) {
		return r.stageNotActive(p, Complete)
	}
	p, err := r.performTask(cmdComplete, cmd.PlanItemID)
	if err != nil {
		return err
	}
	return r.completeTask(p, cmd.Output)
}

// completeTask validates output, claims the task for the actor when it is
// someone else's or nobody's, maps the output into the case file and then
// completes the task. The case file changes are told to the sentries
// before the task completes (§4.2).
func (r *run) completeTask(p *PlanItem, output map[string]any) error {
	h := r.humanTaskDef(p)
	if h == nil {
		return errorf(ErrInvalid, "The definition of task %s is missing", p.Name)
	}
	out, values, err := r.checkOutput(p, h, output)
	if err != nil {
		return err
	}
	if p.Task == nil {
		// An item that became Active without activation (its definition
		// changed) still completes.
		p.Task = &HumanTask{State: Unassigned, Input: map[string]any{}, ActivatedOn: r.env.Now, CreatedBy: r.actor.UserID}
	}
	if p.Task.Assignee != r.actor.UserID {
		// A task is always somebody's when it completes (reference
		// issue #207): whoever completes it claims it first.
		r.claim(p, r.actor.UserID)
	}
	p.Task.Output = out
	for _, tp := range h.Outputs() {
		if v := values[tp]; v != nil && tp.Binding() != nil {
			if err := r.bindOutput(tp, v, p); err != nil {
				return err
			}
		}
	}
	r.enqueue(action{kind: doTransition, item: p, t: Complete})
	return nil
}

// checkOutput is the default validation of task output: it must be JSON,
// required output parameters must have a value and values must fit their
// case file items. It returns the output in canonical form and the value
// of each output parameter.
func (r *run) checkOutput(p *PlanItem, h *cmmn.HumanTask, output map[string]any) (map[string]any, map[*cmmn.Parameter]any, error) {
	norm, err := normalize(output, 0)
	if err != nil {
		return nil, nil, errorf(ErrInvalid, "Output for task %s is invalid: [%v]", p.Name, err)
	}
	out, _ := norm.(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	raw := output
	if raw == nil {
		raw = map[string]any{}
	}
	values, problems := r.taskOutput(p, h, out, raw)
	if len(problems) > 0 {
		return nil, nil, errorf(ErrInvalid, "Output for task %s is invalid: [%s]", p.Name, strings.Join(problems, ", "))
	}
	return out, values, nil
}

// taskOutput maps the workflow output onto the task's output parameters
// and checks them: required ones present, values fitting the bound case
// file item. It returns every problem found.
//
// raw is the output as sent: values that reach a parameter unchanged are
// type-checked in that form, where numbers still tell 5 from 5.0.
func (r *run) taskOutput(p *PlanItem, h mappedTask, out, raw map[string]any) (map[*cmmn.Parameter]any, []string) {
	values := map[*cmmn.Parameter]any{}
	sent := map[*cmmn.Parameter]any{}
	mapped := map[*cmmn.Parameter]bool{}
	var problems []string
	for _, m := range h.OutputMappings() {
		if m.Source() == nil || m.Target() == nil {
			continue
		}
		mapped[m.Target()] = true
		v := out[m.Source().Name()]
		sent[m.Target()] = raw[m.Source().Name()]
		if x := m.Transformation(); x != nil {
			sent[m.Target()] = nil
			res, err := x.Eval(r.exprEnv(p, map[string]any{m.Source().Name(): v}))
			if err != nil {
				problems = append(problems, fmt.Sprintf("Task output parameter %s cannot be mapped: %v", m.Target().Name(), err))
				continue
			}
			v = canonical(res)
		}
		values[m.Target()] = v
	}
	for _, tp := range h.Outputs() {
		if !mapped[tp] {
			values[tp], sent[tp] = out[tp.Name()], raw[tp.Name()]
		}
		v := values[tp]
		if v == nil {
			if tp.Required() {
				problems = append(problems, fmt.Sprintf("Task output parameter %s does not have a value, but that is required in order to complete the task", tp.Name()))
			}
			continue
		}
		if f := tp.Binding(); f != nil {
			s := slot{def: f, index: -1, path: f.Path()}
			if f.IsArray() {
				s.array = f.Path()
			}
			checked := sent[tp]
			if checked == nil {
				checked = v
			}
			if msg := checkValue(s, checked); msg != "" {
				problems = append(problems, msg)
			}
			values[tp] = conformSlot(s, v)
		}
	}
	return values, problems
}

// bindOutput writes a task output parameter into its bound case file item,
// as its binding refinement says: arrays get a new element by default.
func (r *run) bindOutput(tp *cmmn.Parameter, v any, p *PlanItem) error {
	s, ok, err := r.bindingSlot(tp.Binding(), true)
	if err != nil {
		return err
	}
	if !ok {
		return errorf(ErrInvalid, "The output of task %s cannot be bound into case file item '%s'", p.Name, tp.Binding().Path())
	}
	v = canonical(v) // the case file must not share values with the task's output
	ref := tp.BindingRefinement()
	if s.def.IsArray() {
		switch ref {
		case cmmn.RefineUpdate:
			return r.fileOp(FileUpdate, s, v)
		case cmmn.RefineReplace, cmmn.RefineList:
			return r.fileOp(FileReplace, s, v)
		case cmmn.RefineIndexed, cmmn.RefineReferenceIndexed:
			if p.Index < len(s.list()) {
				return r.fileOp(FileUpdate, s.element(p.Index), v)
			}
		}
		return r.appendElements(s, v)
	}
	if ref == cmmn.RefineReplace {
		return r.fileOp(FileReplace, s, v)
	}
	return r.fileOp(FileUpdate, s, v)
}
