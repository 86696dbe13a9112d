package resolvers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"
)

// Limits bound what one GraphQL request may cost the server. Zero fields
// take DefaultLimits' values.
type Limits struct {
	// MaxCost is the cost budget of one operation (see cost).
	MaxCost int
	// MaxDepth is the deepest selection nesting.
	MaxDepth int
	// MaxAliases bounds the aliased fields of an operation.
	MaxAliases int
	// MaxQueryBytes bounds the query document.
	MaxQueryBytes int
	// MaxResponseBytes is the response-size budget, charged as heavy fields
	// resolve.
	MaxResponseBytes int
	// MaxLiveConnections bounds the open subscription WebSockets of this
	// process; MaxLiveConnectionsPerUser those of one user.
	MaxLiveConnections, MaxLiveConnectionsPerUser int
	// OperationTimeout bounds a query or mutation sent over a live
	// connection, as the server's request deadline bounds one over HTTP.
	// Default 30 s.
	OperationTimeout time.Duration
}

// DefaultLimits are the limits of a handler configured without any.
var DefaultLimits = Limits{MaxCost: 1000000, MaxDepth: MaxDepth, MaxAliases: 100, MaxQueryBytes: 64 << 10, MaxResponseBytes: 16 << 20,
	MaxLiveConnections: DefaultLiveConnections, MaxLiveConnectionsPerUser: DefaultLiveConnectionsPerUser}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	for _, f := range []struct{ p, def *int }{{&l.MaxCost, &d.MaxCost}, {&l.MaxDepth, &d.MaxDepth}, {&l.MaxAliases, &d.MaxAliases},
		{&l.MaxQueryBytes, &d.MaxQueryBytes}, {&l.MaxResponseBytes, &d.MaxResponseBytes},
		{&l.MaxLiveConnections, &d.MaxLiveConnections}, {&l.MaxLiveConnectionsPerUser, &d.MaxLiveConnectionsPerUser}} {
		if *f.p <= 0 {
			*f.p = *f.def
		}
	}
	if l.OperationTimeout <= 0 {
		l.OperationTimeout = 30 * time.Second
	}
	return l
}

// The cost model. A field costs 1 plus the cost of its selections times
// how many times they are resolved: a paged list (an argument `first`)
// its page size, an unpaged list its realistic maximum below, any other
// list listCost. JSON fields (case files, event payloads, task data) cost
// by their size class. Aliases are fields like any other, so a query that
// repeats a heavy field a thousand times costs a thousand times as much.
var (
	// unpagedLists are the realistic maxima of lists without paging.
	unpagedLists = map[string]int{"history": 200, "planItems": 100, "children": 20, "members": 100, "tasks": 50,
		"discretionaryItems": 20, "definitions": 100}
	// heavyFields are the size classes of JSON fields.
	heavyFields = map[string]int{"caseFile": 1000, "payload": 50, "input": 50, "output": 50, "result": 50, "taskModel": 20, "inputs": 50}
)

const (
	listCost      = 10
	defaultJSON   = 20
	connectionCap = maxPage
)

// costLimit refuses, before any resolver runs, an operation whose query
// document, alias count, depth or cost is over the limits. Introspection
// (GraphiQL's and code generators' query, 13 levels deep) is always
// allowed: it reads the schema, not data.
type costLimit struct{ lim Limits }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
	graphql.OperationContextMutator
} = costLimit{}

func (costLimit) ExtensionName() string                   { return "CostLimit" }
func (costLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (c costLimit) MutateOperationParameters(_ context.Context, p *graphql.RawParams) *gqlerror.Error {
	if len(p.Query) > c.lim.MaxQueryBytes {
		return limitError("COMPLEXITY_LIMIT_EXCEEDED", "the query document is %d bytes, over the limit of %d (CASEGRAPH_GRAPHQL_MAX_QUERY_BYTES)",
			len(p.Query), c.lim.MaxQueryBytes)
	}
	if hasNUL(p.Query, p.Variables) {
		return limitError("BAD_USER_INPUT", "The request contains a NUL character, which no value may hold")
	}
	if n := countSelections(p.Query); n > maxSelections {
		return limitError("COMPLEXITY_LIMIT_EXCEEDED", "the query document has %d or more selections, over the limit of %d",
			n, maxSelections)
	}
	return nil
}

// hasNUL reports whether a string of the document (GraphQL's \u{0} escape
// passes the body's check) or of the variables (a GET request's are in its
// URL) holds a NUL, which SQL cuts the query at.
func hasNUL(query string, vars map[string]any) bool {
	lex := lexer.New(&ast.Source{Input: query})
	for {
		tok, err := lex.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			break
		}
		if (tok.Kind == lexer.String || tok.Kind == lexer.BlockString) && strings.ContainsRune(tok.Value, 0) {
			return true
		}
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case string:
			return strings.ContainsRune(v, 0)
		case []any:
			return slices.ContainsFunc(v, walk)
		case map[string]any:
			for k, e := range v {
				if strings.ContainsRune(k, 0) || walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(map[string]any(vars))
}

// maxSelections bounds the fields, fragment spreads and inline fragments
// of a document. Validation compares fields of one response name pairwise,
// so a 60 KB document repeating one field 12,000 times cost 10 s of CPU
// before any limit below (or a token) was looked at; 1,000 is ten times
// the introspection query.
const maxSelections = 1000

// countSelections counts the selections of query, stopping past
// maxSelections; a document that does not parse counts 0 and gets its
// parse error from gqlgen.
func countSelections(query string) int {
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil {
		return 0
	}
	n := 0
	var walk func(ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, sel := range set {
			if n++; n > maxSelections {
				return
			}
			switch s := sel.(type) {
			case *ast.Field:
				walk(s.SelectionSet)
			case *ast.InlineFragment:
				walk(s.SelectionSet)
			}
		}
	}
	for _, op := range doc.Operations {
		walk(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		walk(f.SelectionSet)
	}
	return n
}

func (c costLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	op := oc.Doc.Operations.ForName(oc.OperationName)
	if op == nil {
		return nil
	}
	// Every walk below expands fragments at each use; fragments that spread
	// the one before twice expand to 2^n selections, so the expansion is
	// bounded first.
	if n := expandedSelections(op.SelectionSet, 0); n > maxExpandedSelections {
		return limitError("COMPLEXITY_LIMIT_EXCEEDED", "the operation expands to more than %d selections through its fragments",
			maxExpandedSelections)
	}
	// Introspection is priced by neither depth nor cost, so it must not be
	// repeated: aliases of __schema over one fragment made a 20 KB request
	// answer 27 MB.
	if n := countFields(op.SelectionSet, isAliased, 0); n > c.lim.MaxAliases {
		return limitError("COMPLEXITY_LIMIT_EXCEEDED", "the operation has %d aliased fields, over the limit of %d", n, c.lim.MaxAliases)
	}
	if n := countFields(op.SelectionSet, isSchemaField, 0); n > 1 {
		return limitError("COMPLEXITY_LIMIT_EXCEEDED", "the operation reads __schema %d times; once is enough", n)
	}
	if introspectionOnly(op.SelectionSet) {
		return nil
	}
	if depth := selectionDepth(op.SelectionSet, 0, c.lim.MaxDepth); depth > c.lim.MaxDepth {
		return limitError("BAD_USER_INPUT", "operation is nested %d levels deep, which exceeds the limit of %d", depth, c.lim.MaxDepth)
	}
	if cost := selectionCost(op.SelectionSet, oc.Variables, c.lim.MaxCost); cost > c.lim.MaxCost {
		return limitError("COMPLEXITY_LIMIT_EXCEEDED", "operation costs %d or more, over the limit of %d", cost, c.lim.MaxCost)
	}
	return nil
}

func limitError(code, format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	err.Extensions = map[string]any{"code": code}
	return err
}

// introspectionOnly reports whether every top-level field reads the schema.
func introspectionOnly(set ast.SelectionSet) bool {
	if len(set) == 0 {
		return false
	}
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if s.Name != "__schema" && s.Name != "__type" && s.Name != "__typename" {
				return false
			}
		case *ast.InlineFragment:
			if !introspectionOnly(s.SelectionSet) {
				return false
			}
		case *ast.FragmentSpread:
			if s.Definition == nil || !introspectionOnly(s.Definition.SelectionSet) {
				return false
			}
		}
	}
	return true
}

// countFields counts the fields of set that match, through fragments
// (each use counts). Counting stops at depth 64: validation has refused
// fragment cycles, and expandedSelections has bounded the fan-out.
func countFields(set ast.SelectionSet, match func(*ast.Field) bool, depth int) int {
	if depth > 64 {
		return 0
	}
	n := 0
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if match(s) {
				n++
			}
			n += countFields(s.SelectionSet, match, depth+1)
		case *ast.InlineFragment:
			n += countFields(s.SelectionSet, match, depth+1)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				n += countFields(s.Definition.SelectionSet, match, depth+1)
			}
		}
	}
	return n
}

func isAliased(f *ast.Field) bool { return f.Alias != "" && f.Alias != f.Name }

func isSchemaField(f *ast.Field) bool { return f.Name == "__schema" }

// maxExpandedSelections bounds the selections of an operation with its
// fragments expanded at each use: the introspection query has a few
// hundred.
const maxExpandedSelections = 100000

// expandedSelections counts the selections of set with fragments expanded,
// stopping past maxExpandedSelections.
func expandedSelections(set ast.SelectionSet, n int) int {
	for _, sel := range set {
		if n++; n > maxExpandedSelections {
			return n
		}
		switch s := sel.(type) {
		case *ast.Field:
			n = expandedSelections(s.SelectionSet, n)
		case *ast.InlineFragment:
			n = expandedSelections(s.SelectionSet, n)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				n = expandedSelections(s.Definition.SelectionSet, n)
			}
		}
	}
	return n
}

// selectionCost is the cost of set; it stops adding once past limit, so
// a hostile document cannot make the count itself expensive.
func selectionCost(set ast.SelectionSet, vars map[string]any, limit int) int {
	total := 0
	for _, sel := range set {
		if total > limit {
			return total
		}
		switch s := sel.(type) {
		case *ast.Field:
			total += fieldCost(s, vars, limit-total)
		case *ast.InlineFragment:
			total += selectionCost(s.SelectionSet, vars, limit-total)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				total += selectionCost(s.Definition.SelectionSet, vars, limit-total)
			}
		}
	}
	return total
}

func fieldCost(f *ast.Field, vars map[string]any, limit int) int {
	if f.Definition == nil {
		return 1
	}
	if len(f.SelectionSet) == 0 {
		if f.Definition.Type.Name() == "JSON" {
			if c, ok := heavyFields[f.Name]; ok {
				return c
			}
			return defaultJSON
		}
		return 1
	}
	times := 1
	if f.Definition.Arguments.ForName("first") != nil {
		times = connectionCap
		if first, ok := intArg(f.ArgumentMap(vars)["first"]); ok {
			times = int(min(max(first, 0), connectionCap))
		}
	} else if f.Name == "edges" || f.Name == "nodes" {
		// The page of a connection: its `first` has counted them.
		times = 1
	} else if f.Definition.Type.Elem != nil {
		times = listCost
		if n, ok := unpagedLists[f.Name]; ok {
			times = n
		}
	}
	if times == 0 {
		return 1
	}
	return 1 + times*selectionCost(f.SelectionSet, vars, limit/times+1)
}

// intArg reads an integer argument as literals and variables give it.
func intArg(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		return int64(n), true
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// String describes the limits for logs.
func (l Limits) String() string {
	return fmt.Sprintf("cost %d, depth %d, aliases %d, query %d bytes, response %d bytes",
		l.MaxCost, l.MaxDepth, l.MaxAliases, l.MaxQueryBytes, l.MaxResponseBytes)
}
