package cmmn

import (
	"fmt"
	"strings"
)

// idIndex holds the referenceable elements of one case by id. Ids need only
// be unique within a case: documents that embed sub cases repeat role ids
// across cases, and elements nobody refers to (on-parts, conditions,
// mappings) may repeat ids even within one, as real models do.
type idIndex map[string]any

// add registers x under id and reports a duplicate.
func (b *builder) add(c *Case, id string, x any) {
	if id == "" {
		return
	}
	if prev, dup := c.ids[id]; dup {
		b.casef(c, "%s has the same id as %s; ids must be unique within a case", labelOf(x), labelOf(prev))
		return
	}
	c.ids[id] = x
}

// labelOf names an indexed element for a message. Labels are built only
// when a problem is reported: building them for every element would be a
// sixth of the allocations of a parse.
func labelOf(x any) string {
	switch e := x.(type) {
	case *PlanItem:
		return e.describe()
	case PlanItemDefinition:
		return e.base().describe(e.base().kind())
	case *Sentry:
		return e.describe("sentry")
	case *Criterion:
		return e.describe(string(e.kind))
	case *CaseFileItem:
		return e.describe("caseFileItem")
	case *Role:
		return e.describe("role")
	case *Parameter:
		return e.label()
	case *PlanningTable:
		return e.describe("planningTable")
	case *Rule:
		return e.describe("applicabilityRule")
	}
	return fmt.Sprintf("%T", x)
}

// lookup returns the element with the given id if it has type T.
func lookup[T any](c *Case, id string) (T, bool) {
	x, ok := c.ids[id].(T)
	return x, ok
}

func (b *builder) parseCase(n *Node, d *Definitions) *Case {
	c := &Case{
		element:      elem(n),
		defs:         d,
		language:     n.Attr("expressionLanguage"),
		roleByName:   map[string]*Role{},
		fileByPath:   map[string]*CaseFileItem{},
		planItemByID: map[string]*PlanItem{},
		ids:          idIndex{},
	}
	if c.language == "" {
		c.language = "spel"
	}
	if c.name == "" {
		b.problemf("%s has no name", describe("case", c.id, ""))
	}
	// The case file and roles come first, whatever their place in the
	// document, so that the plan's references can be checked against them.
	for _, cn := range n.children {
		switch cn.name {
		case "caseFileModel":
			for _, fn := range cn.children {
				if fn.name == "caseFileItem" {
					c.caseFile = append(c.caseFile, b.caseFileItem(c, fn, nil))
				}
			}
		case "caseRoles":
			b.caseRoles(c, cn)
		}
	}
	var planModel *Node
	for _, cn := range n.children {
		switch cn.name {
		case "casePlanModel":
			if planModel != nil {
				b.casef(c, "the case has more than one casePlanModel")
				continue
			}
			planModel = cn
		case "input":
			c.inputs = append(c.inputs, b.parameter(c, cn, "case input parameter", ""))
		case "output":
			c.outputs = append(c.outputs, b.parameter(c, cn, "case output parameter", ""))
		case "extensionElements":
			if m := cn.Child("start-case-model"); m != nil {
				c.startCaseModel = strings.TrimSpace(m.text)
			}
		}
	}
	if planModel == nil {
		b.casef(c, "the case has no casePlanModel")
		planModel = &Node{name: "casePlanModel"}
	}
	b.casePlan(c, planModel)
	return c
}

// caseRoles reads <caseRoles><role/></caseRoles> and the CMMN 1.0 form in
// which each <caseRoles> element with a name is itself a role.
func (b *builder) caseRoles(c *Case, n *Node) {
	if n.Attr("name") != "" {
		b.role(c, n)
	}
	for _, rn := range n.children {
		if rn.name == "role" {
			b.role(c, rn)
		}
	}
}

func (b *builder) role(c *Case, n *Node) {
	r := &Role{element: elem(n), c: c}
	c.roles = append(c.roles, r)
	b.add(c, r.id, r)
	switch {
	case r.name == "":
		b.casef(c, "%s has no name", r.describe("role"))
	case c.roleByName[r.name] != nil:
		b.casef(c, "case role %q is defined more than once; role names must be unique", r.name)
	default:
		c.roleByName[r.name] = r
	}
}

func (b *builder) caseFileItem(c *Case, n *Node, parent *CaseFileItem) *CaseFileItem {
	f := &CaseFileItem{element: elem(n), c: c, parent: parent, definitionRef: n.Attr("definitionRef")}
	m, ok := parseMultiplicity(n.Attr("multiplicity"))
	if !ok {
		b.casef(c, "%s has multiplicity %q; use ExactlyOne, ZeroOrOne, ZeroOrMore or OneOrMore", f.describe("caseFileItem"), n.Attr("multiplicity"))
	}
	f.multiplicity = m
	f.path = f.name
	if parent != nil {
		f.path = parent.path + "/" + f.name
	}
	c.fileItems = append(c.fileItems, f)
	b.add(c, f.id, f)
	switch {
	case f.name == "":
		b.casef(c, "%s has no name", f.describe("caseFileItem"))
	case c.fileByPath[f.path] != nil:
		b.casef(c, "the case file has more than one item at path %q; sibling items need distinct names", f.path)
	default:
		c.fileByPath[f.path] = f
	}
	for _, cn := range n.children {
		if cn.name != "children" {
			continue
		}
		for _, gn := range cn.children {
			if gn.name == "caseFileItem" {
				f.children = append(f.children, b.caseFileItem(c, gn, f))
			}
		}
	}
	return f
}

// parameter reads a case or task parameter with its binding; owner names
// the task for a task parameter.
func (b *builder) parameter(c *Case, n *Node, kind, owner string) *Parameter {
	p := &Parameter{element: elem(n), bindingRef: n.Attr("bindingRef")}
	if r := n.Child("bindingRefinement"); r != nil {
		text := r.ChildText("body")
		if text == "" {
			text = strings.TrimSpace(r.text)
		}
		p.refinement = BindingRefinement(strings.ToLower(text))
	}
	if impl := extension(n); impl != nil {
		p.required = boolAttr(impl, "required", false)
	}
	p.kind, p.owner = kind, owner
	b.add(c, p.id, p)
	if p.name == "" {
		b.casef(c, "%s has no name", p.label())
	}
	return p
}
