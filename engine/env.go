package engine

import (
	"slices"

	"github.com/casegraph/casegraph/engine/cmmn"
	"github.com/casegraph/casegraph/engine/expr"
)

// exprEnv is what an expression of the case sees (§4.5): parameters of the
// mapping or task being evaluated, the case file items by their top-level
// names, the context objects case, task, stage, team and user, the time,
// and plan items by name.
type exprEnv struct {
	r *run
	// item is the plan item the expression belongs to: the task of a
	// mapping, the item of a rule or criterion; nil at case level.
	item *PlanItem
	vars map[string]any
}

func (r *run) exprEnv(item *PlanItem, vars map[string]any) *exprEnv {
	return &exprEnv{r: r, item: item, vars: vars}
}

// withContext returns the environment for expression x: when x names a
// case file item by its contextRef (an if-part, a rule, an assignment),
// that item's value is available under the item's name, also when the
// item is nested ("!DetailsKey.isEmpty()" with contextRef
// "IdentifierList/DetailsKey"). A nested item is read through the current
// element of the arrays on the way; an array item gives its whole list.
func (e *exprEnv) withContext(x *cmmn.Expression) *exprEnv {
	if x == nil || x.Context() == nil {
		return e
	}
	f := x.Context()
	if _, own := e.vars[f.Name()]; own {
		return e
	}
	if f.Parent() == nil {
		// A top-level item is known by its name already.
		vars := make(map[string]any, len(e.vars)+1)
		for k, val := range e.vars {
			vars[k] = val
		}
		vars["caseFileItem"] = e.r.fileItem(f)
		return &exprEnv{r: e.r, item: e.item, vars: vars}
	}
	var v any
	if s, ok, err := e.r.bindingSlot(f, false); err == nil && ok {
		v = s.get()
	}
	vars := make(map[string]any, len(e.vars)+2)
	for k, val := range e.vars {
		vars[k] = val
	}
	vars[f.Name()] = v
	vars["caseFileItem"] = e.r.fileItem(f)
	return &exprEnv{r: e.r, item: e.item, vars: vars}
}

// Lookup resolves a root identifier of an expression.
func (e *exprEnv) Lookup(name string) (any, bool) {
	if v, ok := e.vars[name]; ok {
		return v, true
	}
	r := e.r
	if name == expr.NowName {
		return r.env.Now, true
	}
	if r.topItem(name) != nil {
		return r.c.File[name], true
	}
	switch name {
	case "case":
		return caseObject{r}, true
	case "caseInstanceId":
		return r.c.ID, true
	case "task", "planItem":
		if e.item != nil {
			return itemObject{r, e.item}, true
		}
		return nil, true
	case "stage":
		return stageObject{r, e.stage()}, true
	case "team":
		return teamObject{r.c}, true
	case "user":
		return map[string]any{"id": r.actor.UserID}, true
	}
	if p := r.named(name, nil); p != nil {
		return itemObject{r, p}, true
	}
	return nil, false
}

// stage returns the stage instance the expression runs in.
func (e *exprEnv) stage() *PlanItem {
	if e.item == nil {
		return e.r.casePlan()
	}
	if t := cmmn.PlanItemType(e.item.Type); t == cmmn.TypeStage || t == cmmn.TypeCasePlan {
		return e.item
	}
	if p := e.r.parent(e.item); p != nil {
		return p
	}
	return e.r.casePlan()
}

// named returns the newest item called name, inside stage when given.
func (r *run) named(name string, stage *PlanItem) *PlanItem {
	for _, p := range slices.Backward(r.c.PlanItems) {
		if p.Name == name && (stage == nil || p.StageID == stage.ID) {
			return p
		}
	}
	return nil
}

// caseObject is "case": the case instance.
type caseObject struct{ r *run }

// Field returns a property of the case.
func (o caseObject) Field(name string) (any, bool) {
	c := o.r.c
	switch name {
	case "id", "caseInstanceId":
		return c.ID, true
	case "name", "definition":
		return c.Name, true
	case "tenant":
		return c.Tenant, true
	case "state":
		return string(c.State()), true
	case "parentCaseId", "parentId":
		return c.ParentID, true
	case "rootCaseId", "rootId":
		return c.RootID, true
	case "createdBy":
		return c.CreatedBy, true
	case "createdOn":
		return c.CreatedOn, true
	case "lastModified":
		return c.LastModified, true
	case "file":
		if c.File == nil {
			return map[string]any{}, true
		}
		return c.File, true
	case "team":
		return teamObject{c}, true
	case "plan":
		return itemObject{o.r, o.r.casePlan()}, true
	}
	return nil, false
}

// itemObject is a plan item in an expression: "task", "case.plan", or an
// item by name. Its state is a string, on which expr answers isActive()
// and friends; a stage also has its children as properties.
type itemObject struct {
	r *run
	p *PlanItem
}

// Field returns a property of the item or, for a stage, a child by name.
func (o itemObject) Field(name string) (any, bool) {
	p := o.p
	switch name {
	case "id":
		return p.ID, true
	case "name":
		return p.Name, true
	case "index":
		return int64(p.Index), true
	case "state", "currentState":
		return string(p.State), true
	case "historyState":
		return string(p.HistoryState), true
	case "type":
		return p.Type, true
	case "stageId":
		return p.StageID, true
	case "definitionId":
		return p.DefinitionID, true
	case "isRequired", "required":
		return p.Required, true
	case "isRepeating", "repeating":
		return p.Repeating, true
	case "input":
		if p.Task != nil {
			return p.Task.Input, true
		}
		return map[string]any{}, true
	case "output":
		if p.Task != nil {
			return p.Task.Output, true
		}
		return map[string]any{}, true
	case "stage", "parent":
		// The stage the item runs in, as the reference engine's context
		// offers it (task.stage.index inside a repeating stage).
		if parent := o.r.parent(p); parent != nil {
			return itemObject{o.r, parent}, true
		}
		return itemObject{o.r, o.r.casePlan()}, true
	}
	if child := o.r.named(name, p); child != nil {
		return itemObject{o.r, child}, true
	}
	return nil, false
}

// CallMethod answers the reference engine's Java-style getters.
func (o itemObject) CallMethod(name string, _ []any) (any, bool, error) {
	switch name {
	case "getId":
		return o.p.ID, true, nil
	case "getName":
		return o.p.Name, true, nil
	case "getIndex":
		return int64(o.p.Index), true, nil
	case "getState":
		return string(o.p.State), true, nil
	}
	return nil, false, nil
}

// stageObject is "stage": the items of the stage an expression runs in,
// by name (stage.T2.state), falling back to items anywhere in the case.
type stageObject struct {
	r     *run
	stage *PlanItem
}

// Field returns the item called name.
func (o stageObject) Field(name string) (any, bool) {
	if p := o.r.named(name, o.stage); p != nil {
		return itemObject{o.r, p}, true
	}
	if p := o.r.named(name, nil); p != nil {
		return itemObject{o.r, p}, true
	}
	if o.stage != nil {
		return itemObject{o.r, o.stage}.Field(name)
	}
	return nil, false
}

// teamObject is "case.team": members, and per role its members
// (case.team.role.Approver.member?.id).
type teamObject struct{ c *Case }

// Field returns members, owners or the role index.
func (o teamObject) Field(name string) (any, bool) {
	switch name {
	case "members":
		return o.members(func(Member) bool { return true }), true
	case "owners":
		return o.members(func(m Member) bool { return m.IsOwner }), true
	case "role", "roles":
		return roleIndex(o), true
	}
	return nil, false
}

func (o teamObject) members(keep func(Member) bool) []any {
	out := []any{}
	for _, m := range o.c.Team.Members {
		if keep(m) {
			out = append(out, memberValue(m))
		}
	}
	return out
}

func memberValue(m Member) map[string]any {
	roles := make([]any, len(m.CaseRoles))
	for i, r := range m.CaseRoles {
		roles[i] = r
	}
	return map[string]any{"id": m.ID, "type": string(m.Type), "memberType": string(m.Type),
		"isOwner": m.IsOwner, "caseRoles": roles, "origin": m.Origin}
}

// roleIndex is "case.team.role": the case roles by name.
type roleIndex teamObject

// Field returns the members holding a role.
func (o roleIndex) Field(name string) (any, bool) {
	return roleObject{c: o.c, role: name}, true
}

// roleObject is one case role: its first user member and all its members.
type roleObject struct {
	c    *Case
	role string
}

// Field returns member (the first user holding the role, or null),
// members, or name.
func (o roleObject) Field(name string) (any, bool) {
	holds := func(m Member) bool { return slices.Contains(m.CaseRoles, o.role) }
	switch name {
	case "name":
		return o.role, true
	case "members":
		return teamObject{o.c}.members(holds), true
	case "member":
		for _, m := range o.c.Team.Members {
			if m.Type == UserMember && holds(m) {
				return memberValue(m), true
			}
		}
		return nil, true
	}
	return nil, false
}

// fileItemObject is "caseFileItem", the item an expression's contextRef
// names, as the reference engine offers it: for an array its current
// element (index, value, current), the whole array (container), its
// parent, and get(i) for any element.
type fileItemObject struct {
	r     *run
	def   *cmmn.CaseFileItem
	slot  slot
	index int // of the element for an array, -1 otherwise
}

// fileItem returns the object for item f, read through the current
// element of the arrays on the way; nil when a parent is missing.
func (r *run) fileItem(f *cmmn.CaseFileItem) any {
	s, ok, err := r.bindingSlot(f, false)
	if err != nil || !ok {
		return nil
	}
	o := fileItemObject{r: r, def: f, slot: s, index: -1}
	if f.IsArray() {
		o.index = r.current(s.array, s.list())
	}
	return o
}

func (o fileItemObject) value() any {
	if o.index >= 0 {
		return o.slot.element(o.index).get()
	}
	if o.def.IsArray() {
		return nil // an empty array has no current element
	}
	return o.slot.get()
}

// Field returns a property of the item, or of its current value.
func (o fileItemObject) Field(name string) (any, bool) {
	switch name {
	case "index":
		return int64(o.index), true
	case "value":
		return o.value(), true
	case "current":
		return o, true
	case "name":
		return o.def.Name(), true
	case "container":
		if o.def.IsArray() {
			return o.slot.list(), true
		}
		return o.slot.get(), true
	case "parent":
		if p := o.def.Parent(); p != nil {
			return o.r.fileItem(p), true
		}
		return nil, true
	}
	if m, ok := o.value().(map[string]any); ok {
		v, found := m[name]
		return v, found
	}
	return nil, false
}

// CallMethod answers get(i), getCurrent(), getValue() and getIndex().
func (o fileItemObject) CallMethod(name string, args []any) (any, bool, error) {
	switch name {
	case "get":
		if len(args) != 1 {
			return nil, false, nil
		}
		i, ok := args[0].(int64)
		if !ok || !o.def.IsArray() || i < 0 || int(i) >= len(o.slot.list()) {
			return nil, true, nil
		}
		e := o
		e.index = int(i)
		return e, true, nil
	case "getCurrent":
		return o, true, nil
	case "getValue":
		return o.value(), true, nil
	case "getIndex":
		return int64(o.index), true, nil
	}
	return nil, false, nil
}
