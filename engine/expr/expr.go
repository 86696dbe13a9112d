// Package expr implements the expression language of CMMN definitions: the
// subset of the Spring Expression Language (SpEL) that case models use in
// sentry conditions, item-control rules, parameter transformations, task
// assignment and due dates, timers, applicability rules and the ${...}
// substitutions of task models.
//
// Expressions are compiled once, when a definition is deployed, and
// evaluated many times against an [Env] that the engine supplies. Every
// construct outside the supported subset is a compile error, so a model that
// deploys cannot fail at run time for a syntax reason; evaluation problems
// (a missing property, a type mismatch) are returned as errors, never as
// panics.
//
// Values are plain Go: nil, bool, int64, float64, string, time.Time (an
// instant), []any, map[string]any, plus the date and duration types of this
// package. Other integer and float types and json.Number are accepted from
// the environment and normalised. Engine objects take part through the
// [Object], [Caller] and [Valuer] interfaces.
//
// The package reads no clock: T(java.time.Instant).now() asks the
// environment for "now".
package expr

import (
	"errors"
	"fmt"
)

// Env supplies the root identifiers of an expression: case file item names,
// task parameters, and context objects such as case, task, stage, team or
// discretionaryItem. Lookup reports false for a name that is not defined at
// all; a defined name without a value returns (nil, true).
//
// The name "now" must resolve to a time.Time when an expression asks for the
// current time.
type Env interface {
	Lookup(name string) (any, bool)
}

// NowName is the root name under which an [Env] provides the current time.
const NowName = "now"

// Vars is an [Env] backed by a map, convenient for tests and simple callers.
type Vars map[string]any

// Lookup returns the value stored under name.
func (v Vars) Lookup(name string) (any, bool) {
	x, ok := v[name]
	return x, ok
}

// Object is implemented by engine values that expose named properties, such
// as a plan item (its id, name, index, state) or the case team.
// Field reports false when the object has no such property, which makes the
// expression fail with an error naming the property.
type Object interface {
	Field(name string) (any, bool)
}

// Caller is implemented by engine values that have methods, such as a plan
// item state with isActive(). CallMethod reports false when the object does
// not implement the method; the built-in methods (toString, equals,
// getValue) then apply. Method names are checked at compile time against the
// language's method table (see [MethodNames]).
type Caller interface {
	CallMethod(name string, args []any) (result any, ok bool, err error)
}

// Valuer is implemented by engine values that stand for a plain value in
// comparisons, concatenation and conversions: a state object whose Value is
// "Active" compares equal to the string 'Active' and still answers
// isActive() through [Caller].
type Valuer interface {
	Value() any
}

// Expr is a compiled expression. It is immutable and safe for concurrent use.
type Expr struct {
	src  string
	root node
}

// maxSourceLen bounds the text of one expression. Real models use a few
// hundred bytes at most; the bound keeps hostile input from costing time.
const maxSourceLen = 64 << 10

// Compile parses src. The error, if any, is a *SyntaxError naming the
// offending position and construct.
func Compile(src string) (*Expr, error) {
	if len(src) > maxSourceLen {
		return nil, syntaxErr(0, "expression is longer than %d bytes", maxSourceLen)
	}
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	root, err := p.parseAll()
	if err != nil {
		return nil, err
	}
	return &Expr{src: src, root: root}, nil
}

// Source returns the text the expression was compiled from.
func (e *Expr) Source() string { return e.src }

// String returns the source text.
func (e *Expr) String() string { return e.src }

// Eval evaluates the expression in env.
func (e *Expr) Eval(env Env) (v any, err error) {
	// Engine objects run code of their own during evaluation; a bug there
	// must surface as a failed expression, not bring down the caller.
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("evaluating %q: internal error: %v", e.src, r)
		}
	}()
	v, err = e.root.eval(&evalCtx{env: env})
	if err != nil {
		return nil, fmt.Errorf("evaluating %q: %w", e.src, err)
	}
	return exported(v), nil
}

// EvalBool evaluates a condition. A null result counts as false, as the
// reference engine treats an unset case file property in a rule; any
// non-boolean result is an error.
func (e *Expr) EvalBool(env Env) (bool, error) {
	v, err := e.Eval(env)
	if err != nil {
		return false, err
	}
	switch b := v.(type) {
	case nil:
		return false, nil
	case bool:
		return b, nil
	}
	return false, fmt.Errorf("evaluating %q: condition yields %s, not a boolean", e.src, typeName(v))
}

// Roots returns the distinct root identifiers the expression reads, in order
// of first appearance. The engine uses it to know which case file items or
// parameters an expression depends on.
func (e *Expr) Roots() []string {
	var names []string
	seen := map[string]bool{}
	walk(e.root, func(n node) {
		if id, ok := n.(*identNode); ok && !seen[id.name] {
			seen[id.name] = true
			names = append(names, id.name)
		}
	})
	return names
}

// SyntaxError reports an expression that does not compile.
type SyntaxError struct {
	Pos int    // byte offset of the problem in the source
	Msg string // what is wrong, in a sentence fragment
}

// Error returns the message with its 1-based position.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s (at position %d)", e.Msg, e.Pos+1)
}

func syntaxErr(pos int, format string, args ...any) error {
	return &SyntaxError{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// errNoClock is returned when an expression asks for the time and the
// environment provides none.
var errNoClock = errors.New("the environment provides no current time (" + NowName + ")")
