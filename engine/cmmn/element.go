package cmmn

import (
	"errors"
	"fmt"
	"strings"

	"github.com/casegraph/casegraph/engine/expr"
)

// ValidationError reports a definitions document that cannot be used. It
// lists every problem found, each a sentence naming the element.
type ValidationError struct {
	Problems []string
}

// Error joins the problems into one message.
func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 {
		return "invalid definition: " + e.Problems[0]
	}
	return fmt.Sprintf("invalid definition, %d problems: %s", len(e.Problems), strings.Join(e.Problems, "; "))
}

// element holds what every CMMN element has. Its methods are promoted to
// the types that embed it.
type element struct {
	id, name, doc string
	// docFormat is the textFormat of <documentation>, "" when not given.
	docFormat string
}

// ID returns the element's id attribute.
func (e *element) ID() string { return e.id }

// Name returns the element's name.
func (e *element) Name() string { return e.name }

// Documentation returns the text of the element's <documentation>, or of its
// older description attribute; "" when there is none.
func (e *element) Documentation() string { return e.doc }

// DocumentationFormat returns the MIME type the documentation is written
// in: its textFormat attribute, text/plain by default as in CMMN.
func (e *element) DocumentationFormat() string {
	if e.docFormat == "" {
		return "text/plain"
	}
	return e.docFormat
}

// describe names an element for a problem message: its kind and, when
// present, name and id.
func describe(kind, id, name string) string {
	switch {
	case id != "" && name != "":
		return fmt.Sprintf("%s %q (id %q)", kind, name, id)
	case name != "":
		return fmt.Sprintf("%s %q", kind, name)
	case id != "":
		return fmt.Sprintf("%s with id %q", kind, id)
	}
	return kind + " without id or name"
}

func (e *element) describe(kind string) string { return describe(kind, e.id, e.name) }

// Expression is a compiled expression of the definition: a condition, a
// rule, a transformation, an assignment, a due date or a timer.
type Expression struct {
	id         string
	language   string
	body       string
	compiled   *expr.Expr
	context    *CaseFileItem
	owner      string // description of the element using it, for messages
	contextRef string
	// invalid says why an expression deploy let through (one of a
	// process implementation) cannot be evaluated.
	invalid string
}

// Language returns the expression language, "spel" unless the element or
// case says otherwise.
func (x *Expression) Language() string { return x.language }

// Body returns the expression text, trimmed.
func (x *Expression) Body() string { return x.body }

// Compiled returns the compiled SpEL expression; nil for other languages
// (the reference engine's "json" path transformations), which the engine
// interprets itself.
func (x *Expression) Compiled() *expr.Expr { return x.compiled }

// Context returns the case file item named by the contextRef attribute of
// the element holding the expression, or nil.
func (x *Expression) Context() *CaseFileItem { return x.context }

// Eval evaluates the expression in env.
func (x *Expression) Eval(env expr.Env) (any, error) {
	if x.invalid != "" {
		return nil, errors.New(x.invalid)
	}
	if x.compiled == nil {
		return nil, fmt.Errorf("%s: expressions in language %q are not evaluated by the expression package", x.owner, x.language)
	}
	return x.compiled.Eval(env)
}

// EvalBool evaluates the expression as a condition (see [expr.Expr.EvalBool]).
func (x *Expression) EvalBool(env expr.Env) (bool, error) {
	if x.invalid != "" {
		return false, errors.New(x.invalid)
	}
	if x.compiled == nil {
		return false, fmt.Errorf("%s: expressions in language %q are not evaluated by the expression package", x.owner, x.language)
	}
	return x.compiled.EvalBool(env)
}

// Rule is an item-control rule (repetition, required, manual activation)
// or a planning table's applicability rule.
type Rule struct {
	element
	condition *Expression
}

// Condition returns the rule's condition; nil when the rule has none, in
// which case the rule holds.
func (r *Rule) Condition() *Expression { return r.condition }

// Holds evaluates the rule. An absent rule (nil) does not hold; a rule
// without condition does, as CMMN defines.
func (r *Rule) Holds(env expr.Env) (bool, error) {
	if r == nil {
		return false, nil
	}
	if r.condition == nil {
		return true, nil
	}
	return r.condition.EvalBool(env)
}
