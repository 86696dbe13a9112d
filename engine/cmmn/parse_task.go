package cmmn

import (
	"strings"

	"github.com/casegraph/casegraph/engine/expr"
)

// task reads what all tasks share: blocking, parameters, and (for case and
// process tasks) the parameter mappings written on the task itself.
func (b *builder) task(c *Case, n *Node, base definitionBase) task {
	t := task{definitionBase: base, blocking: boolAttr(n, "isBlocking", true)}
	label := base.describe(n.name)
	for _, cn := range n.children {
		switch cn.name {
		case "inputs":
			t.inputs = append(t.inputs, b.parameter(c, cn, "input parameter", label))
		case "outputs":
			t.outputs = append(t.outputs, b.parameter(c, cn, "output parameter", label))
		case "parameterMapping":
			t.mappings = append(t.mappings, b.mapping(c, cn, label))
		}
	}
	return t
}

func (b *builder) mapping(c *Case, n *Node, owner string) *Mapping {
	m := &Mapping{element: elem(n), sourceRef: n.Attr("sourceRef"), targetRef: n.Attr("targetRef")}
	if tn := n.Child("transformation"); tn != nil {
		m.transformation = b.expression(c, tn, "transformation of "+m.label(owner))
	}
	return m
}

func (m *Mapping) label(owner string) string {
	return m.describe("parameterMapping") + " of " + owner
}

func (b *builder) humanTask(c *Case, n *Node, base definitionBase) *HumanTask {
	h := &HumanTask{task: b.task(c, n, base), performerRef: n.Attr("performerRef")}
	label := base.describe("humanTask")
	if pt := n.Child("planningTable"); pt != nil {
		h.table = b.planningTable(c, pt, nil, h, nil)
	}
	w := &Workflow{}
	h.workflow = w
	impl := extension(n)
	if impl == nil {
		return h
	}
	w.element = elem(impl)
	w.class = impl.Attr("class")
	w.humanTaskRef = impl.Attr("humanTaskRef")
	w.validatorRef = impl.Attr("validatorRef")
	for _, cn := range impl.children {
		switch cn.name {
		case "input":
			w.inputs = append(w.inputs, b.workflowParameter(c, cn, "workflow input", label))
		case "output":
			w.outputs = append(w.outputs, b.workflowParameter(c, cn, "workflow output", label))
		case "parameterMapping":
			h.mappings = append(h.mappings, b.mapping(c, cn, label))
		case "task-model":
			w.taskModel = strings.TrimSpace(cn.text)
			if !b.budget(strings.Count(w.taskModel, "${")) {
				continue
			}
			tmpl, err := expr.CompileTemplate(w.taskModel)
			if err != nil {
				b.casef(c, "%s has an invalid ${...} substitution in its task-model: %v", label, err)
			}
			w.template = tmpl
		case "assignment":
			w.assignment = b.workflowExpression(c, cn, "assignment of "+label)
		case "duedate":
			w.dueDate = b.workflowExpression(c, cn, "duedate of "+label)
		}
	}
	return h
}

// workflowParameter reads an input or output of a workflow implementation.
// Their ids are local to the implementation (the modeller copies them from a
// shared .humantask file), so they are not registered in the case.
func (b *builder) workflowParameter(c *Case, n *Node, kind, owner string) *Parameter {
	p := &Parameter{element: elem(n)}
	if p.name == "" {
		b.casef(c, "%s of %s has no name", p.describe(kind), owner)
	}
	return p
}

// workflowExpression reads <assignment> or <duedate>: a condition holding the
// expression, with an optional contextRef to a case file item.
func (b *builder) workflowExpression(c *Case, n *Node, owner string) *Expression {
	cond := n.Child("condition")
	if cond == nil {
		cond = n
	}
	x := b.expression(c, cond, owner)
	x.contextRef = n.Attr("contextRef")
	return x
}
