package engine

import (
	"github.com/casegraph/casegraph/engine/cmmn"
)

// Discretionary items (§1.9): planning tables on the case plan, on stages
// and on human tasks offer items that team members may plan into the case
// while the table's owner is Active, its applicability rules hold and the
// member holds an authorized role.

// DiscretionaryItem is an item a member may plan now, and where: ParentID
// is the stage, case plan or human task plan item whose planning table
// offers it, to be passed back in PlanDiscretionaryItem.
type DiscretionaryItem struct {
	Name string `json:"name"`
	// DefinitionID is the id of the <discretionaryItem>.
	DefinitionID string `json:"definitionId"`
	// Type is the plan item type the item gets: HumanTask, Stage, ….
	Type       string `json:"type"`
	ParentName string `json:"parentName"`
	// ParentType is CasePlan, Stage or HumanTask.
	ParentType string `json:"parentType"`
	ParentID   string `json:"parentId"`
}

// DiscretionaryItems returns the discretionary items actor may plan into
// c now, by parent in creation order and, per parent, in document order
// (nested tables depth first). Applicability rules see the case's last
// modification as now.
func DiscretionaryItems(def *cmmn.Case, c *Case, actor Actor) []DiscretionaryItem {
	if def == nil || c == nil {
		return nil
	}
	r := newRun(def, c, actor, Env{Now: c.LastModified})
	var out []DiscretionaryItem
	for _, parent := range c.PlanItems {
		if parent == nil || parent.State != Active {
			continue
		}
		table := r.planningTable(parent)
		if table == nil {
			continue
		}
		for _, it := range table.AllItems() {
			if r.applicable(parent, it) && r.authorized(it) {
				out = append(out, DiscretionaryItem{Name: it.Name(), DefinitionID: it.ID(), Type: string(it.Type()),
					ParentName: parent.Name, ParentType: parent.Type, ParentID: parent.ID})
			}
		}
	}
	return out
}

// planningTable returns the table a stage, the case plan or a human task
// instance offers, or nil.
func (r *run) planningTable(p *PlanItem) *cmmn.PlanningTable {
	def := r.definition(p)
	if def == nil {
		return nil
	}
	if s := def.Stage(); s != nil {
		return s.PlanningTable()
	}
	if h, ok := def.Definition().(*cmmn.HumanTask); ok {
		return h.PlanningTable()
	}
	return nil
}

// applicable reports whether the applicability rules of item, of its
// table and of the tables around that all hold for parent's table. The
// rules see the parent as their item (so "stage" is the stage planned
// into) and the item as "discretionaryItem".
func (r *run) applicable(parent *PlanItem, item *cmmn.PlanItem) bool {
	env := r.exprEnv(parent, map[string]any{"discretionaryItem": discretionaryObject{item}})
	for t := item.PlanningTable(); t != nil; t = t.Parent() {
		for _, rule := range t.ApplicabilityRules() {
			if !r.holds(rule, env) {
				return false
			}
		}
	}
	for _, rule := range item.ApplicabilityRules() {
		if !r.holds(rule, env) {
			return false
		}
	}
	return true
}

// authorized reports whether the actor holds one of the roles authorized
// for item or its tables; items and tables without roles are open to
// every member, and owners manage every role.
func (r *run) authorized(item *cmmn.PlanItem) bool {
	roles := item.AuthorizedRoles()
	for t := item.PlanningTable(); t != nil; t = t.Parent() {
		roles = append(roles, t.AuthorizedRoles()...)
	}
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

// plannable reports whether the stage's planning table still offers an
// item whose applicability rules hold: a stage without autoComplete waits
// for it (§4.1). Roles do not matter here: someone may still plan it.
func (r *run) plannable(stage *PlanItem, s *cmmn.Stage) bool {
	for _, it := range s.DiscretionaryItems() {
		if r.applicable(stage, it) {
			return true
		}
	}
	return false
}

// planDiscretionaryItem runs PlanDiscretionaryItem: the item becomes a
// plan item of the stage owning the table (for a human task's table, the
// task's stage), which then lives as any other: it enters now or waits for
// its entry criteria, and may repeat. Planning an item again adds another
// instance, with the next index.
func (r *run) planDiscretionaryItem(cmd PlanDiscretionaryItem) error {
	item := r.def.PlanItem(cmd.DefinitionID)
	name := cmd.Name
	if name == "" && item != nil {
		name = item.Name()
	}
	if cmd.PlanItemID != "" && r.item(cmd.PlanItemID) != nil {
		return errorf(ErrInvalid, "Cannot plan a discretionary item named '%s' with the specified id %s, because the case already has a plan item with that id", name, cmd.PlanItemID)
	}
	parent := r.item(cmd.ParentID)
	if parent == nil {
		return errorf(ErrInvalid, "Cannot plan a discretionary item named '%s', because the case has no stage or task with id '%s' to plan it in", name, cmd.ParentID)
	}
	table := r.planningTable(parent)
	if item == nil || table == nil || root(item.PlanningTable()) != table || parent.State != Active || !r.applicable(parent, item) {
		return errorf(ErrInvalid, "Cannot plan a discretionary item named '%s'. It may not be applicable at this moment", name)
	}
	if !r.authorized(item) {
		return errorf(ErrInvalid, "No authorization available to plan a discretionary item named '%s'", name)
	}
	stage := parent
	if parent.Type == string(cmmn.TypeHumanTask) {
		if stage = r.parent(parent); stage == nil {
			return errorf(ErrInvalid, "Cannot plan a discretionary item named '%s'. It may not be applicable at this moment", name)
		}
	}
	index := 0
	for _, ch := range r.children(stage) {
		if ch.DefinitionID == item.ID() {
			index++
		}
	}
	_, err := r.createItemID(item, stage, index, cmd.PlanItemID)
	return err
}

// root returns the outermost table around t, the one a stage or task
// owns; nil for nil.
func root(t *cmmn.PlanningTable) *cmmn.PlanningTable {
	for t != nil && t.Parent() != nil {
		t = t.Parent()
	}
	return t
}

// PlannedItemID returns the id of the plan item that a successful
// PlanDiscretionaryItem created, given its events: the first plan item
// they create (the items of a planned stage come after it). It returns ""
// when the events create none. Callers that pass PlanItemID know the id
// already.
func PlannedItemID(events []Event) string {
	for _, e := range events {
		if p, ok := e.Payload.(PlanItemCreated); ok {
			return p.PlanItemID
		}
	}
	return ""
}

// discretionaryObject is "discretionaryItem" in an applicability rule: the
// item whose applicability is asked.
type discretionaryObject struct{ p *cmmn.PlanItem }

// Field returns a property of the discretionary item.
func (o discretionaryObject) Field(name string) (any, bool) {
	switch name {
	case "name":
		return o.p.Name(), true
	case "id", "definitionId":
		return o.p.ID(), true
	case "type":
		return string(o.p.Type()), true
	}
	return nil, false
}

// CallMethod answers the reference engine's Java-style getters.
func (o discretionaryObject) CallMethod(name string, _ []any) (any, bool, error) {
	switch name {
	case "getName":
		return o.p.Name(), true, nil
	case "getId", "getDefinitionId":
		return o.p.ID(), true, nil
	case "getType":
		return string(o.p.Type()), true, nil
	}
	return nil, false, nil
}
