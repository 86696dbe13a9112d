package cmmn

// Definitions is a parsed, resolved and validated CMMN <definitions>
// document: its cases, processes and case file item definitions. The first
// case is the main one; the others can be started by its case tasks.
//
// A Definitions value and everything reachable from it is immutable and
// shared by every case instance running on it. Slices returned by accessors
// must not be modified.
type Definitions struct {
	cases       []*Case
	caseByID    map[string]*Case
	processes   []*Process
	processByID map[string]*Process
	types       []*CaseFileItemDefinition
	typeByID    map[string]*CaseFileItemDefinition
}

// Main returns the first case of the document, the one a deployment
// describes.
func (d *Definitions) Main() *Case {
	if len(d.cases) == 0 {
		return nil
	}
	return d.cases[0]
}

// Case returns the case with the given id, or nil.
func (d *Definitions) Case(id string) *Case { return d.caseByID[id] }

// Cases returns all cases in document order.
func (d *Definitions) Cases() []*Case { return clip(d.cases) }

// Process returns the process with the given id, or nil.
func (d *Definitions) Process(id string) *Process { return d.processByID[id] }

// Processes returns all processes in document order.
func (d *Definitions) Processes() []*Process { return clip(d.processes) }

// CaseFileItemDefinition returns the case file item definition with the
// given id, or nil.
func (d *Definitions) CaseFileItemDefinition(id string) *CaseFileItemDefinition {
	return d.typeByID[id]
}

// CaseFileItemDefinitions returns all case file item definitions in
// document order.
func (d *Definitions) CaseFileItemDefinitions() []*CaseFileItemDefinition { return clip(d.types) }

// Case is a case definition: its plan, case file, roles and parameters.
type Case struct {
	element
	defs           *Definitions
	language       string
	plan           *PlanItem
	roles          []*Role
	roleByName     map[string]*Role
	caseFile       []*CaseFileItem
	fileItems      []*CaseFileItem
	fileByPath     map[string]*CaseFileItem
	inputs         []*Parameter
	outputs        []*Parameter
	planItems      []*PlanItem
	planItemByID   map[string]*PlanItem
	sentries       []*Sentry
	definitions    []PlanItemDefinition
	tables         []*PlanningTable
	expressions    []*Expression
	startCaseModel string

	ids idIndex // every referenceable element by id, for resolution
}

// Definitions returns the document the case belongs to.
func (c *Case) Definitions() *Definitions { return c.defs }

// ExpressionLanguage returns the case's default expression language
// ("spel").
func (c *Case) ExpressionLanguage() string { return c.language }

// Plan returns the case plan as a plan item of type [TypeCasePlan]. Its
// definition is the case plan model stage; it carries the case plan's exit
// criteria.
func (c *Case) Plan() *PlanItem { return c.plan }

// PlanModel returns the stage that is the case plan model.
func (c *Case) PlanModel() *Stage { return c.plan.definition.(*Stage) }

// Roles returns the case roles in document order.
func (c *Case) Roles() []*Role { return clip(c.roles) }

// Role returns the case role with the given name, or nil.
func (c *Case) Role(name string) *Role { return c.roleByName[name] }

// CaseFile returns the top-level case file items.
func (c *Case) CaseFile() []*CaseFileItem { return clip(c.caseFile) }

// CaseFileItems returns every case file item, parents before children.
func (c *Case) CaseFileItems() []*CaseFileItem { return clip(c.fileItems) }

// CaseFileItem returns the item at path, item names joined by "/" such as
// "Root/Child", or nil. Array positions are not part of definition paths.
func (c *Case) CaseFileItem(path string) *CaseFileItem { return c.fileByPath[path] }

// Inputs returns the case input parameters, bound to case file items.
func (c *Case) Inputs() []*Parameter { return clip(c.inputs) }

// Outputs returns the case output parameters.
func (c *Case) Outputs() []*Parameter { return clip(c.outputs) }

// Input returns the input parameter with the given name, or nil.
func (c *Case) Input(name string) *Parameter { return byName(c.inputs, name) }

// PlanItems returns every plan item and discretionary item of the case in
// document order, excluding the case plan itself.
func (c *Case) PlanItems() []*PlanItem { return clip(c.planItems) }

// PlanItem returns the plan item or discretionary item with the given id,
// or nil.
func (c *Case) PlanItem(id string) *PlanItem { return c.planItemByID[id] }

// PlanItemDefinitions returns the stages, tasks, milestones and event
// listeners declared in the case, excluding the case plan model.
func (c *Case) PlanItemDefinitions() []PlanItemDefinition { return clip(c.definitions) }

// Sentries returns every sentry of the case.
func (c *Case) Sentries() []*Sentry { return clip(c.sentries) }

// Expressions returns every expression of the case, compiled, in document
// order.
func (c *Case) Expressions() []*Expression { return clip(c.expressions) }

// StartCaseModel returns the JSON form description the reference engine's
// UI shows to start the case (cafienne:start-case-model), or "".
func (c *Case) StartCaseModel() string { return c.startCaseModel }

// Role is a case role. Team members hold roles; tasks, user events and
// discretionary items are restricted to them.
type Role struct {
	element
	c *Case
}

// Case returns the case defining the role.
func (r *Role) Case() *Case { return r.c }

// BindingRefinement says how a parameter binds to its case file item. The
// reference engine uses keywords rather than expressions; unknown text is
// kept, lower-cased, and treated by the engine as the default.
type BindingRefinement string

// Binding refinements used by the reference engine's models.
const (
	RefineDefault          BindingRefinement = ""
	RefineAdd              BindingRefinement = "add"
	RefineUpdate           BindingRefinement = "update"
	RefineReplace          BindingRefinement = "replace"
	RefineList             BindingRefinement = "list"
	RefineIndexed          BindingRefinement = "indexed"
	RefineReference        BindingRefinement = "reference"
	RefineReferenceIndexed BindingRefinement = "reference-indexed"
)

// Parameter is an input or output parameter of a case, a task, a human
// task's workflow or a process.
type Parameter struct {
	element
	bindingRef string
	binding    *CaseFileItem
	refinement BindingRefinement
	required   bool
	kind       string // for problem messages: "input parameter"
	owner      string // and, for a task's parameter, the task
}

func (p *Parameter) label() string {
	if p.owner == "" {
		return p.describe(p.kind)
	}
	return p.describe(p.kind) + " of " + p.owner
}

// Binding returns the case file item the parameter is bound to, or nil.
func (p *Parameter) Binding() *CaseFileItem { return p.binding }

// BindingRefinement returns how the binding applies; see the Refine
// constants.
func (p *Parameter) BindingRefinement() BindingRefinement { return p.refinement }

// Required reports whether a task output parameter must be present when the
// task completes (cafienne required="true").
func (p *Parameter) Required() bool { return p.required }

// Mapping is a parameter mapping: Source's value, optionally transformed,
// becomes Target's value. Input mappings go from a task's parameter to its
// implementation's; output mappings back.
type Mapping struct {
	element
	sourceRef, targetRef string
	source, target       *Parameter
	transformation       *Expression
}

// Source returns the parameter the value comes from.
func (m *Mapping) Source() *Parameter { return m.source }

// Target returns the parameter the value goes to.
func (m *Mapping) Target() *Parameter { return m.target }

// Transformation returns the expression applied to the value, or nil to copy
// it unchanged.
func (m *Mapping) Transformation() *Expression { return m.transformation }

// clip returns s with capacity equal to length, so that a caller appending
// to an accessor's result never writes into the definition.
func clip[T any](s []T) []T { return s[:len(s):len(s)] }

type named interface{ Name() string }

func byName[T named](list []T, name string) T {
	for _, x := range list {
		if x.Name() == name {
			return x
		}
	}
	var zero T
	return zero
}
