package compat_test

import (
	"testing"
)

func TestTenant(t *testing.T) {
	const lastOwner = "Cannot remove tenant ownership or disable the account. There must be at least one tenant owner."
	tom := `{"userId":"tom","roles":["ops"],"tenant":"compat","name":"Tom","email":"tom@example.com","isOwner":true,"enabled":true}`
	allUsers := []map[string]any{
		{"userId": "tom", "isOwner": true, "roles": []string{"ops"}, "name": "Tom", "email": "tom@example.com"},
		{"userId": "tess", "roles": []string{"ops"}},
		{"userId": "carla"}, {"userId": "mike"}, {"userId": "abe"}, {"userId": "dan", "enabled": false},
	}
	forEachDB(t, []row{
		// §1.2: every tenant route first resolves the caller in the tenant.
		{caller: tenantOwner, method: "GET", path: "/tenant/{tenant}/owners", status: 200, json: listOf("string"), exact: `["tom"]`},
		{caller: tenantUser, method: "GET", path: "/tenant/{tenant}/owners", status: 401, text: "You do not have the privileges to perform this action"},
		{caller: platformOwner, method: "GET", path: "/tenant/{tenant}/owners", status: 404,
			text: "Tenant 'compat' does not exist, or user 'admin' is not registered in it"},
		{caller: nonMember, method: "GET", path: "/tenant/{tenant}/owners", status: 404,
			text: "Tenant 'compat' does not exist, or user 'nina' is not registered in it"},
		{caller: tenantOwner, method: "GET", path: "/tenant/nosuch/owners", status: 404,
			text: "Tenant 'nosuch' does not exist, or user 'tom' is not registered in it"},
		{name: "in the order they were added", caller: tenantOwner, method: "GET", path: "/tenant/ordered/owners", status: 200,
			exact: `["tom","zed","amy"]`,
			before: func(t *testing.T, f *fixture, c *caseRef) {
				createTenant("ordered")(t, f, c)
				for _, u := range []string{"zed", "amy"} {
					mustStatus(t, f.as(t, tenantOwner, "POST", "/tenant/ordered/users", map[string]any{"userId": u, "isOwner": true}, c), 204)
				}
			}},

		{caller: tenantUser, method: "GET", path: "/tenant/{tenant}/users", status: 200, json: list{elem: tenantUserShape, n: 5}},
		{caller: caseOwner, method: "GET", path: "/tenant/{tenant}/users", status: 200, json: list{elem: tenantUserShape, n: 5}},
		{caller: nonMember, method: "GET", path: "/tenant/{tenant}/users", status: 404,
			text: "Tenant 'compat' does not exist, or user 'nina' is not registered in it"},
		{caller: tenantUser, method: "GET", path: "/tenant/{tenant}/users/tom", status: 200, json: tenantUserShape, exact: tom},
		{caller: tenantUser, method: "GET", path: "/tenant/{tenant}/users/nobody", status: 404, text: "A user with id 'nobody' cannot be found."},
		{name: "(disabled)", caller: tenantUser, method: "GET", path: "/tenant/{tenant}/users/dan", status: 404,
			text: "The requested resource could not be found but may be available again in the future."},
		{caller: platformOwner, method: "GET", path: "/tenant/{tenant}/users/tom", status: 404,
			text: "Tenant 'compat' does not exist, or user 'admin' is not registered in it"},
		{caller: tenantUser, method: "GET", path: "/tenant/{tenant}/disabled-accounts", status: 200, json: list{elem: tenantUserShape, n: 1},
			exact: `[{"userId":"dan","roles":[],"tenant":"compat","name":"","email":"","isOwner":false,"enabled":false}]`},
		{caller: nonMember, method: "GET", path: "/tenant/{tenant}/disabled-accounts", status: 404,
			text: "Tenant 'compat' does not exist, or user 'nina' is not registered in it"},

		// Changes: owners only; the set of enabled owners never empties.
		{caller: tenantOwner, method: "POST", path: "/tenant/{tenant}/users", body: map[string]any{"userId": "newbie", "roles": []string{"ops"}},
			status: 204, lastModified: "Tenant"},
		{caller: tenantOwner, method: "PUT", path: "/tenant/{tenant}/users", body: map[string]any{"userId": "newbie", "name": "New"},
			status: 204, lastModified: "Tenant"},
		{caller: tenantUser, method: "POST", path: "/tenant/{tenant}/users", body: map[string]any{"userId": "x"},
			status: 401, text: "You do not have the privileges to perform this action"},
		{caller: nonMember, method: "POST", path: "/tenant/{tenant}/users", body: map[string]any{"userId": "x"},
			status: 404, text: "Tenant 'compat' does not exist, or user 'nina' is not registered in it"},
		{name: "last owner", caller: tenantOwner, method: "POST", path: "/tenant/{tenant}/users", body: map[string]any{"userId": "tom", "isOwner": false},
			status: 400, text: lastOwner},
		{name: "last owner disabled", caller: tenantOwner, method: "PUT", path: "/tenant/{tenant}/users", body: map[string]any{"userId": "tom", "isOwner": true, "enabled": false},
			status: 400, text: lastOwner},
		{name: "wrong content type", caller: tenantOwner, method: "POST", path: "/tenant/{tenant}/users", body: `{"userId":"x"}`, ctype: "text/plain",
			status: 400, text: "The request content type Some(text/plain) is not supported, provide one of Set(application/json)"},
		{name: "malformed", caller: tenantOwner, method: "POST", path: "/tenant/{tenant}/users", body: `{"userId":1}`, ctype: "application/json",
			status: 400, text: "The request content was malformed: ", prefix: true},
		{caller: tenantOwner, method: "DELETE", path: "/tenant/{tenant}/users/newbie", status: 204, lastModified: "Tenant"},
		{name: "unknown user", caller: tenantOwner, method: "DELETE", path: "/tenant/{tenant}/users/nobody", status: 204},
		{name: "last owner", caller: tenantOwner, method: "DELETE", path: "/tenant/{tenant}/users/tom", status: 400, text: lastOwner},
		{caller: tenantUser, method: "DELETE", path: "/tenant/{tenant}/users/mike", status: 401, text: "You do not have the privileges to perform this action"},

		// POST|PUT /tenant/{t}: replace the whole user list.
		{caller: tenantOwner, method: "POST", path: "/tenant/{tenant}", body: map[string]any{"users": allUsers}, status: 204, lastModified: "Tenant"},
		{caller: tenantOwner, method: "PUT", path: "/tenant/{tenant}", body: map[string]any{"name": tenant, "users": allUsers}, status: 204, lastModified: "Tenant"},
		{caller: tenantUser, method: "POST", path: "/tenant/{tenant}", body: map[string]any{"users": allUsers},
			status: 401, text: "You do not have the privileges to perform this action"},
		{name: "no users", caller: tenantOwner, method: "POST", path: "/tenant/{tenant}", body: map[string]any{"users": []any{}},
			status: 400, text: "Setting tenant requires a list of users with at least one owner"},
		{name: "no owner", caller: tenantOwner, method: "PUT", path: "/tenant/{tenant}", body: map[string]any{"users": []map[string]any{{"userId": "tom"}}},
			status: 400, text: "Cannot set tenant without active tenant owners"},
		{name: "duplicates", caller: tenantOwner, method: "POST", path: "/tenant/{tenant}",
			body:   map[string]any{"users": []map[string]any{{"userId": "tom", "isOwner": true}, {"userId": "tom"}}},
			status: 400, text: "Tenant contains duplicate user entries: ['tom']"},
		{name: "the user list is as replaced", caller: tenantUser, method: "GET", path: "/tenant/{tenant}/users", status: 200,
			json: list{elem: tenantUserShape, n: 5}},
	})
}
