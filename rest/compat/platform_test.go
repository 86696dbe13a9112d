package compat_test

import (
	"net/http"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

var (
	healthShape  = obj{"Status": is{"OK"}, "Description": "string", "measure-points": listOf("object")}
	versionShape = obj{"name": "string", "organization": "string", "version": "string", "description": "string",
		"gitHeadCommit": "string", "gitCurrentBranch": "string", "gitUncommittedChanges": "boolean|string",
		"builtAtString": "string", "builtAtMillis": "number"}
)

// createTenant makes a tenant of one owner, tom, for rows that change a
// tenant other than the fixture's.
func createTenant(name string, users ...map[string]any) func(t *testing.T, f *fixture, c *caseRef) {
	return func(t *testing.T, f *fixture, c *caseRef) {
		if len(users) == 0 {
			users = []map[string]any{{"userId": "tom", "isOwner": true}}
		}
		mustStatus(t, f.env.Do(servertest.Request{Method: "POST", Path: "/platform", User: servertest.PlatformOwner,
			Body: map[string]any{"name": name, "users": users}}), http.StatusNoContent)
	}
}

func tenantLastModified(id string) func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
	return func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
		checkLastModified(t, resp, "Tenant-Last-Modified", id)
	}
}

func TestPlatform(t *testing.T) {
	owner := func(id string) map[string]any { return map[string]any{"userId": id, "isOwner": true} }
	newTenant := func(name string) map[string]any {
		return map[string]any{"name": name, "users": []map[string]any{owner("tom"), {"userId": "tess", "roles": []string{"ops"}}}}
	}
	forEachDB(t, []row{
		// §1.1 health and version, at the root and under /platform, open.
		{caller: noToken, method: "GET", path: "/status", status: 200, text: "OK"},
		{caller: noToken, method: "GET", path: "/platform/status", status: 200, text: "OK"},
		{caller: noToken, method: "GET", path: "/health", status: 200, json: healthShape},
		{caller: noToken, method: "GET", path: "/platform/health", status: 200, json: healthShape},
		{caller: noToken, method: "GET", path: "/version", status: 200, json: versionShape},
		{caller: noToken, method: "GET", path: "/platform/version", status: 200, json: versionShape},

		// GET /platform/user: any valid token.
		{caller: caseMember, method: "GET", path: "/platform/user", status: 200, json: platformUserShape,
			exact: `{"userId":"mike","tenants":[{"userId":"mike","roles":[],"tenant":"compat","name":"","email":"","isOwner":false,"enabled":true}],"groups":[]}`},
		{caller: tenantOwner, method: "GET", path: "/platform/user", status: 200, json: platformUserShape,
			exact: `{"userId":"tom","tenants":[{"userId":"tom","roles":["ops"],"tenant":"compat","name":"Tom","email":"tom@example.com","isOwner":true,"enabled":true}],"groups":[]}`},
		{name: "(in no tenant)", caller: platformOwner, method: "GET", path: "/platform/user", status: 200, exact: `{"userId":"admin","tenants":[],"groups":[]}`},
		{name: "(in no tenant)", caller: nonMember, method: "GET", path: "/platform/user", status: 200, exact: `{"userId":"nina","tenants":[],"groups":[]}`},
		{caller: noToken, method: "GET", path: "/platform/user", status: 401, text: "Authorization token is missing"},
		{caller: emptySub, method: "GET", path: "/platform/user", status: 200, exact: `{"userId":"","tenants":[],"groups":[]}`},
		{caller: emptySub, method: "POST", path: "/cases", body: startBody("compat"), status: 400,
			text: "User information is missing in command of type StartCase"},

		// POST /platform: platform owners create tenants.
		{caller: platformOwner, method: "POST", path: "/platform", body: newTenant("t1"), status: 204, after: tenantLastModified("t1")},
		{caller: platformOwner, method: "POST", path: "/platform/", body: newTenant("t2"), status: 204, after: tenantLastModified("t2")},
		{caller: tenantOwner, method: "POST", path: "/platform", body: newTenant("t3"), status: 401, text: "Only platform owners can access this route"},
		{caller: caseOwner, method: "POST", path: "/platform", body: newTenant("t3"), status: 401, text: "Only platform owners can access this route"},
		{name: "no users", caller: platformOwner, method: "POST", path: "/platform", body: map[string]any{"name": "t3", "users": []any{}},
			status: 400, text: "Setting tenant requires a list of users with at least one owner"},
		{name: "duplicate users", caller: platformOwner, method: "POST", path: "/platform",
			body:   map[string]any{"name": "t3", "users": []map[string]any{owner("a"), {"userId": "b"}, {"userId": "a"}}},
			status: 400, text: "Tenant contains duplicate user entries: ['a']"},
		{name: "no owner", caller: platformOwner, method: "POST", path: "/platform", body: map[string]any{"name": "t3", "users": []map[string]any{{"userId": "a"}}},
			status: 400, text: "Cannot set tenant without active tenant owners"},
		{name: "only a disabled owner", caller: platformOwner, method: "POST", path: "/platform",
			body:   map[string]any{"name": "t3", "users": []map[string]any{{"userId": "a", "isOwner": true, "enabled": false}}},
			status: 400, text: "Cannot set tenant without active tenant owners"},
		{name: "user without id", caller: platformOwner, method: "POST", path: "/platform",
			body: map[string]any{"name": "t3", "users": []map[string]any{{"isOwner": true}}}, status: 400, text: "Tenant users must have a userId"},
		{name: "null roles", caller: platformOwner, method: "POST", path: "/platform",
			body: `{"name":"t3","users":[{"userId":"a","isOwner":true,"roles":null}]}`, ctype: "application/json",
			status: 400, text: "Roles cannot be null"},
		{name: "existing tenant", caller: platformOwner, method: "POST", path: "/platform", body: newTenant(tenant),
			status: 400, text: "Failure while handling message CreateTenant. Check the server logs for more details", prefix: true},
		{name: "unknown field", caller: platformOwner, method: "POST", path: "/platform", body: `{"name":"t3","users":[],"owners":["x"]}`,
			ctype: "application/json", status: 400, text: `The request content was malformed: Unrecognized field "owners"`, prefix: true},
		{name: "malformed", caller: platformOwner, method: "POST", path: "/platform", body: `{"name":`, ctype: "application/json",
			status: 400, text: "The request content was malformed: ", prefix: true},
		{name: "wrong content type", caller: platformOwner, method: "POST", path: "/platform", body: `{"name":"t3"}`, ctype: "text/plain; charset=UTF-8",
			status: 400, text: "The request content type Some(text/plain; charset=UTF-8) is not supported, provide one of Set(application/json)"},

		// PUT /platform/{tenant}/disable|enable: platform owners.
		{caller: tenantOwner, method: "PUT", path: "/platform/{tenant}/disable", status: 401, text: "Only platform owners can access this route"},
		{caller: tenantOwner, method: "PUT", path: "/platform/{tenant}/enable", status: 401, text: "Only platform owners can access this route"},
		{caller: platformOwner, method: "PUT", path: "/platform/spare1/disable", status: 204,
			before: createTenant("spare1"), after: tenantLastModified("spare1")},
		{caller: platformOwner, method: "PUT", path: "/platform/spare2/enable", status: 204,
			before: func(t *testing.T, f *fixture, c *caseRef) {
				createTenant("spare2")(t, f, c)
				mustStatus(t, f.as(t, platformOwner, "PUT", "/platform/spare2/disable", nil, c), 204)
			},
			after: func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
				checkLastModified(t, resp, "Tenant-Last-Modified", "spare2")
				mustStatus(t, f.as(t, tenantOwner, "GET", "/tenant/spare2/owners", nil, c), 200)
			}},
		{name: "then the tenant is gone", caller: tenantOwner, method: "GET", path: "/tenant/spare3/owners", status: 404,
			text: "Tenant 'spare3' does not exist, or user 'tom' is not registered in it",
			before: func(t *testing.T, f *fixture, c *caseRef) {
				createTenant("spare3")(t, f, c)
				mustStatus(t, f.as(t, platformOwner, "PUT", "/platform/spare3/disable", nil, c), 204)
			}},
		{name: "unknown tenant", caller: platformOwner, method: "PUT", path: "/platform/nosuch/disable", status: 400, text: "Expected bootstrap command", prefix: true},
		{name: "unknown tenant", caller: platformOwner, method: "PUT", path: "/platform/nosuch/enable", status: 400, text: "Expected bootstrap command", prefix: true},
	})
}
