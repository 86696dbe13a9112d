package rest_test

import (
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

type teamResponse struct {
	Users []struct {
		UserID    string   `json:"userId"`
		Origin    string   `json:"origin"`
		IsOwner   bool     `json:"isOwner"`
		CaseRoles []string `json:"caseRoles"`
	} `json:"users"`
	TenantRoles []struct {
		TenantRole string   `json:"tenantRole"`
		IsOwner    bool     `json:"isOwner"`
		CaseRoles  []string `json:"caseRoles"`
	} `json:"tenantRoles"`
	CaseRoles       []string `json:"caseRoles"`
	UnassignedRoles []string `json:"unassignedRoles"`
}

func getTeam(t *testing.T, env *servertest.Env, user, id string) teamResponse {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/caseteam", User: user})
	expect(t, resp, 200, "")
	var team teamResponse
	resp.JSON(t, &team)
	return team
}

func TestCaseTeamRoutes(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		team := getTeam(t, env, "bob", id)
		if len(team.Users) != 2 || len(team.UnassignedRoles) != 0 || len(team.CaseRoles) != 2 {
			t.Fatalf("team = %+v", team)
		}
		path := "/cases/" + id + "/caseteam"
		do := func(user, method, p string, body any) *servertest.Response {
			return env.Do(servertest.Request{Method: method, Path: path + p, User: user, Body: body})
		}

		// Only owners change the team; non-members do not see it at all.
		expect(t, do("bob", "POST", "/users", map[string]any{"userId": "dan"}), 401, "Only case team owners can perform this action")
		expect(t, do("bob", "DELETE", "/users/alice", nil), 401, "Only case team owners can perform this action")
		expect(t, do("zed", "GET", "", nil), 404, "A case with id '"+id+"' cannot be found.")
		expect(t, do("zed", "POST", "/users", map[string]any{"userId": "zed", "isOwner": true}), 404, "A case with id '"+id+"' cannot be found.")

		// Typed sub-resources.
		expect(t, do("alice", "POST", "/users", map[string]any{"userId": "dan", "caseRoles": []string{"Clerk"}}), 200, "{}")
		expect(t, do("alice", "POST", "/tenant-roles", map[string]any{"tenantRole": "clerk", "caseRoles": []string{"Clerk"}}), 200, "{}")
		expect(t, do("alice", "POST", "/users", map[string]any{"userId": "dan", "caseRoles": []string{"Pilot"}}), 400,
			"The following role(s) are not defined in the case: Pilot")
		expect(t, do("alice", "POST", "/users", map[string]any{"caseRoles": []string{"Clerk"}}), 400,
			"The request content was malformed: Case team users must have a userId")
		team = getTeam(t, env, "dan", id)
		if len(team.Users) != 3 || len(team.TenantRoles) != 1 || team.TenantRoles[0].TenantRole != "clerk" || team.Users[2].Origin != "IDP" {
			t.Fatalf("team after adds = %+v", team)
		}

		// The last owner cannot go, neither removed nor by dropping ownership.
		expect(t, do("alice", "DELETE", "/users/alice", nil), 400, "Cannot remove the last case owner")
		expect(t, do("alice", "POST", "/users", map[string]any{"userId": "alice", "caseRoles": []string{"Reviewer"}}), 400, "Cannot remove the last case owner")
		expect(t, do("alice", "PUT", "", map[string]any{"memberId": "alice", "isOwner": false}), 400, "Cnanot remove last owner")
		expect(t, do("alice", "DELETE", "/users/nobody", nil), 400, "The case team does not have a TenantRole with id nobody")
		expect(t, do("alice", "DELETE", "/tenant-roles/nobody", nil), 400, "The case team does not have a TenantRole with id nobody")
		expect(t, do("alice", "DELETE", "/groups/g1", nil), 400, "The case team does not have a TenantRole with id g1")
		expect(t, do("alice", "POST", "/groups", map[string]any{"groupId": "g1", "mappings": []any{}}), 404, "Cannot find a consent group with id 'g1'")

		// The deprecated upsert: add roles, remove roles, ownership only when given.
		expect(t, do("alice", "PUT", "", []map[string]any{{"memberId": "bob", "caseRoles": []string{"Reviewer"}, "removeRoles": []string{"Clerk"}}}), 200, "{}")
		expect(t, do("alice", "PUT", "", map[string]any{"memberId": "clerk", "memberType": "role", "isOwner": true}), 200, "{}")
		team = getTeam(t, env, "bob", id)
		for _, u := range team.Users {
			if u.UserID == "bob" && (len(u.CaseRoles) != 1 || u.CaseRoles[0] != "Reviewer" || u.IsOwner) {
				t.Fatalf("bob after upsert = %+v", u)
			}
		}
		if !team.TenantRoles[0].IsOwner || team.TenantRoles[0].CaseRoles[0] != "Clerk" {
			t.Fatalf("clerk role after upsert = %+v", team.TenantRoles[0])
		}
		// Legacy delete with ?type= and ?memberType=; any type but role
		// names a user, as in the reference engine.
		expect(t, do("alice", "DELETE", "/dan?type=alien", nil), 200, "{}")
		expect(t, do("alice", "DELETE", "/clerk?memberType=role", nil), 200, "{}")
		team = getTeam(t, env, "bob", id)
		for _, u := range team.Users {
			if u.UserID == "dan" || len(team.TenantRoles) != 0 {
				t.Fatalf("team after the legacy deletes = %+v", team)
			}
		}

		// Replace the whole team, in the reference's format and in the seed's.
		expect(t, do("alice", "POST", "", map[string]any{"users": []map[string]any{}}), 400, "The new case team cannot be empty")
		expect(t, do("alice", "POST", "", map[string]any{"users": []map[string]any{{"userId": "bob"}}}), 400, "The new case team must have owners")
		expect(t, do("alice", "POST", "", []map[string]any{{"memberId": "bob", "isOwner": true, "caseRoles": []string{"Clerk"}}}), 200, "{}")
		expect(t, do("alice", "GET", "", nil), 404, "A case with id '"+id+"' cannot be found.")
		team = getTeam(t, env, "bob", id)
		if len(team.Users) != 1 || team.Users[0].UserID != "bob" || !team.Users[0].IsOwner || len(team.UnassignedRoles) != 1 {
			t.Fatalf("replaced team = %+v", team)
		}
	})
}

// TestTenantRoleMembership: a tenant role in the team admits every user
// holding it in the case's tenant, and only while they hold it.
// A team read with GET and posted back unchanged is the same team: the
// computed caseRoles and unassignedRoles of the answer are accepted.
func TestCaseTeamEchoedBack(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/caseteam", User: "alice"})
		expect(t, resp, 200, "")
		before := resp.Body
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/cases/" + id + "/caseteam", User: "alice", Body: before}), 200, "{}")
		if after := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/caseteam", User: "alice"}).Body; after != before {
			t.Errorf("team after echo = %s, want %s", after, before)
		}
	})
}

func TestTenantRoleMembership(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/cases/" + id + "/caseteam/tenant-roles", User: "alice",
			Body: map[string]any{"tenantRole": "inspector"}}), 200, "{}")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "ivy"}), 404, "")

		// ivy joins the tenant with the role: she is in the team.
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice",
			Body: map[string]any{"userId": "ivy", "roles": []string{"inspector"}}}), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "ivy"}), 200, "")
		var list []map[string]any
		resp := env.Do(servertest.Request{Method: "GET", Path: "/cases", User: "ivy"})
		resp.JSON(t, &list)
		if len(list) != 1 {
			t.Fatalf("ivy's cases = %s", resp.Body)
		}
		// The same role name in another tenant does not count.
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/platform", User: admin,
			Body: tenantBody("other", user{UserID: "olga", IsOwner: true, Roles: []string{"inspector"}})}), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "olga"}), 404, "")

		// ivy loses the role, or her account is disabled: she is out.
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice",
			Body: map[string]any{"userId": "ivy", "roles": []string{}}}), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "ivy"}), 404, "")
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice",
			Body: map[string]any{"userId": "ivy", "roles": []string{"inspector"}, "enabled": false}}), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "ivy"}), 401, "The user account ivy has been disabled")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases", User: "ivy"}), 200, "[]")
	})
}
