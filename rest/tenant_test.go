package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

func TestTenantReads(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		alice := `{"userId":"alice","roles":["boss","clerk"],"tenant":"acme","name":"Alice","email":"alice@example.com","isOwner":true,"enabled":true}`
		bob := `{"userId":"bob","roles":["clerk"],"tenant":"acme","name":"","email":"","isOwner":false,"enabled":true}`
		carol := `{"userId":"carol","roles":[],"tenant":"acme","name":"","email":"","isOwner":false,"enabled":false}`
		tests := []struct {
			name, user, path string
			status           int
			want             string
		}{
			{"owners by owner", "alice", "/tenant/acme/owners", 200, `["alice"]`},
			{"owners by non-owner", "bob", "/tenant/acme/owners", 401, "You do not have the privileges to perform this action"},
			{"owners by platform owner", admin, "/tenant/acme/owners", 404, "Tenant 'acme' does not exist, or user 'admin' is not registered in it"},
			{"users", "bob", "/tenant/acme/users", 200, "[" + alice + "," + bob + "]"},
			{"one user", "bob", "/tenant/acme/users/alice", 200, alice},
			{"unknown user", "bob", "/tenant/acme/users/zed", 404, "A user with id 'zed' cannot be found."},
			{"disabled user", "bob", "/tenant/acme/users/carol", 404, "The requested resource could not be found but may be available again in the future."},
			{"disabled accounts", "bob", "/tenant/acme/disabled-accounts", 200, "[" + carol + "]"},
			{"caller disabled", "carol", "/tenant/acme/users", 401, "The user account carol has been disabled"},
			{"caller not in tenant", "zed", "/tenant/acme/users", 404, "Tenant 'acme' does not exist, or user 'zed' is not registered in it"},
			{"unknown tenant", "alice", "/tenant/nosuch/users", 404, "Tenant 'nosuch' does not exist, or user 'alice' is not registered in it"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				expect(t, env.Do(servertest.Request{Method: "GET", Path: tt.path, User: tt.user}), tt.status, tt.want)
			})
		}
	})
}

func TestTenantUserCommands(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		get := func(userID string) string {
			return env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/users/" + userID, User: "alice"}).Body
		}

		// Add a user with POST; PUT is accepted too, for compatibility.
		resp := env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice",
			Body: user{UserID: "dave", Roles: []string{"clerk"}, Name: "Dave"}})
		expect(t, resp, http.StatusNoContent, "")
		if !strings.HasSuffix(resp.Header.Get("Tenant-Last-Modified"), ";acme") {
			t.Errorf("Tenant-Last-Modified = %q", resp.Header.Get("Tenant-Last-Modified"))
		}
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/users/dave", User: "dave"}), 200,
			`{"userId":"dave","roles":["clerk"],"tenant":"acme","name":"Dave","email":"","isOwner":false,"enabled":true}`)

		// The body is a whole user, as the reference's UserFormat: what it
		// leaves out (here the name) takes its default.
		resp = env.Do(servertest.Request{Method: "PUT", Path: "/tenant/acme/users", User: "alice",
			Body: map[string]any{"userId": "dave", "roles": []string{"boss"}, "isOwner": true}})
		expect(t, resp, http.StatusNoContent, "")
		if got := get("dave"); got != `{"userId":"dave","roles":["boss"],"tenant":"acme","name":"","email":"","isOwner":true,"enabled":true}` {
			t.Fatalf("dave after update = %s", got)
		}
		// So a body without isOwner takes ownership away: from dave, and
		// not from the other owner when she would be the last.
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice",
			Body: map[string]any{"userId": "dave", "roles": []string{"boss"}, "name": "Dave"}}), http.StatusNoContent, "")
		if got := get("dave"); got != `{"userId":"dave","roles":["boss"],"tenant":"acme","name":"Dave","email":"","isOwner":false,"enabled":true}` {
			t.Fatalf("dave after an update without isOwner = %s", got)
		}
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice",
			Body: map[string]any{"userId": "alice", "roles": []string{"clerk", "boss"}}}), 400,
			"Cannot remove tenant ownership or disable the account. There must be at least one tenant owner.")

		// Non-owners may not change users.
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "bob",
			Body: user{UserID: "eve"}}), 401, "You do not have the privileges to perform this action")
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/tenant/acme/users/dave", User: "bob"}),
			401, "You do not have the privileges to perform this action")
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice",
			Body: map[string]any{"roles": []string{"x"}}}), 400, "Tenant users must have a userId")

		// Remove a user; removing an unknown user is a no-op.
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/tenant/acme/users/dave", User: "alice"}), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/users/dave", User: "alice"}),
			404, "A user with id 'dave' cannot be found.")
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/tenant/acme/users/nobody", User: "alice"}), 204, "")
	})
}

func TestLastTenantOwner(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		const msg = "Cannot remove tenant ownership or disable the account. There must be at least one tenant owner."
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice",
			Body: map[string]any{"userId": "alice", "isOwner": false}}), 400, msg)
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice",
			Body: map[string]any{"userId": "alice", "enabled": false}}), 400, msg)
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/tenant/acme/users/alice", User: "alice"}), 400, msg)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/owners", User: "alice"}), 200, `["alice"]`)

		// With a second owner the first may go.
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice",
			Body: map[string]any{"userId": "bob", "isOwner": true}}), 204, "")
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/tenant/acme/users/alice", User: "alice"}), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/owners", User: "bob"}), 200, `["bob"]`)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/owners", User: "alice"}),
			404, "Tenant 'acme' does not exist, or user 'alice' is not registered in it")
	})
}

func TestReplaceTenant(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		tests := []struct {
			name   string
			user   string
			body   any
			status int
			want   string
		}{
			{"non-owner", "bob", tenantBody("acme", user{UserID: "bob", IsOwner: true}), 401, "You do not have the privileges to perform this action"},
			{"empty list", "alice", tenantBody("acme"), 400, "Setting tenant requires a list of users with at least one owner"},
			{"no owner", "alice", tenantBody("acme", user{UserID: "bob"}), 400, "Cannot set tenant without active tenant owners"},
			{"duplicates", "alice", tenantBody("acme", user{UserID: "bob", IsOwner: true}, user{UserID: "bob"}), 400, "Tenant contains duplicate user entries: ['bob']"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme", User: tt.user, Body: tt.body}), tt.status, tt.want)
			})
		}
		// Nothing changed so far.
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/owners", User: "alice"}), 200, `["alice"]`)

		resp := env.Do(servertest.Request{Method: "PUT", Path: "/tenant/acme", User: "alice",
			Body: map[string]any{"users": []user{{UserID: "bob", IsOwner: true}, {UserID: "frank", Roles: []string{"r"}}}}})
		expect(t, resp, 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/users", User: "bob"}), 200,
			`[{"userId":"bob","roles":[],"tenant":"acme","name":"","email":"","isOwner":true,"enabled":true},`+
				`{"userId":"frank","roles":["r"],"tenant":"acme","name":"","email":"","isOwner":false,"enabled":true}]`)
		// Users missing from the list are gone.
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/users", User: "alice"}),
			404, "Tenant 'acme' does not exist, or user 'alice' is not registered in it")
	})
}

// TestConcurrentOwnerRemoval races two owners removing each other: the
// optimistic version check makes one of them lose and retry on fresh data,
// so the tenant never ends up without an owner.
func TestConcurrentOwnerRemoval(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		for round := 0; round < 8; round++ {
			tenant := fmt.Sprintf("race%d", round)
			expect(t, env.Do(servertest.Request{Method: "POST", Path: "/platform", User: admin,
				Body: tenantBody(tenant, user{UserID: "alice", IsOwner: true}, user{UserID: "bob", IsOwner: true})}), 204, "")
			var wg sync.WaitGroup
			statuses := make([]int, 2)
			for i, pair := range [][2]string{{"alice", "bob"}, {"bob", "alice"}} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					statuses[i] = env.Do(servertest.Request{Method: "DELETE", Path: "/tenant/" + tenant + "/users/" + pair[1], User: pair[0]}).Status
				}()
			}
			wg.Wait()
			ok := 0
			for _, s := range statuses {
				if s == http.StatusNoContent {
					ok++
				} else if s != http.StatusNotFound && s != http.StatusBadRequest {
					t.Fatalf("round %d: unexpected status %v", round, statuses)
				}
			}
			var owners []string
			for _, u := range []string{"alice", "bob"} {
				resp := env.Do(servertest.Request{Method: "GET", Path: "/tenant/" + tenant + "/owners", User: u})
				if resp.Status == http.StatusOK {
					resp.JSON(t, &owners)
				}
			}
			if ok != 1 || len(owners) != 1 {
				t.Fatalf("round %d: statuses %v, owners %v; want exactly one removal and one owner left", round, statuses, owners)
			}
		}
	})
}
