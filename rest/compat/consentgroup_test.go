package compat_test

import (
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// groupLastModified checks the Consent-Group-Last-Modified of a command on
// group id.
func groupLastModified(id string) func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
	return func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
		t.Helper()
		checkLastModified(t, resp, "Consent-Group-Last-Modified", id)
	}
}

// groupIs reads group id as user and compares it with want, after a
// change: the change is in the database when the answer is sent.
func groupIs(user caller, id, want string) func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
	return func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
		t.Helper()
		checkLastModified(t, resp, "Consent-Group-Last-Modified", id)
		got := f.as(t, user, "GET", "/consent-group/"+id, nil, c)
		row{status: 200, exact: want}.check(t, c, got)
	}
}

// TestConsentGroup holds §1.2's last row and §1.3: tenant owners create
// groups; members read them, others get the same 404 an unknown id gets;
// group owners change them, other members get 401; a group keeps an owner.
func TestConsentGroup(t *testing.T) {
	const (
		accepted   = "The request has been accepted for processing, but the processing has not been completed."
		notOwner   = "You do not have the privileges to perform this action"
		hidden     = "A consent group with id 'grp' cannot be found."
		lastOwner  = "Cannot remove group ownership of user carla. There must be at least one group owner."
		noUserID   = "Consent group users must have a userId"
		noOwner    = "Consent group must have at least one owner"
		noMembers  = "Consent group must have members"
		duplicates = "Consent group contains duplicate user entries: ['mike']"
		created    = `{"groupId":"grp","tenant":"compat","members":[` +
			`{"userId":"carla","isOwner":true,"roles":["lead"]},{"userId":"mike","isOwner":false,"roles":["clerk"]}]}`
	)
	grp := map[string]any{"id": "grp", "members": []map[string]any{
		{"userId": "carla", "isOwner": true, "roles": []string{"lead"}},
		{"userId": "mike", "roles": []string{"clerk"}},
	}}
	members := func(m ...map[string]any) map[string]any { return map[string]any{"members": m} }
	groupShape := obj{"groupId": "string", "tenant": "string", "members": listOf(obj{"userId": "string", "isOwner": "boolean", "roles": listOf("string")})}
	forEachDB(t, []row{
		// Creation: tenant owners, in their tenant.
		{caller: tenantOwner, method: "POST", path: "/tenant/{tenant}/consent-groups", body: grp, status: 200,
			exact: `{"groupId":"grp"}`, after: groupLastModified("grp")},
		{name: "exists", caller: tenantOwner, method: "POST", path: "/tenant/{tenant}/consent-groups", body: grp, status: 400,
			text: "Failure while handling message CreateConsentGroup. Check the server logs for more details. Consent group already exists"},
		{name: "generated id", caller: tenantOwner, method: "POST", path: "/tenant/{tenant}/consent-groups",
			body: members(map[string]any{"userId": "tom", "isOwner": true}), status: 200, json: obj{"groupId": "string"}},
		{caller: tenantUser, method: "POST", path: "/tenant/{tenant}/consent-groups", body: grp, status: 401,
			text: "Only tenant owners can create consent groups"},
		{caller: nonMember, method: "POST", path: "/tenant/{tenant}/consent-groups", body: grp, status: 404,
			text: "Tenant 'compat' does not exist, or user 'nina' is not registered in it"},
		{name: "no members", caller: tenantOwner, method: "POST", path: "/tenant/{tenant}/consent-groups",
			body: members(), status: 400, text: noMembers},
		{name: "no owner", caller: tenantOwner, method: "POST", path: "/tenant/{tenant}/consent-groups",
			body: members(map[string]any{"userId": "mike"}), status: 400, text: noOwner},
		{name: "duplicates", caller: tenantOwner, method: "POST", path: "/tenant/{tenant}/consent-groups",
			body:   members(map[string]any{"userId": "tom", "isOwner": true}, map[string]any{"userId": "mike"}, map[string]any{"userId": "mike"}),
			status: 400, text: duplicates},
		{name: "no userId", caller: tenantOwner, method: "POST", path: "/tenant/{tenant}/consent-groups",
			body: members(map[string]any{"roles": []string{"x"}, "isOwner": true}), status: 400, text: noUserID},
		{name: "bad id", caller: tenantOwner, method: "POST", path: "/tenant/{tenant}/consent-groups",
			body: map[string]any{"id": "a/b", "members": []map[string]any{{"userId": "tom", "isOwner": true}}}, status: 400,
			text: "Invalid consent group id 'a/b': ", prefix: true},
		{name: "unknown field", caller: tenantOwner, method: "POST", path: "/tenant/{tenant}/consent-groups",
			body: map[string]any{"members": []map[string]any{{"userId": "tom", "isOwner": true, "owner": true}}}, status: 400,
			text: "The request content was malformed: ", prefix: true},

		// Reading: members only; existence is hidden from everyone else.
		{caller: caseOwner, method: "GET", path: "/consent-group/grp", status: 200, json: groupShape, exact: created},
		{caller: caseMember, method: "GET", path: "/consent-group/grp", status: 200, json: groupShape, exact: created},
		{caller: tenantOwner, method: "GET", path: "/consent-group/grp", status: 404, text: hidden},
		{caller: nonMember, method: "GET", path: "/consent-group/grp", status: 404, text: hidden},
		{name: "unknown", caller: caseOwner, method: "GET", path: "/consent-group/nosuch", status: 404,
			text: "A consent group with id 'nosuch' cannot be found."},
		{caller: caseMember, method: "GET", path: "/consent-group/grp/members/carla", status: 200,
			exact: `{"userId":"carla","isOwner":true,"roles":["lead"]}`},
		{name: "unknown member", caller: caseMember, method: "GET", path: "/consent-group/grp/members/nobody", status: 404,
			text: "A consent group member with user id 'nobody' cannot be found."},
		{caller: tenantOwner, method: "GET", path: "/consent-group/grp/members/carla", status: 404, text: hidden},
		{caller: caseMember, method: "GET", path: "/platform/user", status: 200, json: platformUserShape,
			exact: `{"userId":"mike","tenants":[{"userId":"mike","roles":[],"tenant":"compat","name":"","email":"","isOwner":false,"enabled":true}],` +
				`"groups":[{"groupId":"grp","isOwner":false,"roles":["clerk"]}]}`},

		// Members: group owners change them; the group keeps an owner.
		{caller: caseOwner, method: "POST", path: "/consent-group/grp/members", body: map[string]any{"userId": "abe", "roles": []string{"clerk", "lead"}},
			status: 202, text: accepted, after: groupIs(caseOwner, "grp", `{"groupId":"grp","tenant":"compat","members":[`+
				`{"userId":"abe","isOwner":false,"roles":["clerk","lead"]},{"userId":"carla","isOwner":true,"roles":["lead"]},`+
				`{"userId":"mike","isOwner":false,"roles":["clerk"]}]}`)},
		{caller: caseMember, method: "POST", path: "/consent-group/grp/members", body: map[string]any{"userId": "abe"}, status: 401, text: notOwner},
		{caller: tenantOwner, method: "POST", path: "/consent-group/grp/members", body: map[string]any{"userId": "abe"}, status: 404, text: hidden},
		{name: "last owner", caller: caseOwner, method: "POST", path: "/consent-group/grp/members", body: map[string]any{"userId": "carla"},
			status: 400, text: lastOwner},
		{name: "no userId", caller: caseOwner, method: "POST", path: "/consent-group/grp/members", body: map[string]any{"roles": []string{"x"}},
			status: 400, text: noUserID},
		{caller: caseMember, method: "DELETE", path: "/consent-group/grp/members/abe", status: 401, text: notOwner},
		{caller: nonMember, method: "DELETE", path: "/consent-group/grp/members/abe", status: 404, text: hidden},
		{caller: caseOwner, method: "DELETE", path: "/consent-group/grp/members/abe", status: 202, text: accepted,
			after: groupIs(caseOwner, "grp", created)},
		{name: "last owner", caller: caseOwner, method: "DELETE", path: "/consent-group/grp/members/carla", status: 400, text: lastOwner},

		// Replacing the whole group: group owners; it needs members and an owner.
		{caller: caseMember, method: "POST", path: "/consent-group/grp", body: grp, status: 401, text: notOwner},
		{caller: tenantOwner, method: "POST", path: "/consent-group/grp", body: grp, status: 404, text: hidden},
		{name: "no members", caller: caseOwner, method: "POST", path: "/consent-group/grp", body: members(), status: 400, text: noMembers},
		{name: "no owner", caller: caseOwner, method: "POST", path: "/consent-group/grp", body: members(map[string]any{"userId": "carla"}),
			status: 400, text: noOwner},
		{name: "duplicates", caller: caseOwner, method: "POST", path: "/consent-group/grp",
			body:   members(map[string]any{"userId": "carla", "isOwner": true}, map[string]any{"userId": "mike"}, map[string]any{"userId": "mike"}),
			status: 400, text: duplicates},
		{caller: caseOwner, method: "POST", path: "/consent-group/grp",
			body:   members(map[string]any{"userId": "mike", "isOwner": true}, map[string]any{"userId": "carla", "roles": []string{"lead"}}),
			status: 202, text: accepted, after: groupIs(caseMember, "grp", `{"groupId":"grp","tenant":"compat","members":[`+
				`{"userId":"carla","isOwner":false,"roles":["lead"]},{"userId":"mike","isOwner":true,"roles":[]}]}`)},
		{name: "no longer owner", caller: caseOwner, method: "DELETE", path: "/consent-group/grp/members/mike", status: 401, text: notOwner},

		// The header is accepted on any request, and refused when malformed.
		{name: "with header", caller: caseMember, method: "GET", path: "/consent-group/grp/members/mike", status: 200,
			header: map[string]string{"Consent-Group-Last-Modified": "2024-05-06T17:06:12.113204800Z;grp"},
			exact:  `{"userId":"mike","isOwner":true,"roles":[]}`},
		{name: "malformed header", caller: caseMember, method: "GET", path: "/consent-group/grp", status: 400,
			header: map[string]string{"Consent-Group-Last-Modified": "yesterday"},
			text:   "Header Consent-Group-Last-Modified has invalid content. Reason: ", prefix: true},
	})
}
