package expr

import (
	"fmt"
	"strings"
)

// tokenKind classifies a lexical token.
type tokenKind int

const (
	tokEOF tokenKind = iota
	tokIdent
	tokInt
	tokFloat
	tokString
	tokOp
)

// token is one lexical unit. For tokOp, text holds the canonical operator
// spelling, so that keyword operators ("and", "eq", ...) and their symbolic
// forms reach the parser as one spelling.
type token struct {
	kind tokenKind
	text string
	pos  int // byte offset in the source
}

func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of expression"
	case tokString:
		return fmt.Sprintf("string %q", t.text)
	default:
		return fmt.Sprintf("%q", t.text)
	}
}

// keywordOps maps SpEL's textual operators (case-insensitive) to their
// symbolic spelling.
var keywordOps = map[string]string{
	"and": "&&", "or": "||", "not": "!",
	"eq": "==", "ne": "!=", "lt": "<", "gt": ">", "le": "<=", "ge": ">=",
	"div": "/", "mod": "%",
}

// unsupportedKeywords are SpEL keywords of forms this language does not
// implement; rejecting them here gives a clearer message than a parse error.
var unsupportedKeywords = map[string]bool{
	"instanceof": true, "matches": true, "between": true, "new": true,
}

// lex splits src into tokens. It fails on characters and forms that have no
// meaning in the supported language, so that such expressions are rejected
// when a definition is deployed rather than when a case runs.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isIdentStart(c):
			start := i
			for i < len(src) && isIdentPart(src[i]) {
				i++
			}
			word := src[start:i]
			lower := strings.ToLower(word)
			if op, ok := keywordOps[lower]; ok {
				toks = append(toks, token{tokOp, op, start})
				continue
			}
			if unsupportedKeywords[lower] {
				return nil, syntaxErr(start, "the %q operator is not supported", word)
			}
			toks = append(toks, token{tokIdent, word, start})
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			t, n, err := lexNumber(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = n
		case c == '\'' || c == '"':
			s, n, err := lexString(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tokString, s, i})
			i = n
		default:
			op := lexOperator(src[i:])
			if op == "" {
				return nil, unexpectedChar(src, i)
			}
			toks = append(toks, token{tokOp, op, i})
			i += len(op)
		}
	}
	toks = append(toks, token{tokEOF, "", len(src)})
	return toks, nil
}

// operators lists symbolic operators, longest first so that prefixes
// ("?" of "?:", "=" of "==") do not win.
var operators = []string{
	"?.", "?:", "==", "!=", "<=", ">=", "&&", "||",
	"+", "-", "*", "/", "%", "<", ">", "!", "?", ":", ".", ",", "(", ")", "[", "]",
}

func lexOperator(s string) string {
	for _, op := range operators {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return ""
}

func unexpectedChar(src string, i int) error {
	switch src[i] {
	case '#':
		return syntaxErr(i, "variables and functions (#name) are not supported")
	case '@':
		return syntaxErr(i, "bean references (@name) are not supported")
	case '=':
		return syntaxErr(i, "assignment is not supported; use == to compare")
	case '{', '}':
		return syntaxErr(i, "inline lists and maps are not supported; use list(...) or map(...)")
	case '^':
		return syntaxErr(i, "the power operator ^ is not supported")
	case '$':
		return syntaxErr(i, "unexpected '$'; ${...} substitutions belong in templates, not in expressions")
	}
	r := []rune(src[i:])[0]
	return syntaxErr(i, "unexpected character %q", r)
}

func lexNumber(src string, start int) (token, int, error) {
	i := start
	isFloat := false
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	// A dot followed by a digit continues the number; "1.size()" is a call.
	if i+1 < len(src) && src[i] == '.' && isDigit(src[i+1]) {
		isFloat = true
		i++
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			isFloat = true
			i = j
			for i < len(src) && isDigit(src[i]) {
				i++
			}
		}
	}
	text := src[start:i]
	if i < len(src) {
		switch src[i] {
		case 'L', 'l':
			if isFloat {
				return token{}, 0, syntaxErr(i, "a decimal number cannot have the L suffix")
			}
			i++
		case 'd', 'D', 'f', 'F':
			isFloat = true
			i++
		}
	}
	if i < len(src) && isIdentPart(src[i]) {
		return token{}, 0, syntaxErr(start, "malformed number %q", src[start:i+1])
	}
	kind := tokInt
	if isFloat {
		kind = tokFloat
	}
	return token{kind, text, start}, i, nil
}

// lexString reads a quoted string. SpEL escapes a quote by doubling it
// ('It”s', "say ""hi""") and knows no backslash escapes.
func lexString(src string, start int) (string, int, error) {
	q := src[start]
	var b strings.Builder
	i := start + 1
	for i < len(src) {
		c := src[i]
		if c == q {
			if i+1 < len(src) && src[i+1] == q {
				b.WriteByte(q)
				i += 2
				continue
			}
			return b.String(), i + 1, nil
		}
		b.WriteByte(c)
		i++
	}
	return "", 0, syntaxErr(start, "unterminated string")
}

func isIdentStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || isDigit(c)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
