package resolvers_test

import (
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

func setCarl(t *testing.T, env *servertest.Env, enabled bool) {
	t.Helper()
	if _, err := client.SetTenantUser(ctx, env.GraphQL("alice"), "acme", client.TenantUserInput{UserId: "carl", Enabled: ptr(enabled)}); err != nil {
		t.Fatal(err)
	}
}

// TestDisabledAccountGraphQL: a team member disabled in the case's tenant
// finds the tenant's cases hidden (NOT_FOUND, as for a stranger) on every
// field, and every mutation refused with FORBIDDEN; lists, the inbox and
// nested fields agree; enabling the account restores all of it.
func TestDisabledAccountGraphQL(t *testing.T) {
	rows := gqlMatrixRows()
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		deployIncident(t, env)
		setCarl(t, env, true)
		for _, row := range rows {
			t.Run(row.name, func(t *testing.T) {
				setCarl(t, env, false)
				id, task := startIncident(t, env)
				err := row.call(env.GraphQL("carl"), id, task)
				want := "FORBIDDEN"
				if row.read {
					want = "NOT_FOUND"
				}
				if err == nil {
					t.Fatalf("disabled carl succeeded, want %s", want)
				}
				if code := errorCode(t, err); code != want {
					t.Errorf("disabled carl: %v, want %s", err, want)
				}
				setCarl(t, env, true)
				id, task = startIncident(t, env)
				wantOK := row.withRole
				if row.with != "carl" {
					wantOK = row.member
				}
				err = row.call(env.GraphQL("carl"), id, task)
				switch {
				case wantOK == "" && err != nil:
					t.Errorf("enabled carl: %v", err)
				case wantOK != "" && (err == nil || errorCode(t, err) != wantOK):
					t.Errorf("enabled carl: %v, want %s", err, wantOK)
				}
			})
		}

		startIncident(t, env)
		setCarl(t, env, false)
		cases, err := client.NestedCases(ctx, env.GraphQL("carl"), ptr(50))
		if err != nil || len(cases.Cases.Edges) != 0 {
			t.Fatalf("disabled carl's cases: %+v %v", cases, err)
		}
		tasks, err := client.Tasks(ctx, env.GraphQL("carl"), nil, ptr(50), nil)
		if err != nil || len(tasks.Tasks.Edges) != 0 {
			t.Fatalf("disabled carl's inbox: %+v %v", tasks, err)
		}
		// alice still sees carl in the team; carl's account is simply gone
		// from the nested user field, as for any disabled account.
		cases, err = client.NestedCases(ctx, env.GraphQL("alice"), ptr(50))
		if err != nil || len(cases.Cases.Edges) == 0 {
			t.Fatalf("alice's cases: %+v %v", cases, err)
		}

		setCarl(t, env, true)
		cases, err = client.NestedCases(ctx, env.GraphQL("carl"), ptr(50))
		if err != nil || len(cases.Cases.Edges) == 0 {
			t.Fatalf("re-enabled carl's cases: %+v %v", cases, err)
		}
		tasks, err = client.Tasks(ctx, env.GraphQL("carl"), nil, ptr(50), nil)
		if err != nil || len(tasks.Tasks.Edges) == 0 {
			t.Fatalf("re-enabled carl's inbox: %+v %v", tasks, err)
		}
	})
}
