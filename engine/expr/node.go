package expr

import (
	"fmt"
	"time"
)

// node is one element of the syntax tree. Each node evaluates its children
// and applies its own operation; the tree has no cycles.
type node interface {
	eval(c *evalCtx) (any, error)
	children() []node
}

type evalCtx struct {
	env Env
}

func (c *evalCtx) now() (any, error) {
	if c.env == nil {
		return nil, errNoClock
	}
	v, ok := c.env.Lookup(NowName)
	if !ok {
		return nil, errNoClock
	}
	t, ok := normalize(v).(time.Time)
	if !ok {
		return nil, fmt.Errorf("the environment's %q is %s, not a time", NowName, typeName(v))
	}
	return t, nil
}

func walk(n node, f func(node)) {
	if n == nil {
		return
	}
	f(n)
	for _, c := range n.children() {
		walk(c, f)
	}
}

type literalNode struct{ v any }

func (n *literalNode) eval(*evalCtx) (any, error) { return n.v, nil }
func (n *literalNode) children() []node           { return nil }

type identNode struct{ name string }

func (n *identNode) eval(c *evalCtx) (any, error) {
	if c.env == nil {
		return nil, fmt.Errorf("%q is not defined", n.name)
	}
	v, ok := c.env.Lookup(n.name)
	if !ok {
		return nil, fmt.Errorf("%q is not defined", n.name)
	}
	return normalize(v), nil
}
func (n *identNode) children() []node { return nil }

type propertyNode struct {
	recv node
	name string
	safe bool
}

func (n *propertyNode) eval(c *evalCtx) (any, error) {
	r, err := n.recv.eval(c)
	if err != nil {
		return nil, err
	}
	if r == nil {
		if n.safe {
			return nil, nil
		}
		return nil, fmt.Errorf("cannot read property %q of null (use ?. to allow null)", n.name)
	}
	return property(r, n.name)
}
func (n *propertyNode) children() []node { return []node{n.recv} }

type indexNode struct {
	recv, idx node
	pos       int
}

func (n *indexNode) eval(c *evalCtx) (any, error) {
	r, err := n.recv.eval(c)
	if err != nil {
		return nil, err
	}
	k, err := n.idx.eval(c)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("cannot index null with %s", display(k))
	}
	return index(r, k)
}
func (n *indexNode) children() []node { return []node{n.recv, n.idx} }

type methodNode struct {
	recv node
	name string
	args []node
	safe bool
	pos  int
}

func (n *methodNode) eval(c *evalCtx) (any, error) {
	r, err := n.recv.eval(c)
	if err != nil {
		return nil, err
	}
	if r == nil && n.safe {
		return nil, nil
	}
	args, err := evalArgs(c, n.args)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("cannot call %s() on null (use ?. to allow null)", n.name)
	}
	return callMethod(r, n.name, args)
}
func (n *methodNode) children() []node { return append([]node{n.recv}, n.args...) }

type funcNode struct {
	name string
	args []node
}

func (n *funcNode) eval(c *evalCtx) (any, error) {
	args, err := evalArgs(c, n.args)
	if err != nil {
		return nil, err
	}
	if n.name == "list" {
		if args == nil {
			args = []any{}
		}
		return args, nil
	}
	m := make(map[string]any, len(args)/2)
	for i := 0; i+1 < len(args); i += 2 {
		k, ok := args[i].(string)
		if !ok {
			k = toString(args[i])
		}
		m[k] = args[i+1]
	}
	return m, nil
}
func (n *funcNode) children() []node { return n.args }

type staticNode struct {
	desc string
	fn   func(c *evalCtx, args []any) (any, error)
	args []node
	pos  int
}

func (n *staticNode) eval(c *evalCtx) (any, error) {
	args, err := evalArgs(c, n.args)
	if err != nil {
		return nil, err
	}
	v, err := n.fn(c, args)
	if err != nil {
		return nil, fmt.Errorf("T(%s): %w", n.desc, err)
	}
	return v, nil
}
func (n *staticNode) children() []node { return n.args }

type unaryNode struct {
	op  string
	x   node
	pos int
}

func (n *unaryNode) eval(c *evalCtx) (any, error) {
	x, err := n.x.eval(c)
	if err != nil {
		return nil, err
	}
	x = plain(x)
	switch n.op {
	case "!":
		b, ok := x.(bool)
		if !ok {
			return nil, fmt.Errorf("operator ! needs a boolean, not %s", typeName(x))
		}
		return !b, nil
	case "-":
		switch v := x.(type) {
		case int64:
			return -v, nil
		case float64:
			return -v, nil
		}
		return nil, fmt.Errorf("operator - needs a number, not %s", typeName(x))
	default: // "+"
		switch x.(type) {
		case int64, float64:
			return x, nil
		}
		return nil, fmt.Errorf("operator + needs a number, not %s", typeName(x))
	}
}
func (n *unaryNode) children() []node { return []node{n.x} }

type binaryNode struct {
	op   string
	l, r node
	pos  int
}

func (n *binaryNode) eval(c *evalCtx) (any, error) {
	l, err := n.l.eval(c)
	if err != nil {
		return nil, err
	}
	if n.op == "&&" || n.op == "||" {
		lb, err := asBool(l, n.op)
		if err != nil {
			return nil, err
		}
		if lb == (n.op == "||") {
			return lb, nil
		}
		r, err := n.r.eval(c)
		if err != nil {
			return nil, err
		}
		return asBool(r, n.op)
	}
	r, err := n.r.eval(c)
	if err != nil {
		return nil, err
	}
	return binary(n.op, l, r)
}
func (n *binaryNode) children() []node { return []node{n.l, n.r} }

type ternaryNode struct{ cond, a, b node }

func (n *ternaryNode) eval(c *evalCtx) (any, error) {
	v, err := n.cond.eval(c)
	if err != nil {
		return nil, err
	}
	b, err := asBool(v, "?:")
	if err != nil {
		return nil, err
	}
	if b {
		return n.a.eval(c)
	}
	return n.b.eval(c)
}
func (n *ternaryNode) children() []node { return []node{n.cond, n.a, n.b} }

// elvisNode is a ?: b: SpEL yields b when a is null or the empty string.
type elvisNode struct{ x, alt node }

func (n *elvisNode) eval(c *evalCtx) (any, error) {
	v, err := n.x.eval(c)
	if err != nil {
		return nil, err
	}
	if p := plain(v); p != nil && p != "" {
		return v, nil
	}
	return n.alt.eval(c)
}
func (n *elvisNode) children() []node { return []node{n.x, n.alt} }

func evalArgs(c *evalCtx, nodes []node) ([]any, error) {
	if len(nodes) == 0 {
		return nil, nil
	}
	args := make([]any, len(nodes))
	for i, a := range nodes {
		v, err := a.eval(c)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	return args, nil
}

func asBool(v any, op string) (bool, error) {
	b, ok := plain(v).(bool)
	if !ok {
		return false, fmt.Errorf("operator %s needs a boolean, not %s", op, typeName(v))
	}
	return b, nil
}
