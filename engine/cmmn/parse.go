package cmmn

import (
	"fmt"
	"strings"

	"github.com/casegraph/casegraph/engine/expr"
)

// Parse reads a CMMN <definitions> document, resolves every reference
// between its elements and validates it. On any problem it returns a
// *ValidationError listing all problems found; otherwise the definitions are
// ready for the engine and never change.
func Parse(data []byte) (*Definitions, error) {
	root, err := readXML(data)
	if err != nil {
		return nil, &ValidationError{Problems: []string{err.Error()}}
	}
	b := &builder{seen: map[string]bool{}}
	if root.name != "definitions" || root.space != NamespaceCMMN {
		b.problemf("the root element must be <definitions> in namespace %s, not <%s> in namespace %q", NamespaceCMMN, root.name, root.space)
		return nil, b.err()
	}
	d := b.document(root)
	b.resolve(d)
	b.validate(d)
	if err := b.err(); err != nil {
		return nil, err
	}
	return d, nil
}

// Bounds on what one document may cost beyond its size: a generated or
// hostile document could otherwise hold millions of problems or
// expressions.
const (
	maxProblems    = 1000
	maxExpressions = 50_000
)

// builder collects problems while the document is read, resolved and
// validated, so that one Parse reports all of them.
type builder struct {
	problems    []string
	seen        map[string]bool
	suppressed  int
	expressions int // compiled so far, template substitutions included
}

func (b *builder) problemf(format string, args ...any) {
	if len(b.problems) >= maxProblems {
		b.suppressed++
		return
	}
	p := fmt.Sprintf(format, args...)
	if !b.seen[p] {
		b.seen[p] = true
		b.problems = append(b.problems, p)
	}
}

// budget counts n expressions about to be compiled and reports whether
// they fit in the document's budget; the first time they do not, it says so.
func (b *builder) budget(n int) bool {
	b.expressions += n
	if b.expressions <= maxExpressions {
		return true
	}
	if b.expressions-n <= maxExpressions {
		b.problemf("the document has more than %d expressions", maxExpressions)
	}
	return false
}

// casef reports a problem inside a case, prefixed with the case's name.
// The prefix is the case's definition id, as the reference engine's
// messages have it.
func (b *builder) casef(c *Case, format string, args ...any) {
	label := c.id
	if label == "" {
		label = caseLabel(c)
	}
	b.problemf("%s: %s", label, fmt.Sprintf(format, args...))
}

func caseLabel(c *Case) string {
	if c.name != "" {
		return fmt.Sprintf("case %q", c.name)
	}
	if c.id != "" {
		return fmt.Sprintf("case with id %q", c.id)
	}
	return "case without id or name"
}

func (b *builder) err() error {
	if len(b.problems) == 0 {
		return nil
	}
	if b.suppressed > 0 {
		b.problems = append(b.problems, fmt.Sprintf("and %d more problems", b.suppressed))
	}
	return &ValidationError{Problems: b.problems}
}

// elem reads the attributes every element has.
func elem(n *Node) element {
	e := element{id: n.Attr("id"), name: n.Attr("name"), doc: documentation(n)}
	if d := n.Child("documentation"); d != nil {
		e.docFormat = strings.TrimSpace(d.Attr("textFormat"))
	}
	return e
}

// documentation returns the text of <documentation><text>, falling back to
// the documentation element's own text and to the CMMN 1.0 description
// attribute.
func documentation(n *Node) string {
	if d := n.Child("documentation"); d != nil {
		if t := d.Child("text"); t != nil {
			return strings.TrimSpace(t.text)
		}
		return strings.TrimSpace(d.text)
	}
	return strings.TrimSpace(n.Attr("description"))
}

// extension returns the cafienne:implementation inside n's
// <extensionElements>, or nil.
func extension(n *Node) *Node {
	if ext := n.Child("extensionElements"); ext != nil {
		return ext.Child("implementation")
	}
	return nil
}

// extensions returns the children of n's <extensionElements> with the given
// name.
func extensions(n *Node, name string) []*Node {
	var list []*Node
	if ext := n.Child("extensionElements"); ext != nil {
		for _, c := range ext.children {
			if c.name == name {
				list = append(list, c)
			}
		}
	}
	return list
}

func boolAttr(n *Node, name string, def bool) bool {
	v, ok := n.lookupAttr(name)
	if !ok {
		return def
	}
	return strings.EqualFold(strings.TrimSpace(v), "true")
}

func refList(s string) []string { return strings.Fields(s) }

func (b *builder) document(root *Node) *Definitions {
	d := &Definitions{
		caseByID:    map[string]*Case{},
		processByID: map[string]*Process{},
		typeByID:    map[string]*CaseFileItemDefinition{},
	}
	topIDs := map[string]string{}
	register := func(kind, id, name string) bool {
		if id == "" {
			b.problemf("%s has no id", describe(kind, id, name))
			return false
		}
		if prev, dup := topIDs[id]; dup {
			b.problemf("%s has the same id as %s; ids must be unique in the document", describe(kind, id, name), prev)
			return false
		}
		topIDs[id] = describe(kind, id, name)
		return true
	}
	for _, n := range root.children {
		switch n.name {
		case "caseFileItemDefinition":
			t := b.caseFileItemDefinition(n)
			d.types = append(d.types, t)
			if register("caseFileItemDefinition", t.id, t.name) {
				d.typeByID[t.id] = t
			}
		case "process":
			p := b.process(n)
			d.processes = append(d.processes, p)
			if register("process", p.id, p.name) {
				d.processByID[p.id] = p
			}
		}
	}
	for _, n := range root.children {
		if n.name == "case" {
			c := b.parseCase(n, d)
			d.cases = append(d.cases, c)
			if register("case", c.id, c.name) {
				d.caseByID[c.id] = c
			}
		}
	}
	if len(d.cases) == 0 {
		b.problemf("the document defines no <case>")
	}
	return d
}

func (b *builder) caseFileItemDefinition(n *Node) *CaseFileItemDefinition {
	t := &CaseFileItemDefinition{element: elem(n), definitionType: n.Attr("definitionType")}
	if t.definitionType == "" {
		t.definitionType = "http://www.omg.org/spec/CMMN/DefinitionType/Unspecified"
	}
	names := map[string]bool{}
	for _, pn := range n.children {
		if pn.name != "property" {
			continue
		}
		p := &Property{element: elem(pn)}
		typ, ok := parsePropertyType(pn.Attr("type"))
		if !ok {
			b.problemf("%s: property %q has type %q, which is not a CMMN property type", t.describe("caseFileItemDefinition"), p.name, pn.Attr("type"))
		}
		p.typ = typ
		if impl := extension(pn); impl != nil {
			p.businessIdentifier = boolAttr(impl, "isBusinessIdentifier", false)
		}
		switch {
		case p.name == "":
			b.problemf("%s has a property without a name", t.describe("caseFileItemDefinition"))
		case names[p.name]:
			b.problemf("%s has more than one property named %q", t.describe("caseFileItemDefinition"), p.name)
		}
		names[p.name] = true
		t.properties = append(t.properties, p)
	}
	return t
}

func (b *builder) process(n *Node) *Process {
	p := &Process{element: elem(n), implementationType: n.Attr("implementationType")}
	for _, c := range n.children {
		switch c.name {
		case "input":
			p.inputs = append(p.inputs, &Parameter{element: elem(c)})
		case "output":
			p.outputs = append(p.outputs, &Parameter{element: elem(c)})
		}
	}
	if impl := extension(n); impl != nil {
		p.class = impl.Attr("class")
		p.implementation = impl
		b.implementation(p)
	}
	return p
}

// expression reads an expression element: its <body> (or, leniently, its own
// text) in the element's language or the case's. SpEL is compiled now, so
// a broken expression fails the deployment, not a running case.
func (b *builder) expression(c *Case, n *Node, owner string) *Expression {
	x := &Expression{id: n.Attr("id"), owner: owner, language: n.Attr("language")}
	if x.language == "" {
		x.language = c.language
	}
	if body := n.Child("body"); body != nil {
		x.body = strings.TrimSpace(body.text)
	} else {
		x.body = strings.TrimSpace(n.text)
	}
	c.expressions = append(c.expressions, x)
	if x.body == "" {
		b.casef(c, "%s has an empty expression", owner)
		return x
	}
	switch strings.ToLower(x.language) {
	case "spel":
		if !b.budget(1) {
			return x
		}
		compiled, err := expr.Compile(x.body)
		if err != nil {
			b.casef(c, "%s has an invalid expression %q: %v", owner, shorten(x.body), err)
		}
		x.compiled = compiled
	case "json":
		// JSON path transformations are handed to the engine as text.
	default:
		b.casef(c, "%s uses expression language %q; only spel (and json for transformations) is supported", owner, x.language)
	}
	return x
}

func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// rule reads a repetition, required, manual activation or applicability
// rule; its condition is optional.
func (b *builder) rule(c *Case, n *Node, owner string) *Rule {
	r := &Rule{element: elem(n)}
	if cond := n.Child("condition"); cond != nil {
		r.condition = b.expression(c, cond, r.describe(n.name)+" of "+owner)
		r.condition.contextRef = n.Attr("contextRef")
	}
	return r
}

// itemControl reads an <itemControl> or <defaultControl>.
func (b *builder) itemControl(c *Case, n *Node, owner string) *itemControl {
	ic := &itemControl{}
	for _, r := range n.children {
		switch r.name {
		case "repetitionRule":
			ic.repetition = b.rule(c, r, owner)
		case "requiredRule":
			ic.required = b.rule(c, r, owner)
		case "manualActivationRule":
			ic.manualActivation = b.rule(c, r, owner)
		}
	}
	return ic
}
