package resolvers

import (
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"

	"github.com/casegraph/casegraph/graph"
)

func TestSelectionDepth(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{Resolvers: &Resolver{}}).Schema()
	nested := func(n int) string {
		// __Type.ofType nests as deep as we like.
		return "{ __type(name: \"Query\") " + strings.Repeat("{ ofType ", n) + "{ name }" + strings.Repeat(" }", n) + " }"
	}
	tests := []struct {
		query string
		want  int
	}{
		{"{ me { userId } }", 2},
		{"{ me { userId tenants { roles } } platform { version { name } } }", 3},
		{"query { ...F } fragment F on Query { me { tenants { userId } } }", 3},
		{"{ me { ... on Me { tenants { userId } } } }", 3},
		{nested(3), 5},
		{nested(20), MaxDepth + 1}, // counting stops past the limit
	}
	for _, tt := range tests {
		doc, err := gqlparser.LoadQueryWithRules(schema, tt.query, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		if got := selectionDepth(doc.Operations[0].SelectionSet, 0, MaxDepth); got != tt.want {
			t.Errorf("depth of %s = %d, want %d", tt.query, got, tt.want)
		}
	}
}
