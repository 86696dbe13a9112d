package cmmn

import "github.com/casegraph/casegraph/engine/expr"

// task is embedded by the three task definitions.
type task struct {
	definitionBase
	blocking       bool
	inputs         []*Parameter
	outputs        []*Parameter
	mappings       []*Mapping // as written, resolved into the two lists below
	inputMappings  []*Mapping
	outputMappings []*Mapping
}

// IsBlocking reports whether the task stays active until its work is done
// (the default) rather than completing as soon as it starts.
func (t *task) IsBlocking() bool { return t.blocking }

// Inputs returns the task's input parameters, bound to case file items.
func (t *task) Inputs() []*Parameter { return clip(t.inputs) }

// Outputs returns the task's output parameters, bound to case file items.
func (t *task) Outputs() []*Parameter { return clip(t.outputs) }

// InputMappings returns the mappings from the task's inputs to its
// implementation's inputs (workflow, sub case or process).
func (t *task) InputMappings() []*Mapping { return clip(t.inputMappings) }

// OutputMappings returns the mappings from the implementation's outputs to
// the task's outputs.
func (t *task) OutputMappings() []*Mapping { return clip(t.outputMappings) }

// HumanTask is a human task definition.
type HumanTask struct {
	task
	performerRef string
	performer    *Role
	table        *PlanningTable
	workflow     *Workflow
}

// Performer returns the role that performs the task, or nil when any team
// member may.
func (h *HumanTask) Performer() *Role { return h.performer }

// PlanningTable returns the table of items that can be planned while the
// task is active, or nil.
func (h *HumanTask) PlanningTable() *PlanningTable { return h.table }

// Workflow returns the cafienne workflow implementation; never nil (a task
// without one gets an empty workflow).
func (h *HumanTask) Workflow() *Workflow { return h.workflow }

// Workflow is a human task's cafienne:implementation: the form, assignment,
// due date and the parameters the task's mappings fill.
type Workflow struct {
	element
	class        string
	humanTaskRef string
	inputs       []*Parameter
	outputs      []*Parameter
	taskModel    string
	template     *expr.Template
	assignment   *Expression
	dueDate      *Expression
	validatorRef string
	validator    *Process
}

// Class returns the implementation class, normally
// org.cafienne.cmmn.definition.task.WorkflowTaskDefinition.
func (w *Workflow) Class() string { return w.class }

// HumanTaskRef returns the modeller's source file of the task, for display.
func (w *Workflow) HumanTaskRef() string { return w.humanTaskRef }

// Inputs returns the workflow's input parameters, filled by the task's input
// mappings.
func (w *Workflow) Inputs() []*Parameter { return clip(w.inputs) }

// Outputs returns the workflow's output parameters, the task's result.
func (w *Workflow) Outputs() []*Parameter { return clip(w.outputs) }

// TaskModel returns the task model text (JSON schema and UI schema), with
// ${...} substitutions unrendered.
func (w *Workflow) TaskModel() string { return w.taskModel }

// TaskModelTemplate returns the task model compiled as a template; nil when
// there is no task model.
func (w *Workflow) TaskModelTemplate() *expr.Template { return w.template }

// Assignment returns the expression naming the user to assign the task to
// on activation, or nil.
func (w *Workflow) Assignment() *Expression { return w.assignment }

// DueDate returns the expression giving the task's due date on activation,
// or nil.
func (w *Workflow) DueDate() *Expression { return w.dueDate }

// Validator returns the process that validates task output before it is
// saved or completed, or nil.
func (w *Workflow) Validator() *Process { return w.validator }

// CaseTask is a case task definition: it starts another case of the same
// document.
type CaseTask struct {
	task
	caseRef string
	subCase *Case
}

// SubCase returns the case the task starts.
func (t *CaseTask) SubCase() *Case { return t.subCase }

// ProcessTask is a process task definition.
type ProcessTask struct {
	task
	processRef string
	process    *Process
}

// Process returns the process the task runs.
func (t *ProcessTask) Process() *Process { return t.process }

// Process is a process definition: its parameters and a pluggable
// implementation the engine does not interpret (an HTTP call, a
// calculation, a mail), kept as written.
type Process struct {
	element
	implementationType string
	inputs             []*Parameter
	outputs            []*Parameter
	class              string
	implementation     *Node
	// At most one of these is set, by class.
	http *HTTPCall
	calc *Calculation
	mail *Mail
}

// ImplementationType returns the CMMN implementationType URI.
func (p *Process) ImplementationType() string { return p.implementationType }

// Inputs returns the process's input parameters.
func (p *Process) Inputs() []*Parameter { return clip(p.inputs) }

// Outputs returns the process's output parameters.
func (p *Process) Outputs() []*Parameter { return clip(p.outputs) }

// Class returns the implementation class, such as
// org.cafienne.processtask.implementation.http.HTTPCallDefinition, or "".
func (p *Process) Class() string { return p.class }

// Implementation returns the cafienne:implementation element as written, or
// nil.
func (p *Process) Implementation() *Node { return p.implementation }
