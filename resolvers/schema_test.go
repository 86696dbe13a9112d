package resolvers_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/graph"
	"github.com/casegraph/casegraph/graph/client"
	"github.com/casegraph/casegraph/model"
)

// TestSchemaIsDescribed walks the schema: every type, field, argument,
// input field and enum value of CaseGraph's own has a description, so the
// docs pane of GraphiQL and generated clients explain everything.
func TestSchemaIsDescribed(t *testing.T) {
	s := graph.NewExecutableSchema(graph.Config{}).Schema()
	builtin := map[string]bool{"String": true, "Int": true, "Float": true, "Boolean": true, "ID": true}
	missing := 0
	report := func(format string, args ...any) {
		missing++
		t.Errorf("no description: "+format, args...)
	}
	for name, def := range s.Types {
		if builtin[name] || strings.HasPrefix(name, "__") {
			continue
		}
		if strings.TrimSpace(def.Description) == "" {
			report("type %s", name)
		}
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			if strings.TrimSpace(f.Description) == "" {
				report("%s.%s", name, f.Name)
			}
			for _, a := range f.Arguments {
				if strings.TrimSpace(a.Description) == "" {
					report("argument %s of %s.%s", a.Name, name, f.Name)
				}
			}
		}
		for _, v := range def.EnumValues {
			if strings.TrimSpace(v.Description) == "" {
				report("enum value %s.%s", name, v.Name)
			}
		}
	}
	if len(s.Types) < 40 {
		t.Errorf("only %d types walked", len(s.Types))
	}
}

// TestEnumTablesMatchSchema keeps model/enums.go and the schema's enums
// in step, value for value.
func TestEnumTablesMatchSchema(t *testing.T) {
	s := graph.NewExecutableSchema(graph.Config{}).Schema()
	for name, e := range model.Enums {
		def := s.Types[name]
		if def == nil || def.Kind != ast.Enum {
			t.Errorf("enum %s is not in the schema", name)
			continue
		}
		var values []string
		for _, v := range def.EnumValues {
			values = append(values, v.Name)
		}
		got := e.GraphQLNames()
		slices.Sort(values)
		slices.Sort(got)
		if !slices.Equal(values, got) {
			t.Errorf("enum %s: schema %v, model %v", name, values, got)
		}
	}
}

// TestNullableCaseAndTask: a hidden or unknown case or task is null with a
// NOT_FOUND error on its own path; the rest of the data still answers.
func TestNullableCaseAndTask(t *testing.T) {
	env := servertest.Start(t, db.SQLite)
	caseID := setupPermit(t, env).Id

	var resp struct {
		Data struct {
			Me   struct{ UserID string } `json:"me"`
			Case *struct{ ID string }    `json:"case"`
			Task *struct{ ID string }    `json:"task"`
		} `json:"data"`
		Errors gqlerror.List `json:"errors"`
	}
	rawGraphQL(t, env, "nobody", `{ me { userId } case(id: "`+caseID+`") { id } task(id: "nope") { id } }`, &resp)
	if resp.Data.Me.UserID != "nobody" || resp.Data.Case != nil || resp.Data.Task != nil {
		t.Fatalf("data %+v", resp.Data)
	}
	paths := map[string]string{}
	for _, e := range resp.Errors {
		paths[e.Path.String()] = e.Extensions["code"].(string)
	}
	if paths["case"] != "NOT_FOUND" || paths["task"] != "NOT_FOUND" || len(paths) != 2 {
		t.Fatalf("errors %v", resp.Errors)
	}
	// Enums are checked before anything runs: an unknown sort field or
	// transition is a validation error naming it.
	_, err := client.Cases(ctx, env.GraphQL("alice"), &client.CaseFilter{SortBy: ptr(client.CaseSortField("COLOUR"))}, ptr(2), nil)
	if err == nil || !strings.Contains(err.Error(), `"message":"COLOUR is not a valid CaseSortField"`) ||
		!strings.Contains(err.Error(), "GRAPHQL_VALIDATION_FAILED") {
		t.Fatalf("unknown sortBy: %v", err)
	}
	_, err = client.MakePlanItemTransition(ctx, env.GraphQL("alice"), caseID, "Review application", client.Transition("null"))
	if err == nil || !strings.Contains(err.Error(), `"message":"null is not a valid Transition"`) {
		t.Fatalf("bad transition: %v", err)
	}
}

// rawGraphQL posts query as user and decodes the whole response, data and
// errors side by side.
func rawGraphQL(t *testing.T, env *servertest.Env, user, query string, out any) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": query})
	req, _ := http.NewRequest("POST", env.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+env.Issuer.Token(user))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// TestTimesMatchREST: a task's times are the same instants, to the
// microsecond, over GraphQL (from the case's state) and over REST (from
// the task row). REST writes them as Java's Instant does (…19.605070Z),
// GraphQL as RFC 3339 with trailing zeros dropped (…19.60507Z).
func TestTimesMatchREST(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		caseID := setupPermit(t, env).Id
		var resp struct {
			Data struct {
				Case struct {
					Tasks []struct{ ID, DueDate, CreatedOn, LastModified string }
				}
			}
		}
		rawGraphQL(t, env, "alice", `{ case(id: "`+caseID+`") { tasks { id dueDate createdOn lastModified } } }`, &resp)
		if len(resp.Data.Case.Tasks) == 0 {
			t.Fatal("no tasks")
		}
		for _, tk := range resp.Data.Case.Tasks {
			r := env.Do(servertest.Request{Method: "GET", Path: "/tasks/" + tk.ID, User: "alice"})
			var rest struct{ DueDate, CreatedOn, LastModified string }
			r.JSON(t, &rest)
			same := func(a, b string) bool {
				ta, errA := time.Parse(time.RFC3339Nano, a)
				tb, errB := time.Parse(time.RFC3339Nano, b)
				return errA == nil && errB == nil && ta.Equal(tb)
			}
			if tk.DueDate == "" || !same(rest.DueDate, tk.DueDate) || !same(rest.CreatedOn, tk.CreatedOn) || !same(rest.LastModified, tk.LastModified) {
				t.Errorf("GraphQL %+v, REST %+v", tk, rest)
			}
		}
	})
}
