package rest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// TestTenantOwnersInOrderOfAddition pins reference §14: the owners come in
// the order they were added, not sorted; a replaced list keeps the places
// of those who stay.
func TestTenantOwnersInOrderOfAddition(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/platform", User: admin, Body: tenantBody("acme",
			user{UserID: "zoe", IsOwner: true}, user{UserID: "mia", IsOwner: true}, user{UserID: "bob"})}), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/owners", User: "zoe"}), 200, `["zoe","mia"]`)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/owners", User: "bob"}), 401,
			"You do not have the privileges to perform this action")
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "zoe",
			Body: map[string]any{"userId": "abe", "isOwner": true}}), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/owners", User: "zoe"}), 200, `["zoe","mia","abe"]`)
		// Making bob an owner later puts him after abe, though he was added first.
		expect(t, env.Do(servertest.Request{Method: "PUT", Path: "/tenant/acme/users", User: "zoe",
			Body: map[string]any{"userId": "bob", "isOwner": true}}), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/owners", User: "zoe"}), 200, `["zoe","mia","bob","abe"]`)
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme", User: "zoe", Body: map[string]any{"users": []map[string]any{
			{"userId": "cid", "isOwner": true}, {"userId": "abe", "isOwner": true}, {"userId": "zoe", "isOwner": true},
		}}}), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/owners", User: "zoe"}), 200, `["zoe","abe","cid"]`)
	})
}

// TestPlatformUserWithoutTenants pins reference §15: a user in no tenant
// and a token with an empty subject get 200; the empty user cannot start a
// case; a missing bearer is 401.
func TestPlatformUserWithoutTenants(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "inbox.xml", readModel(t, "inbox.xml")), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/platform/user", User: "nomad"}), 200,
			`{"userId":"nomad","tenants":[],"groups":[]}`)
		empty := map[string]string{"Authorization": "Bearer " + env.Issuer.SignRaw(map[string]any{
			"iss": env.Issuer.URL, "sub": "", "exp": time.Now().Add(time.Hour).Unix()})}
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/platform/user", Header: empty}), 200,
			`{"userId":"","tenants":[],"groups":[]}`)
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/cases", Header: empty,
			Body: map[string]any{"definition": "inbox", "tenant": "acme"}}), 400,
			"User information is missing in command of type StartCase")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/platform/user"}), http.StatusUnauthorized, "Authorization token is missing")
	})
}
