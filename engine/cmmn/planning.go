package cmmn

// PlanningTable offers discretionary items that team members may plan into
// a stage, while the stage (or the human task owning the table) is active.
// Tables nest; a nested table and its items are subject to the table's own
// applicability rules and authorized roles as well as their own.
type PlanningTable struct {
	element
	stage     *Stage
	humanTask *HumanTask
	parent    *PlanningTable
	items     []*PlanItem
	tables    []*PlanningTable
	rules     []*Rule

	roleRefs, ruleRefs []string
	roles              []*Role
	applicability      []*Rule
}

// Stage returns the stage owning the table, or nil when a human task owns it.
func (t *PlanningTable) Stage() *Stage { return t.stage }

// HumanTask returns the human task owning the table, or nil.
func (t *PlanningTable) HumanTask() *HumanTask { return t.humanTask }

// Parent returns the enclosing table of a nested table, or nil.
func (t *PlanningTable) Parent() *PlanningTable { return t.parent }

// Items returns the discretionary items directly in the table.
func (t *PlanningTable) Items() []*PlanItem { return clip(t.items) }

// Tables returns the nested tables.
func (t *PlanningTable) Tables() []*PlanningTable { return clip(t.tables) }

// AllItems returns the discretionary items of the table and its nested
// tables, depth first.
func (t *PlanningTable) AllItems() []*PlanItem {
	items := append([]*PlanItem(nil), t.items...)
	for _, n := range t.tables {
		items = append(items, n.AllItems()...)
	}
	return items
}

// Rules returns the applicability rules declared in the table, which its
// items and nested tables refer to.
func (t *PlanningTable) Rules() []*Rule { return clip(t.rules) }

// AuthorizedRoles returns the roles that may plan from the table (nested
// tables are a table item too); empty means any team member.
func (t *PlanningTable) AuthorizedRoles() []*Role { return clip(t.roles) }

// ApplicabilityRules returns the rules that must hold for the table's items
// to be plannable.
func (t *PlanningTable) ApplicabilityRules() []*Rule { return clip(t.applicability) }
