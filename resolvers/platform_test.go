package resolvers_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

const admin = servertest.PlatformOwner

var ctx = context.Background()

func ptr[T any](v T) *T { return &v }

// errorCode returns extensions.code of the first GraphQL error in err.
func errorCode(t *testing.T, err error) string {
	t.Helper()
	var list gqlerror.List
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("want a GraphQL error, got %v", err)
	}
	code, _ := list[0].Extensions["code"].(string)
	return code
}

func expectCode(t *testing.T, err error, code, message string) {
	t.Helper()
	if got := errorCode(t, err); got != code {
		t.Fatalf("code = %s, want %s (%v)", got, code, err)
	}
	var list gqlerror.List
	errors.As(err, &list)
	if message != "" && list[0].Message != message {
		t.Fatalf("message = %q, want %q", list[0].Message, message)
	}
}

// createTenant creates a tenant with alice as owner (roles boss, clerk), bob
// as plain user (clerk) and carol disabled.
func createTenant(t *testing.T, env *servertest.Env, name string) {
	t.Helper()
	_, err := client.CreateTenant(ctx, env.GraphQL(admin), client.CreateTenantInput{Name: name, Users: []client.TenantUserInput{
		{UserId: "alice", IsOwner: ptr(true), Roles: []string{"clerk", "boss"}, Name: ptr("Alice")},
		{UserId: "bob", Roles: []string{"clerk"}},
		{UserId: "carol", Enabled: ptr(false)},
	}})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCreateTenant(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		resp, err := client.CreateTenant(ctx, env.GraphQL(admin), client.CreateTenantInput{Name: "acme",
			Users: []client.TenantUserInput{{UserId: "alice", IsOwner: ptr(true)}}})
		if err != nil {
			t.Fatal(err)
		}
		if resp.CreateTenant.Name != "acme" || !resp.CreateTenant.Enabled || resp.CreateTenant.LastModified.IsZero() {
			t.Fatalf("created %+v", resp.CreateTenant)
		}
		// The same tenant is visible over REST.
		if r := env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/owners", User: "alice"}); r.Body != `["alice"]` {
			t.Fatalf("REST owners = %d %s", r.Status, r.Body)
		}

		_, err = client.CreateTenant(ctx, env.GraphQL("alice"), client.CreateTenantInput{Name: "other",
			Users: []client.TenantUserInput{{UserId: "alice", IsOwner: ptr(true)}}})
		expectCode(t, err, "FORBIDDEN", "Only platform owners can access this route")

		_, err = client.CreateTenant(ctx, env.GraphQL(admin), client.CreateTenantInput{Name: "acme",
			Users: []client.TenantUserInput{{UserId: "alice", IsOwner: ptr(true)}}})
		expectCode(t, err, "BAD_USER_INPUT", "")

		_, err = client.CreateTenant(ctx, env.GraphQL(admin), client.CreateTenantInput{Name: "t2",
			Users: []client.TenantUserInput{{UserId: "bob"}}})
		expectCode(t, err, "BAD_USER_INPUT", "Cannot set tenant without active tenant owners")

		_, err = client.CreateTenant(ctx, env.GraphQL(""), client.CreateTenantInput{Name: "t3",
			Users: []client.TenantUserInput{{UserId: "bob", IsOwner: ptr(true)}}})
		expectCode(t, err, "UNAUTHENTICATED", "Authorization token is missing")
	})
}

func TestDisableEnableTenant(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		_, err := client.DisableTenant(ctx, env.GraphQL("alice"), "acme")
		expectCode(t, err, "FORBIDDEN", "")
		if _, err := client.DisableTenant(ctx, env.GraphQL(admin), "acme"); err != nil {
			t.Fatal(err)
		}
		resp, err := client.Tenant(ctx, env.GraphQL("alice"), "acme")
		if err != nil || resp.Tenant != nil {
			t.Fatalf("disabled tenant: %+v, %v; want null", resp, err)
		}
		if _, err := client.EnableTenant(ctx, env.GraphQL(admin), "acme"); err != nil {
			t.Fatal(err)
		}
		resp, err = client.Tenant(ctx, env.GraphQL("alice"), "acme")
		if err != nil || resp.Tenant == nil {
			t.Fatalf("enabled tenant: %+v, %v", resp, err)
		}
	})
}

func TestMeAndPlatform(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		me, err := client.Me(ctx, env.GraphQL("bob"))
		if err != nil {
			t.Fatal(err)
		}
		if me.Me.UserId != "bob" || me.Me.IsPlatformOwner || len(me.Me.Tenants) != 1 ||
			me.Me.Tenants[0].Tenant != "acme" || me.Me.Tenants[0].Roles[0] != "clerk" {
			t.Fatalf("me = %+v", me.Me)
		}
		me, err = client.Me(ctx, env.GraphQL(admin))
		if err != nil || !me.Me.IsPlatformOwner || len(me.Me.Tenants) != 0 {
			t.Fatalf("admin me = %+v, %v", me, err)
		}
		_, err = client.Me(ctx, env.GraphQL(""))
		expectCode(t, err, "UNAUTHENTICATED", "")

		// Version and health need no token.
		info, err := client.PlatformInfo(ctx, env.GraphQL(""))
		if err != nil {
			t.Fatal(err)
		}
		if info.Platform.Version.Version != "test" || !info.Platform.Health.Ok || len(info.Platform.Health.MeasurePoints) < 2 {
			t.Fatalf("platform = %+v", info.Platform)
		}
	})
}

func TestBadTokenOverGraphQL(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		_, err := client.Me(ctx, env.GraphQLWithToken(env.Issuer.SignWithOtherKey("bob")))
		if err == nil {
			t.Fatal("a token with a bad signature was accepted")
		}
		// genqlient reports the 401 with its body.
		if got := err.Error(); !strings.Contains(got, "401") || !strings.Contains(got, "UNAUTHENTICATED") {
			t.Fatalf("error = %v", err)
		}
	})
}
