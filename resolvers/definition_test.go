package resolvers_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

func TestDefinitions(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		b, err := os.ReadFile("../testdata/cases/permit.xml")
		if err != nil {
			t.Fatal(err)
		}
		permit := string(b)

		_, err = client.DeployDefinition(ctx, env.GraphQL("bob"), nil, "permit", permit)
		expectCode(t, err, "FORBIDDEN", "User 'bob' does not have the privileges to deploy a definition")

		dep, err := client.DeployDefinition(ctx, env.GraphQL("alice"), ptr("acme"), "permit", permit)
		if err != nil {
			t.Fatal(err)
		}
		if d := dep.DeployDefinition; d.Name != "permit.xml" || d.Version != 1 || d.CaseName != "BuildingPermit" || len(d.Hash) != 64 {
			t.Fatalf("deployed %+v", d)
		}

		one, err := client.Definition(ctx, env.GraphQL("bob"), nil, "permit.xml")
		if err != nil {
			t.Fatal(err)
		}
		d := one.Definition
		if d == nil || d.Xml != permit || d.DeployedBy != "alice" || strings.Join(d.CaseRoles, ",") != "Reviewer,Clerk" ||
			len(d.InputParameters) != 1 || d.InputParameters[0].Name != "Application" || *d.InputParameters[0].CaseFileItem != "Application" {
			t.Fatalf("definition = %+v", d)
		}
		missing, err := client.Definition(ctx, env.GraphQL("bob"), nil, "nope")
		if err != nil || missing.Definition != nil {
			t.Fatalf("missing definition: %+v %v", missing, err)
		}

		list, err := client.Definitions(ctx, env.GraphQL("bob"), nil)
		if err != nil || len(list.Definitions) != 1 || list.Definitions[0].Documentation == "" {
			t.Fatalf("list = %+v %v", list, err)
		}

		broken := strings.Replace(permit, `definitionRef="ht_inform"`, `definitionRef="ht_missing"`, 1)
		_, err = client.DeployDefinition(ctx, env.GraphQL("alice"), nil, "broken", broken)
		expectCode(t, err, "BAD_USER_INPUT", "Cannot deploy broken.xml: definition is invalid.")
		var gerrs gqlerror.List
		if !errors.As(err, &gerrs) || gerrs[0].Extensions["problems"] == nil {
			t.Fatalf("no problems in the error extensions: %v", err)
		}

		// Validation needs no token.
		v, err := client.ValidateDefinition(ctx, env.GraphQL(""), broken)
		if err != nil || v.ValidateDefinition.Valid || !strings.Contains(strings.Join(v.ValidateDefinition.Problems, " "), "ht_missing") {
			t.Fatalf("validate broken = %+v %v", v, err)
		}
		v, err = client.ValidateDefinition(ctx, env.GraphQL(""), permit)
		if err != nil || !v.ValidateDefinition.Valid || len(v.ValidateDefinition.Problems) != 0 {
			t.Fatalf("validate permit = %+v %v", v, err)
		}
	})
}
