package resolvers_test

import (
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

func TestTenantQueries(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		resp, err := client.Tenant(ctx, env.GraphQL("bob"), "acme")
		if err != nil {
			t.Fatal(err)
		}
		users := resp.Tenant.Users
		if len(users) != 2 || users[0].UserId != "alice" || users[0].Name != "Alice" || !users[0].IsOwner ||
			users[1].UserId != "bob" || users[1].IsOwner {
			t.Fatalf("users = %+v", users)
		}
		if len(users[0].Roles) != 2 || users[0].Roles[0] != "boss" {
			t.Fatalf("alice roles = %v, want [boss clerk]", users[0].Roles)
		}

		// Not a user of the tenant, or unknown: null, as if it did not exist.
		for _, who := range []string{"zed", admin} {
			resp, err := client.Tenant(ctx, env.GraphQL(who), "acme")
			if err != nil || resp.Tenant != nil {
				t.Fatalf("%s sees tenant: %+v %v", who, resp.Tenant, err)
			}
		}
		// A disabled account may not read it.
		_, err = client.Tenant(ctx, env.GraphQL("carol"), "acme")
		expectCode(t, err, "FORBIDDEN", "The user account carol has been disabled")

		owners, err := client.TenantOwners(ctx, env.GraphQL("alice"), "acme")
		if err != nil || len(owners.Tenant.Owners) != 1 || owners.Tenant.Owners[0] != "alice" {
			t.Fatalf("owners = %+v %v", owners, err)
		}
		_, err = client.TenantOwners(ctx, env.GraphQL("bob"), "acme")
		expectCode(t, err, "FORBIDDEN", "You do not have the privileges to perform this action")

		one, err := client.TenantUser(ctx, env.GraphQL("bob"), "acme", "alice")
		if err != nil || one.Tenant.User == nil || one.Tenant.User.UserId != "alice" {
			t.Fatalf("user alice = %+v %v", one, err)
		}
		for _, id := range []string{"carol", "nobody"} {
			one, err = client.TenantUser(ctx, env.GraphQL("bob"), "acme", id)
			if err != nil || one.Tenant.User != nil {
				t.Fatalf("user %s = %+v %v, want null", id, one.Tenant.User, err)
			}
		}
		disabled, err := client.DisabledAccounts(ctx, env.GraphQL("bob"), "acme")
		if err != nil || len(disabled.Tenant.DisabledAccounts) != 1 || disabled.Tenant.DisabledAccounts[0].UserId != "carol" {
			t.Fatalf("disabled = %+v %v", disabled, err)
		}
	})
}

func TestTenantMutations(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		alice := env.GraphQL("alice")

		set, err := client.SetTenantUser(ctx, alice, "acme", client.TenantUserInput{UserId: "dave", Roles: []string{"clerk"}, Email: ptr("d@x")})
		if err != nil {
			t.Fatal(err)
		}
		if u := set.SetTenantUser; u.UserId != "dave" || u.Email != "d@x" || !u.Enabled || u.IsOwner || len(u.Roles) != 1 {
			t.Fatalf("dave = %+v", u)
		}
		// Fields left out keep their value.
		set, err = client.SetTenantUser(ctx, alice, "acme", client.TenantUserInput{UserId: "dave", IsOwner: ptr(true)})
		if err != nil || set.SetTenantUser.Email != "d@x" || !set.SetTenantUser.IsOwner || set.SetTenantUser.Roles[0] != "clerk" {
			t.Fatalf("dave after update = %+v %v", set, err)
		}

		_, err = client.SetTenantUser(ctx, env.GraphQL("bob"), "acme", client.TenantUserInput{UserId: "bob", IsOwner: ptr(true)})
		expectCode(t, err, "FORBIDDEN", "You do not have the privileges to perform this action")

		// The last owner rule: alice may drop ownership now that dave owns
		// too, but dave then may not.
		if _, err := client.SetTenantUser(ctx, alice, "acme", client.TenantUserInput{UserId: "alice", IsOwner: ptr(false)}); err != nil {
			t.Fatal(err)
		}
		dave := env.GraphQL("dave")
		_, err = client.RemoveTenantUser(ctx, dave, "acme", "dave")
		expectCode(t, err, "BAD_USER_INPUT", "Cannot remove tenant ownership or disable the account. There must be at least one tenant owner.")
		_, err = client.SetTenantUser(ctx, dave, "acme", client.TenantUserInput{UserId: "dave", Enabled: ptr(false)})
		expectCode(t, err, "BAD_USER_INPUT", "Cannot remove tenant ownership or disable the account. There must be at least one tenant owner.")

		if _, err := client.RemoveTenantUser(ctx, dave, "acme", "bob"); err != nil {
			t.Fatal(err)
		}
		rep, err := client.ReplaceTenantUsers(ctx, dave, "acme", []client.TenantUserInput{
			{UserId: "dave", IsOwner: ptr(true)}, {UserId: "erin"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if u := rep.ReplaceTenantUsers.Users; len(u) != 2 || u[0].UserId != "dave" || u[1].UserId != "erin" {
			t.Fatalf("after replace: %+v", u)
		}
		_, err = client.ReplaceTenantUsers(ctx, dave, "acme", []client.TenantUserInput{{UserId: "erin"}})
		expectCode(t, err, "BAD_USER_INPUT", "Cannot set tenant without active tenant owners")
	})
}
