package resolvers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// postGraphQL sends a raw query (attacks cannot be genqlient operations)
// and returns the status and the decoded body.
func postGraphQL(t *testing.T, env *servertest.Env, user, query string) (int, graphQLBody) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequest("POST", env.URL+"/graphql", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if user != "" {
		req.Header.Set("Authorization", "Bearer "+env.Issuer.Token(user))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body graphQLBody
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

type graphQLBody struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

func aliases(n int, field string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, " a%d: %s", i, field)
	}
	b.WriteString(" }")
	return b.String()
}

// TestAliasAttackRefusedBeforeSQL: a thousand aliases of a case's history
// with payloads, or fewer that still cost too much, are refused with
// COMPLEXITY_LIMIT_EXCEEDED before a single SQL statement runs.
func TestAliasAttackRefusedBeforeSQL(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		deployIncident(t, env)
		id, _ := startIncident(t, env)
		counter := &statementCounter{}
		//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
		env.Server.DB().AddQueryHook(counter)
		field := fmt.Sprintf(`case(id: %q) { history { type payload } }`, id)
		for _, tc := range []struct {
			n     int
			field string
			want  string
		}{
			{1000, field, "the query document is 83893 bytes, over the limit of 65536 (CASEGRAPH_GRAPHQL_MAX_QUERY_BYTES)"},
			{150, "me { userId }", "the operation has 150 aliased fields, over the limit of 100"},
			{99, field, "operation costs 1009998 or more, over the limit of 1000000"},
		} {
			before := counter.n.Load()
			_, body := postGraphQL(t, env, "alice", aliases(tc.n, tc.field))
			if len(body.Errors) != 1 || body.Errors[0].Extensions["code"] != "COMPLEXITY_LIMIT_EXCEEDED" || body.Errors[0].Message != tc.want {
				t.Fatalf("%d aliases: %+v, want COMPLEXITY_LIMIT_EXCEEDED %q", tc.n, body.Errors, tc.want)
			}
			if ran := counter.n.Load() - before; ran != 0 {
				t.Fatalf("%d aliases: %d SQL statements ran before the refusal", tc.n, ran)
			}
		}
		// Within the budget the same shape runs.
		before := counter.n.Load()
		_, body := postGraphQL(t, env, "alice", aliases(3, field))
		if len(body.Errors) != 0 || counter.n.Load() == before {
			t.Fatalf("3 aliases: %+v", body.Errors)
		}
	})
}

// TestIntrospectionAlwaysAllowed: the standard introspection query, 13
// levels deep, passes the depth and cost limits.
func TestIntrospectionAlwaysAllowed(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		for _, user := range []string{"", "alice"} {
			status, body := postGraphQL(t, env, user, introspectionQuery)
			if status != 200 || len(body.Errors) != 0 || !bytes.Contains(body.Data, []byte(`"queryType"`)) {
				t.Fatalf("as %q: %d %+v", user, status, body.Errors)
			}
		}
		// Data nested as deep is still refused.
		_, body := postGraphQL(t, env, "alice", `{ cases { edges { node { planItems { children { children { children { children { children {
			children { children { children { id } } } } } } } } } } } } }`)
		if len(body.Errors) != 1 || !strings.Contains(body.Errors[0].Message, "exceeds the limit of 12") {
			t.Fatalf("deep data query: %+v", body.Errors)
		}
	})
}

// introspectionQuery is GraphiQL's (graphql-js getIntrospectionQuery).
const introspectionQuery = `query IntrospectionQuery {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }
}`

// TestManySelectionsRefusedBeforeValidation: validation compares fields of
// one response name pairwise, so a 60 KB document of one field repeated
// 12,000 times cost 10 s of CPU, without a token. Such a document is
// refused before it is validated.
func TestManySelectionsRefusedBeforeValidation(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		repeated := "{ platform { version { " + strings.Repeat("name ", 5000) + "} } }"
		spread := "{ " + strings.Repeat("...F ", 5000) + "} fragment F on Query { platform { version { name } } }"
		for _, q := range []string{repeated, spread} {
			_, body := postGraphQL(t, env, "", q)
			if len(body.Errors) != 1 || body.Errors[0].Extensions["code"] != "COMPLEXITY_LIMIT_EXCEEDED" ||
				!strings.Contains(body.Errors[0].Message, "selections, over the limit of 1000") {
				t.Fatalf("%.40s…: %+v", q, body.Errors)
			}
		}
		// The introspection query and an ordinary one still run.
		for _, q := range []string{introspectionQuery, "{ platform { version { " + strings.Repeat("name ", 100) + "} } }"} {
			if _, body := postGraphQL(t, env, "", q); len(body.Errors) != 0 {
				t.Fatalf("%.40s…: %+v", q, body.Errors)
			}
		}
	})
}

// TestRepeatedIntrospectionRefused: introspection is exempt from depth and
// cost, but not from repetition: 490 aliases of __schema over one fragment
// made a 20 KB anonymous request answer 27 MB.
func TestRepeatedIntrospectionRefused(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		const fragment = " fragment F on __Schema { types { name fields { name type { name } } } }"
		for _, q := range []string{
			"{ a: __schema { ...F } b: __schema { ...F } }" + fragment,
			aliases(150, `__type(name: "Query") { name }`),
		} {
			_, body := postGraphQL(t, env, "", q)
			if len(body.Errors) != 1 || body.Errors[0].Extensions["code"] != "COMPLEXITY_LIMIT_EXCEEDED" {
				t.Fatalf("%.50s…: %+v", q, body.Errors)
			}
		}
		if _, body := postGraphQL(t, env, "", "{ __schema { ...F } a: __type(name: \"Query\") { name } }"+fragment); len(body.Errors) != 0 {
			t.Fatalf("one __schema and an aliased __type: %+v", body.Errors)
		}
	})
}

// TestFragmentFanOutRefused: fragments that each spread the one before
// twice expand to 2^n selections; the limits walked every one of them, so a
// 1.6 KB anonymous document took 12 s of CPU (and twice as long per
// fragment more). Such a document is refused after a bounded walk.
func TestFragmentFanOutRefused(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		var b strings.Builder
		b.WriteString("{ ...F21 } fragment F0 on Query { platform { version { name } } }")
		for k := 1; k <= 21; k++ {
			fmt.Fprintf(&b, " fragment F%d on Query { ...F%d ... on Query { ...F%d } }", k, k-1, k-1)
		}
		_, body := postGraphQL(t, env, "", b.String())
		if len(body.Errors) != 1 || body.Errors[0].Extensions["code"] != "COMPLEXITY_LIMIT_EXCEEDED" ||
			!strings.Contains(body.Errors[0].Message, "expands to more than 100000 selections") {
			t.Fatalf("%+v", body.Errors)
		}
	})
}
