package expr

import (
	"fmt"
	"strings"
)

// Template is text with ${expression} substitutions, such as a task model
// or an HTTP call's URL. It is immutable and safe for concurrent use.
type Template struct {
	parts []templatePart
}

// templatePart is literal text or, when x is set, one substitution.
type templatePart struct {
	text string
	x    *Expr
}

// MaxSubstitutions bounds the ${...} substitutions of one template. Real
// task models have a handful; the bound keeps a hostile definition from
// compiling millions of expressions.
const MaxSubstitutions = 1000

// CompileTemplate compiles every ${...} substitution in text. A substitution
// ends at the brace that closes it, so braces and quotes inside the
// expression (map('a', '}')) do not end it early. Text without
// substitutions compiles to a template that renders the text unchanged.
func CompileTemplate(text string) (*Template, error) {
	t := &Template{}
	rest := text
	offset := 0
	for n := 0; ; n++ {
		i := strings.Index(rest, "${")
		if i < 0 {
			break
		}
		if n == MaxSubstitutions {
			return nil, &SyntaxError{Pos: offset + i, Msg: fmt.Sprintf("the text has more than %d ${...} substitutions", MaxSubstitutions)}
		}
		end, err := closingBrace(rest, i+2)
		if err != nil {
			return nil, &SyntaxError{Pos: offset + i, Msg: err.Error()}
		}
		src := rest[i+2 : end]
		x, err := Compile(src)
		if err != nil {
			if se, ok := err.(*SyntaxError); ok {
				return nil, &SyntaxError{Pos: offset + i + 2 + se.Pos, Msg: fmt.Sprintf("in ${%s}: %s", shorten(src), se.Msg)}
			}
			return nil, err
		}
		if i > 0 {
			t.parts = append(t.parts, templatePart{text: rest[:i]})
		}
		t.parts = append(t.parts, templatePart{x: x})
		offset += end + 1
		rest = rest[end+1:]
	}
	if rest != "" {
		t.parts = append(t.parts, templatePart{text: rest})
	}
	return t, nil
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// closingBrace finds the brace that ends a substitution starting at from,
// skipping nested brackets and quoted strings.
func closingBrace(s string, from int) (int, error) {
	depth := 0
	for i := from; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"':
			j := i + 1
			for j < len(s) {
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			if j >= len(s) {
				return 0, fmt.Errorf("unterminated string in ${...}")
			}
			i = j
		case '(', '[', '{':
			depth++
		case ')', ']':
			if depth > 0 {
				depth--
			}
		case '}':
			if depth == 0 {
				return i, nil
			}
			depth--
		}
	}
	return 0, fmt.Errorf("${ is not closed by }")
}

// Exprs returns the compiled substitutions in order.
func (t *Template) Exprs() []*Expr {
	var xs []*Expr
	for _, p := range t.parts {
		if p.x != nil {
			xs = append(xs, p.x)
		}
	}
	return xs
}

// HasSubstitutions reports whether the text contains any ${...}.
func (t *Template) HasSubstitutions() bool {
	for _, p := range t.parts {
		if p.x != nil {
			return true
		}
	}
	return false
}

// Render evaluates the substitutions in env and returns the text with each
// ${...} replaced by its value: strings as they are, maps and lists as JSON,
// other values in their string form, and null as nothing (as Spring's
// template expressions do).
func (t *Template) Render(env Env) (string, error) {
	var b strings.Builder
	for _, p := range t.parts {
		if p.x == nil {
			b.WriteString(p.text)
			continue
		}
		v, err := p.x.Eval(env)
		if err != nil {
			return "", err
		}
		if v != nil {
			b.WriteString(toString(v))
		}
	}
	return b.String(), nil
}

// String returns the template text as written.
func (t *Template) String() string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.x == nil {
			b.WriteString(p.text)
		} else {
			b.WriteString("${" + p.x.Source() + "}")
		}
	}
	return b.String()
}
