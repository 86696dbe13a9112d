package rest_test

import (
	"sort"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// setupGroupInbox starts an inbox case (three role-less chores, Approve
// for role Approver) whose team is alice, its owner without case roles,
// and consent group "reviewers", whose holders of group role approver
// act as Approver. gwen owns the group, gina holds approver, gus holds
// only other, carol (disabled in acme) holds approver; nick is a tenant
// user outside both. Approver is thus filled only through the group.
func setupGroupInbox(t *testing.T, env *servertest.Env) string {
	t.Helper()
	createTenant(t, env, "acme")
	for _, u := range []string{"gina", "gus", "gwen", "nick"} {
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice",
			Body: map[string]any{"userId": u}}), 204, "")
	}
	createGroup(t, env, "acme", "reviewers",
		map[string]any{"userId": "gwen", "isOwner": true},
		map[string]any{"userId": "gina", "roles": []string{"approver"}},
		map[string]any{"userId": "gus", "roles": []string{"other"}},
		map[string]any{"userId": "carol", "roles": []string{"approver"}})
	expect(t, deploy(env, "alice", "inbox.xml", readModel(t, "inbox.xml")), 204, "")
	resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: map[string]any{
		"definition": "inbox", "tenant": "acme", "caseTeam": map[string]any{
			"users": []map[string]any{{"userId": "alice", "isOwner": true}},
			"groups": []map[string]any{{"groupId": "reviewers", "mappings": []map[string]any{
				{"groupRole": "approver", "caseRoles": []string{"Approver"}}}}},
		}}})
	expect(t, resp, 200, "")
	var started struct{ CaseInstanceID string }
	resp.JSON(t, &started)
	return started.CaseInstanceID
}

// inboxNames lists the task names user sees in GET /tasks, sorted.
func inboxNames(t *testing.T, env *servertest.Env, user string) []string {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "GET", Path: "/tasks", User: user})
	expect(t, resp, 200, "")
	var tasks []struct{ TaskName string }
	resp.JSON(t, &tasks)
	names := []string{}
	for _, tk := range tasks {
		names = append(names, tk.TaskName)
	}
	sort.Strings(names)
	return names
}

func groupTaskCount(t *testing.T, env *servertest.Env, user string) string {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "GET", Path: "/tasks/user/count", User: user})
	expect(t, resp, 200, "")
	return resp.Body
}

// TestGroupMemberAuthorization is the authorization matrix of a consent
// group in a case team (reference §2.4): a group member with the mapped
// group role, one without it, the group's owner, the case owner and a
// stranger; the inbox and the counts of each come only through the group.
func TestGroupMemberAuthorization(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupGroupInbox(t, env)
		notFound := "A case with id '" + id + "' cannot be found."
		for _, tc := range []struct {
			user   string
			status int
			inbox  string
			count  string
		}{
			{"alice", 200, "[Approve Chore A Chore B Chore C]", `{"claimed":0,"unclaimed":3}`}, // owner: sees all, counts no role it lacks
			{"gina", 200, "[Approve Chore A Chore B Chore C]", `{"claimed":0,"unclaimed":4}`},  // holds approver
			{"gwen", 200, "[Approve Chore A Chore B Chore C]", `{"claimed":0,"unclaimed":4}`},  // group owner: every mapping
			{"gus", 404, "[]", `{"claimed":0,"unclaimed":0}`},                                  // in the group, not the role
			{"nick", 404, "[]", `{"claimed":0,"unclaimed":0}`},                                 // stranger
			{"carol", 401, "[]", `{"claimed":0,"unclaimed":0}`},                                // disabled account
		} {
			resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: tc.user})
			if resp.Status != tc.status {
				t.Errorf("%s reads the case: %d %q, want %d", tc.user, resp.Status, resp.Body, tc.status)
			}
			if got := fmtNames(inboxNames(t, env, tc.user)); got != tc.inbox {
				t.Errorf("%s's inbox %s, want %s", tc.user, got, tc.inbox)
			}
			if got := groupTaskCount(t, env, tc.user); got != tc.count {
				t.Errorf("%s's count %s, want %s", tc.user, got, tc.count)
			}
		}
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "gus"}), 404, notFound)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases", User: "carol"}), 200, "[]")

		approve := taskNamed(t, env, "gina", id, "Approve")
		// The case owner does not manage a role filled only through groups.
		expect(t, taskDo(env, "alice", "PUT", approve.ID, "claim", nil), 401, noPermission("ClaimTask", approve.ID))
		expect(t, taskDo(env, "gus", "PUT", approve.ID, "claim", nil), 404, "A task with id '"+approve.ID+"' cannot be found.")
		expect(t, taskDo(env, "gina", "PUT", approve.ID, "claim", nil), 202, "{}")
		expect(t, taskDo(env, "gina", "PUT", approve.ID, "revoke", nil), 202, "{}")
		expect(t, taskDo(env, "gwen", "PUT", approve.ID, "claim", nil), 202, "{}")
		if got := groupTaskCount(t, env, "gwen"); got != `{"claimed":1,"unclaimed":3}` {
			t.Errorf("gwen's count after her claim %s", got)
		}
		// Only case owners change the team: group members acting through
		// a mapping without ownership may not.
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/cases/" + id + "/caseteam/users/alice", User: "gina"}), 401,
			"Only case team owners can perform this action")

		// Once a user member holds Approver too, the case owner manages it.
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/cases/" + id + "/caseteam/users", User: "alice",
			Body: map[string]any{"userId": "bob", "caseRoles": []string{"Approver"}}}), 200, "{}")
		expect(t, taskDo(env, "alice", "PUT", approve.ID, "claim", nil), 202, "{}")
	})
}

// TestGroupMemberLosesCase: a user removed from the group, or who loses
// the mapped group role, loses the case at once; so does a group member
// whose account is disabled; ownership through a group mapping counts for
// the last-owner rule and lets its holders change the team.
func TestGroupMemberLosesCase(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupGroupInbox(t, env)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "gina"}), 200, "")
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/consent-group/reviewers/members", User: "gwen",
			Body: map[string]any{"userId": "gina", "roles": []string{"other"}}}), 202, groupAccepted)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "gina"}), 404, "")
		if got := fmtNames(inboxNames(t, env, "gina")); got != "[]" {
			t.Errorf("gina's inbox without the role %s", got)
		}
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/consent-group/reviewers/members", User: "gwen",
			Body: map[string]any{"userId": "gina", "roles": []string{"approver"}}}), 202, groupAccepted)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "gina"}), 200, "")
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/consent-group/reviewers/members/gina", User: "gwen"}), 202, groupAccepted)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "gina"}), 404, "")
		if got := groupTaskCount(t, env, "gina"); got != `{"claimed":0,"unclaimed":0}` {
			t.Errorf("gina's count out of the group %s", got)
		}

		// gwen disabled in acme: her group ownership gives nothing.
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice",
			Body: map[string]any{"userId": "gwen", "enabled": false}}), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "gwen"}), 401, "The user account gwen has been disabled")
		if got := fmtNames(inboxNames(t, env, "gwen")); got != "[]" {
			t.Errorf("disabled gwen's inbox %s", got)
		}

		// A group mapping that makes owners: alice may leave, the group
		// keeps the team owned, and its holders manage the team.
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/cases/" + id + "/caseteam/groups", User: "alice",
			Body: map[string]any{"groupId": "reviewers", "mappings": []map[string]any{
				{"groupRole": "other", "isOwner": true}, {"groupRole": "approver", "caseRoles": []string{"Approver"}}}}}), 200, "{}")
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/cases/" + id + "/caseteam/users/alice", User: "gus"}), 200, "{}")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "alice"}), 404, "")
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/cases/" + id + "/caseteam/groups/reviewers", User: "gus"}), 400,
			"Cannot remove the last case owner")
		team := getTeam(t, env, "gus", id)
		if len(team.Users) != 0 || len(team.UnassignedRoles) != 0 {
			t.Errorf("team after alice left: %+v", team)
		}
	})
}

// TestTenantRoleThroughGroupRole: a tenant-role member also takes in the
// members of the tenant's consent groups holding a group role of that
// name (reference 1.1.30), in the case and in the inbox.
func TestTenantRoleThroughGroupRole(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupGroupInbox(t, env)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "gus"}), 404, "")
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/cases/" + id + "/caseteam/tenant-roles", User: "alice",
			Body: map[string]any{"tenantRole": "other"}}), 200, "{}")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "gus"}), 200, "")
		if got := fmtNames(inboxNames(t, env, "gus")); got != "[Chore A Chore B Chore C]" {
			t.Errorf("gus's inbox through the tenant role %s", got)
		}
		if got := groupTaskCount(t, env, "gus"); got != `{"claimed":0,"unclaimed":3}` {
			t.Errorf("gus's count through the tenant role %s", got)
		}
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "nick"}), 404, "")
		// Out of the group, out of the case.
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/consent-group/reviewers/members/gus", User: "gwen"}), 202, groupAccepted)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "gus"}), 404, "")
	})
}

func fmtNames(names []string) string {
	out := "["
	for i, n := range names {
		if i > 0 {
			out += " "
		}
		out += n
	}
	return out + "]"
}
