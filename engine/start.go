package engine

import (
	"maps"
	"slices"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// Start creates a case instance of def: it binds the input parameters into
// the case file, creates the case plan (Active) and its items, and lets
// everything that can start, start. It returns the new case and its
// events, the last of which is CaseModified.
//
// An input the case does not define, or a value that does not fit the
// case file item it binds to, fails with ErrInvalid.
//
// Start drops the effects of the start on other cases (sub cases its case
// tasks start); service calls StartWithEffects.
func Start(def *cmmn.Case, cmd StartCase, actor Actor, env Env) (*Case, []Event, error) {
	c, out, err := StartWithEffects(def, cmd, actor, env)
	return c, out.Events, err
}

// StartWithEffects is Start that also returns the effects on other cases.
func StartWithEffects(def *cmmn.Case, cmd StartCase, actor Actor, env Env) (*Case, Outcome, error) {
	if def == nil || def.Plan() == nil {
		return nil, Outcome{}, errorf(ErrInvalid, "The case definition is missing")
	}
	if cmd.ID == "" {
		// The case plan item takes the case's id, and "" marks the case
		// plan as having no stage around it.
		return nil, Outcome{}, errorf(ErrInvalid, "A case needs an id")
	}
	c := &Case{
		ID: cmd.ID, Tenant: cmd.Tenant, Name: def.Name(), DefinitionID: def.ID(),
		ParentID: cmd.ParentID, RootID: cmd.RootID, Depth: cmd.Depth, Debug: cmd.Debug,
		CreatedOn: env.Now, CreatedBy: actor.UserID, LastModified: env.Now, ModifiedBy: actor.UserID,
		File: map[string]any{}, FileStates: map[string]State{}, Team: cloneTeam(cmd.Team),
	}
	if c.RootID == "" {
		c.RootID = c.ID
	}
	r := newRun(def, c, actor, env)
	r.emit(CaseDefinitionApplied{CaseInstanceID: c.ID, Tenant: c.Tenant, CaseName: c.Name, DefinitionID: c.DefinitionID,
		ParentCaseID: c.ParentID, RootCaseID: c.RootID, CreatedOn: c.CreatedOn, CreatedBy: c.CreatedBy})
	if err := r.bindInputs(cmd.Inputs); err != nil {
		return nil, Outcome{}, err
	}
	if _, err := r.createItem(def.Plan(), nil, 0); err != nil {
		return nil, Outcome{}, err
	}
	if err := r.drain(); err != nil {
		return nil, Outcome{}, err
	}
	r.finish()
	return c, Outcome{Events: r.events, Effects: r.effects}, nil
}

// bindInputs checks the case input parameters and writes those bound to a
// case file item into the case file.
func (r *run) bindInputs(inputs map[string]any) error {
	names := slices.Sorted(maps.Keys(inputs))
	params := make([]*cmmn.Parameter, len(names))
	values := make([]any, len(names))
	for i, name := range names {
		p := r.def.Input(name)
		if p == nil {
			return errorf(ErrInvalid, "An input parameter with name %s is not defined in the case", name)
		}
		v, err := normalize(inputs[name], 0)
		if err != nil {
			return errorf(ErrInvalid, "The value of input parameter %s is invalid: %v", name, err)
		}
		if f := p.Binding(); f != nil {
			s := slot{def: f, index: -1, path: f.Path()}
			if f.IsArray() {
				s.array = f.Path()
			}
			if err := validateSlot(s, inputs[name]); err != nil {
				return err
			}
			v = conformSlot(s, v)
		}
		params[i], values[i] = p, v
	}
	r.holding = true
	for i, p := range params {
		f := p.Binding()
		if f == nil || values[i] == nil {
			continue
		}
		s, ok, err := r.bindingSlot(f, true)
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrInvalid, "The input parameter %s cannot be bound into case file item '%s'", p.Name(), f.Path())
		}
		if err := r.fileOp(FileUpdate, s, values[i]); err != nil {
			return err
		}
	}
	r.holding = false
	return nil
}

func cloneTeam(t Team) Team {
	out := Team{Members: make([]Member, len(t.Members))}
	for i, m := range t.Members {
		out.Members[i] = cloneMember(m)
	}
	return out
}

// CaseOutput returns the case's output parameters by name: the value of
// each parameter's bound case file item (an array item gives its whole
// list), null when the item is empty or the parameter has no binding. A
// parent case maps them back when its case task completes.
func CaseOutput(def *cmmn.Case, c *Case) map[string]any {
	if def == nil || c == nil {
		return map[string]any{}
	}
	return newRun(def, c, Actor{}, Env{Now: c.LastModified}).caseOutput()
}
