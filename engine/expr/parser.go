package expr

import (
	"strconv"
	"strings"
)

// maxDepth bounds the nesting of the syntax tree, so that neither parsing
// nor evaluation can recurse without limit on hostile input.
const maxDepth = 200

// parser is a recursive-descent parser over the token list. Precedence, from
// loosest to tightest, follows SpEL: ternary and elvis, ||, &&, comparison,
// additive, multiplicative, unary, then postfix navigation on a primary.
type parser struct {
	toks  []token
	i     int
	depth int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) isOp(op string) bool {
	t := p.peek()
	return t.kind == tokOp && t.text == op
}

func (p *parser) accept(op string) bool {
	if p.isOp(op) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expect(op string) error {
	if p.accept(op) {
		return nil
	}
	t := p.peek()
	return syntaxErr(t.pos, "expected %q but found %s", op, t.describe())
}

// enter guards recursion; every production that can nest calls it.
func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return syntaxErr(p.peek().pos, "expression is nested more than %d levels deep", maxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) parseAll() (node, error) {
	if p.peek().kind == tokEOF {
		return nil, syntaxErr(0, "expression is empty")
	}
	n, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, syntaxErr(t.pos, "unexpected %s after the end of the expression", t.describe())
	}
	return n, nil
}

func (p *parser) parseExpr() (node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	cond, err := p.parseBinary(0)
	if err != nil {
		return nil, err
	}
	switch {
	case p.accept("?:"):
		alt, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		return &elvisNode{x: cond, alt: alt}, nil
	case p.accept("?"):
		a, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		b, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		return &ternaryNode{cond: cond, a: a, b: b}, nil
	}
	return cond, nil
}

// binaryLevels lists the binary operators by precedence, loosest first.
var binaryLevels = [][]string{
	{"||"},
	{"&&"},
	{"==", "!=", "<", "<=", ">", ">="},
	{"+", "-"},
	{"*", "/", "%"},
}

// parseBinary parses a left-associative chain at the given level. Chains
// grow the tree to the left, so each operand counts against the depth bound.
func (p *parser) parseBinary(level int) (node, error) {
	if level == len(binaryLevels) {
		return p.parseUnary()
	}
	left, err := p.parseBinary(level + 1)
	if err != nil {
		return nil, err
	}
	chain := 0
	for {
		t := p.peek()
		if t.kind != tokOp || !contains(binaryLevels[level], t.text) {
			break
		}
		p.next()
		right, err := p.parseBinary(level + 1)
		if err != nil {
			return nil, err
		}
		chain++
		if chain+p.depth > maxDepth {
			return nil, syntaxErr(t.pos, "expression is nested more than %d levels deep", maxDepth)
		}
		left = &binaryNode{op: t.text, l: left, r: right, pos: t.pos}
	}
	return left, nil
}

func (p *parser) parseUnary() (node, error) {
	t := p.peek()
	if t.kind == tokOp && (t.text == "!" || t.text == "-" || t.text == "+") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		p.next()
		x, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		// Fold negative literals so that map("port", -1) holds an int64.
		if lit, ok := x.(*literalNode); ok && t.text == "-" {
			switch v := lit.v.(type) {
			case int64:
				return &literalNode{v: -v}, nil
			case float64:
				return &literalNode{v: -v}, nil
			}
		}
		return &unaryNode{op: t.text, x: x, pos: t.pos}, nil
	}
	return p.parsePostfix()
}

func (p *parser) parsePostfix() (node, error) {
	n, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	steps := 0
	for {
		t := p.peek()
		if t.kind != tokOp {
			return n, nil
		}
		switch t.text {
		case ".", "?.":
			p.next()
			name := p.next()
			if name.kind != tokIdent {
				return nil, syntaxErr(name.pos, "expected a property or method name after %q but found %s", t.text, name.describe())
			}
			safe := t.text == "?."
			if p.isOp("(") {
				args, err := p.parseArgs()
				if err != nil {
					return nil, err
				}
				if err := checkMethod(name, len(args)); err != nil {
					return nil, err
				}
				n = &methodNode{recv: n, name: name.text, args: args, safe: safe, pos: name.pos}
			} else {
				n = &propertyNode{recv: n, name: name.text, safe: safe}
			}
		case "[":
			p.next()
			idx, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			n = &indexNode{recv: n, idx: idx, pos: t.pos}
		default:
			return n, nil
		}
		steps++
		if steps+p.depth > maxDepth {
			return nil, syntaxErr(t.pos, "expression is nested more than %d levels deep", maxDepth)
		}
	}
}

func (p *parser) parseArgs() ([]node, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var args []node
	if p.accept(")") {
		return args, nil
	}
	for {
		a, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		if p.accept(")") {
			return args, nil
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
	}
}

func (p *parser) parsePrimary() (node, error) {
	t := p.next()
	switch t.kind {
	case tokInt:
		v, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			return nil, syntaxErr(t.pos, "integer %s is out of range", t.text)
		}
		return &literalNode{v: v}, nil
	case tokFloat:
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, syntaxErr(t.pos, "number %s is out of range", t.text)
		}
		return &literalNode{v: v}, nil
	case tokString:
		return &literalNode{v: t.text}, nil
	case tokIdent:
		return p.parseIdent(t)
	case tokOp:
		if t.text == "(" {
			if err := p.enter(); err != nil {
				return nil, err
			}
			defer p.leave()
			n, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			return n, nil
		}
	case tokEOF:
		return nil, syntaxErr(t.pos, "unexpected end of expression")
	}
	return nil, syntaxErr(t.pos, "unexpected %s", t.describe())
}

func (p *parser) parseIdent(t token) (node, error) {
	switch strings.ToLower(t.text) {
	case "true":
		return &literalNode{v: true}, nil
	case "false":
		return &literalNode{v: false}, nil
	case "null":
		return &literalNode{v: nil}, nil
	}
	if !p.isOp("(") {
		return &identNode{name: t.text}, nil
	}
	if t.text == "T" {
		return p.parseTypeRef(t)
	}
	args, err := p.parseArgs()
	if err != nil {
		return nil, err
	}
	switch t.text {
	case "map":
		if len(args)%2 != 0 {
			return nil, syntaxErr(t.pos, "map(...) needs key and value pairs, but has %d arguments", len(args))
		}
		return &funcNode{name: "map", args: args}, nil
	case "list":
		return &funcNode{name: "list", args: args}, nil
	}
	return nil, syntaxErr(t.pos, "unknown function %s(...); only map(...) and list(...) are available", t.text)
}

// parseTypeRef parses T(qualified.Name).member or T(qualified.Name).method(...)
// and resolves the member against the static table now, so an unknown
// class or member fails at deploy time.
func (p *parser) parseTypeRef(t token) (node, error) {
	p.next() // (
	var parts []string
	for {
		id := p.next()
		if id.kind != tokIdent {
			return nil, syntaxErr(id.pos, "expected a class name in T(...) but found %s", id.describe())
		}
		parts = append(parts, id.text)
		if p.accept(")") {
			break
		}
		if err := p.expect("."); err != nil {
			return nil, err
		}
	}
	class := strings.Join(parts, ".")
	st := lookupStatic(class)
	if st == nil {
		return nil, syntaxErr(t.pos, "unknown or unsupported class T(%s)", class)
	}
	if !p.accept(".") {
		return nil, syntaxErr(p.peek().pos, "T(%s) must be followed by a static field or method", class)
	}
	name := p.next()
	if name.kind != tokIdent {
		return nil, syntaxErr(name.pos, "expected a static member of T(%s) but found %s", class, name.describe())
	}
	if !p.isOp("(") {
		v, ok := st.fields[name.text]
		if !ok {
			return nil, syntaxErr(name.pos, "T(%s) has no supported static field %s", class, name.text)
		}
		return &literalNode{v: v}, nil
	}
	args, err := p.parseArgs()
	if err != nil {
		return nil, err
	}
	fn, ok := st.methods[name.text]
	if !ok {
		if why, refused := st.refused[name.text]; refused {
			return nil, syntaxErr(name.pos, "T(%s).%s() is not supported: %s", class, name.text, why)
		}
		return nil, syntaxErr(name.pos, "T(%s) has no supported static method %s()", class, name.text)
	}
	if len(args) < fn.minArgs || len(args) > fn.maxArgs {
		return nil, syntaxErr(name.pos, "T(%s).%s() takes %s, not %d", class, name.text, arity(fn.minArgs, fn.maxArgs), len(args))
	}
	return &staticNode{desc: class + "." + name.text, fn: fn.call, args: args, pos: name.pos}, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
