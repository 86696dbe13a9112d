package cmmn

import (
	"fmt"
	"strings"

	"github.com/casegraph/casegraph/engine/expr"
)

// The implementation classes of the reference engine's process tasks that
// CaseGraph reads.
const (
	ClassHTTPCall    = "org.cafienne.processtask.implementation.http.HTTPCallDefinition"
	ClassCalculation = "org.cafienne.processtask.implementation.calculation.CalculationDefinition"
	ClassMail        = "org.cafienne.processtask.implementation.mail.MailDefinition"
	ClassPDFReport   = "org.cafienne.processtask.implementation.report.PDFReportDefinition"
)

// maxCalculationSteps bounds the steps of one calculation, so that a
// hostile definition cannot make one activation evaluate without end.
const maxCalculationSteps = 200

// HTTPCall is an HTTPCallDefinition: the request, with ${...}
// substitutions over the process's inputs, and the mappings of the
// response (responseCode, responseMessage, responsePayload,
// responseHeaders) onto the process's outputs.
type HTTPCall struct {
	URL     *expr.Template
	Method  string
	Headers []HTTPHeader
	// Body is the post-content; nil when there is none.
	Body *expr.Template
	// Mappings apply to every response; Success only to a 2xx one and
	// Failure to any other.
	Mappings, Success, Failure []*ImplementationMapping
}

// HTTPHeader is one request header; its value may substitute inputs.
type HTTPHeader struct {
	Name  string
	Value *expr.Template
}

// ImplementationMapping maps a raw result of an implementation (an HTTP
// response's responsePayload) onto one of the process's outputs, through
// an optional transformation that sees the raw value by its name.
type ImplementationMapping struct {
	Source, Target string
	Transformation *Expression
}

// Calculation is a CalculationDefinition: steps that each compute one
// named value from process inputs and other steps' values.
type Calculation struct {
	Steps []*CalculationStep
}

// StepKind is what a calculation step does with its value.
type StepKind string

// The kinds of calculation steps.
const (
	// StepPlain evaluates the expression once.
	StepPlain StepKind = "step"
	// StepMap evaluates the expression for each element of its list
	// input, the element known by the input's name.
	StepMap StepKind = "map"
	// StepFilter keeps the elements of its list input for which the
	// expression holds.
	StepFilter StepKind = "filter"
)

// CalculationStep computes the value named Output from its inputs. Several
// steps may compute one name: the first whose condition holds counts.
type CalculationStep struct {
	Kind       StepKind
	Output     string
	Inputs     []StepInput
	Expression *Expression
	Condition  *Expression
}

// StepInput names a value a step reads (a process input or another step's
// output) and the name the step's expressions know it by.
type StepInput struct {
	Source, As string
}

// Mail is a MailDefinition. Recipients, sender, subject and body come
// from the process inputs of those names (to, cc, bcc, from, replyTo,
// subject, body, attachments); the implementation may give the subject
// and body as templates instead.
type Mail struct {
	Subject *expr.Template
	Body    *expr.Template
	// BodyType is the body's content type, text/plain by default.
	BodyType string
}

// HTTPCall returns the process's HTTP call, or nil when it is not one.
func (p *Process) HTTPCall() *HTTPCall { return p.http }

// Calculation returns the process's calculation, or nil.
func (p *Process) Calculation() *Calculation { return p.calc }

// Mail returns the process's mail definition, or nil.
func (p *Process) Mail() *Mail { return p.mail }

// implementation reads the process's cafienne:implementation for the
// classes CaseGraph runs; templates and expressions are compiled now, so
// that a broken one fails the deployment rather than a running case.
func (b *builder) implementation(p *Process) {
	impl := p.implementation
	if impl == nil {
		return
	}
	where := fmt.Sprintf("process '%s'", p.name)
	tmpl := func(what, text string) *expr.Template {
		if !b.budget(1) {
			return nil
		}
		t, err := expr.CompileTemplate(text)
		if err != nil {
			b.problemf("%s has an invalid %s: %v", where, what, err)
		}
		return t
	}
	switch strings.TrimSpace(p.class) {
	case ClassHTTPCall:
		h := &HTTPCall{Method: strings.ToUpper(impl.ChildText("method"))}
		if h.Method == "" {
			h.Method = "GET"
		}
		// A call without a URL deploys (as in the reference engine) and
		// fails its task when it runs, saying so.
		h.URL = tmpl("url", impl.ChildText("url"))
		if pc := impl.Child("post-content"); pc != nil {
			h.Body = tmpl("post-content", strings.TrimSpace(pc.text))
		}
		if hs := impl.Child("http-headers"); hs != nil {
			for _, c := range hs.children {
				if c.name == "http-header" {
					h.Headers = append(h.Headers, HTTPHeader{Name: c.Attr("name"), Value: tmpl("header "+c.Attr("name"), strings.TrimSpace(c.text))})
				}
			}
		}
		h.Mappings = b.implementationMappings(p, impl)
		if s := impl.Child("success"); s != nil {
			h.Success = b.implementationMappings(p, s)
		}
		if f := impl.Child("failure"); f != nil {
			h.Failure = b.implementationMappings(p, f)
		}
		p.http = h
	case ClassCalculation:
		p.calc = b.calculation(p, impl)
	case ClassMail:
		m := &Mail{BodyType: "text/plain"}
		if s := impl.Child("subject"); s != nil {
			m.Subject = tmpl("subject", strings.TrimSpace(s.text))
		}
		if body := impl.Child("mail-body"); body != nil {
			m.Body = tmpl("mail-body", strings.TrimSpace(body.text))
			if t := body.Attr("type"); t != "" {
				m.BodyType = t
			}
		}
		p.mail = m
	}
}

func (b *builder) implementationMappings(p *Process, n *Node) []*ImplementationMapping {
	var list []*ImplementationMapping
	for _, c := range n.children {
		if c.name != "parameterMapping" {
			continue
		}
		m := &ImplementationMapping{Source: c.Attr("sourceRef"), Target: c.Attr("targetRef")}
		if m.Source == "" || m.Target == "" {
			b.problemf("process '%s' has a parameterMapping without sourceRef or targetRef", p.name)
			continue
		}
		if t := c.Child("transformation"); t != nil {
			m.Transformation = b.processExpression(p, t, "the transformation of "+m.Target)
		}
		list = append(list, m)
	}
	return list
}

func (b *builder) calculation(p *Process, impl *Node) *Calculation {
	calc := &Calculation{}
	for _, c := range impl.children {
		kind := StepKind(c.name)
		if kind != StepPlain && kind != StepMap && kind != StepFilter {
			continue
		}
		if len(calc.Steps) == maxCalculationSteps {
			b.problemf("process '%s' has more than %d calculation steps", p.name, maxCalculationSteps)
			break
		}
		s := &CalculationStep{Kind: kind, Output: c.Attr("output")}
		if s.Output == "" {
			b.problemf("process '%s' has a calculation <%s> without an output", p.name, c.name)
			continue
		}
		owner := fmt.Sprintf("step '%s'", s.Output)
		if kind != StepPlain {
			owner = fmt.Sprintf("%s step '%s'", kind, s.Output)
		}
		for _, in := range c.children {
			if in.name == "input" {
				si := StepInput{Source: in.Attr("source"), As: in.Attr("as")}
				if si.As == "" {
					si.As = si.Source
				}
				if si.Source == "" {
					b.problemf("process '%s': %s has an input without a source", p.name, owner)
					continue
				}
				s.Inputs = append(s.Inputs, si)
			}
		}
		if x := c.Child("expression"); x != nil {
			s.Expression = b.processExpression(p, x, owner)
		} else {
			b.problemf("process '%s': %s has no expression", p.name, owner)
		}
		if x := c.Child("condition"); x != nil {
			s.Condition = b.processExpression(p, x, "the condition of "+owner)
		}
		if kind != StepPlain && len(s.Inputs) != 1 {
			b.problemf("process '%s': %s needs exactly one input, the list it works on", p.name, owner)
		}
		calc.Steps = append(calc.Steps, s)
	}
	return calc
}

// processExpression compiles an expression of a process implementation:
// SpEL, or a JSON path (language="json"), which is kept as text. An
// expression that does not compile still deploys, as the reference
// engine's own models have some CaseGraph cannot evaluate (Java statics,
// randomness): the task fails with the reason when it runs.
func (b *builder) processExpression(p *Process, n *Node, owner string) *Expression {
	owner = fmt.Sprintf("process '%s': %s", p.name, owner)
	x := &Expression{id: n.Attr("id"), owner: owner, language: n.Attr("language")}
	if x.language == "" {
		x.language = "spel"
	}
	if body := n.Child("body"); body != nil {
		x.body = strings.TrimSpace(body.text)
	} else {
		x.body = strings.TrimSpace(n.text)
	}
	if x.body == "" {
		b.problemf("%s has an empty expression", owner)
		return x
	}
	switch strings.ToLower(x.language) {
	case "spel":
		if !b.budget(1) {
			return x
		}
		compiled, err := expr.Compile(x.body)
		if err != nil {
			x.invalid = fmt.Sprintf("%s has an expression CaseGraph cannot evaluate, %q: %v", owner, shorten(x.body), err)
		}
		x.compiled = compiled
	case "json":
	default:
		b.problemf("%s uses expression language %q; only spel and json are supported", owner, x.language)
	}
	return x
}
