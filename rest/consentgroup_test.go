package rest_test

import (
	"fmt"
	"net/http"
	"sort"
	"sync"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

const groupAccepted = "The request has been accepted for processing, but the processing has not been completed."

// createGroup creates group id in tenant acme as alice, with members.
func createGroup(t *testing.T, env *servertest.Env, tenant, id string, members ...map[string]any) {
	t.Helper()
	expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/" + tenant + "/consent-groups", User: "alice",
		Body: map[string]any{"id": id, "members": members}}), 200, `{"groupId":"`+id+`"}`)
}

func groupUserIDs(t *testing.T, env *servertest.Env, user, id string) []string {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "GET", Path: "/consent-group/" + id, User: user})
	if resp.Status != http.StatusOK {
		t.Fatalf("GET group %s as %s: %d %q", id, user, resp.Status, resp.Body)
	}
	var g struct{ Members []struct{ UserID string } }
	resp.JSON(t, &g)
	var ids []string
	for _, m := range g.Members {
		ids = append(ids, m.UserID)
	}
	return ids
}

// TestConcurrentGroupMembers: owners adding different members at once all
// succeed; the losers of the version race run again on fresh data instead
// of failing, and no addition is lost.
func TestConcurrentGroupMembers(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		createGroup(t, env, "acme", "g", map[string]any{"userId": "bob", "isOwner": true})
		const n = 4
		var wg sync.WaitGroup
		statuses := make([]int, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = env.Do(servertest.Request{Method: "POST", Path: "/consent-group/g/members", User: "bob",
					Body: map[string]any{"userId": fmt.Sprintf("u%d", i), "roles": []string{"r"}}}).Status
			}()
		}
		wg.Wait()
		for i, s := range statuses {
			if s != http.StatusAccepted {
				t.Fatalf("addition %d: status %d (all: %v)", i, s, statuses)
			}
		}
		got := groupUserIDs(t, env, "bob", "g")
		sort.Strings(got)
		if fmt.Sprint(got) != "[bob u0 u1 u2 u3]" {
			t.Fatalf("members %v", got)
		}
	})
}

// TestConcurrentGroupOwnerRemoval races two group owners removing each
// other: one wins, the other runs again, sees it is no owner any more (or
// the last one) and is refused; the group keeps exactly one owner.
func TestConcurrentGroupOwnerRemoval(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		for round := range 6 {
			id := fmt.Sprintf("race%d", round)
			createGroup(t, env, "acme", id, map[string]any{"userId": "bob", "isOwner": true}, map[string]any{"userId": "dave", "isOwner": true})
			var wg sync.WaitGroup
			statuses := make([]int, 2)
			for i, pair := range [][2]string{{"bob", "dave"}, {"dave", "bob"}} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					statuses[i] = env.Do(servertest.Request{Method: "DELETE", Path: "/consent-group/" + id + "/members/" + pair[1], User: pair[0]}).Status
				}()
			}
			wg.Wait()
			ok := 0
			for _, s := range statuses {
				switch s {
				case http.StatusAccepted:
					ok++
				case http.StatusNotFound, http.StatusBadRequest:
				default:
					t.Fatalf("round %d: unexpected statuses %v", round, statuses)
				}
			}
			var left []string
			for _, u := range []string{"bob", "dave"} {
				if resp := env.Do(servertest.Request{Method: "GET", Path: "/consent-group/" + id, User: u}); resp.Status == http.StatusOK {
					left = groupUserIDs(t, env, u, id)
				}
			}
			if ok != 1 || len(left) != 1 {
				t.Fatalf("round %d: statuses %v, members %v; want one removal and one owner left", round, statuses, left)
			}
		}
	})
}

// TestDeleteTenantDeletesGroups: a deleted tenant takes its groups with
// it; their ids are free again.
func TestDeleteTenantDeletesGroups(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		createTenant(t, env, "other")
		createGroup(t, env, "acme", "g", map[string]any{"userId": "bob", "isOwner": true, "roles": []string{"r"}})
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/storage/tenant/acme", User: "alice"}), 202, groupAccepted)
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/consent-group/g", User: "bob"}), 404, "A consent group with id 'g' cannot be found.")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/platform/user", User: "bob"}), 200,
			`{"userId":"bob","tenants":[{"userId":"bob","roles":["clerk"],"tenant":"other","name":"","email":"","isOwner":false,"enabled":true}],"groups":[]}`)
		createGroup(t, env, "other", "g", map[string]any{"userId": "bob", "isOwner": true})
	})
}

// TestOneIDSpace: cases, tenants and consent groups share one id space,
// as the reference engine's actors do, whichever kind comes first.
func TestOneIDSpace(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		caseID := setupPermit(t, env)
		createGroup(t, env, "acme", "grp", map[string]any{"userId": "alice", "isOwner": true})
		const (
			startFailed  = "Failure while handling message StartCase. Check the server logs for more details"
			groupFailed  = "Failure while handling message CreateConsentGroup. Check the server logs for more details. Consent group already exists"
			tenantFailed = "Failure while handling message CreateTenant. Check the server logs for more details. Tenant already exists"
		)
		start := func(id string) *servertest.Response {
			return env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice",
				Body: map[string]any{"definition": "permit", "tenant": "acme", "caseInstanceId": id}})
		}
		group := func(id string) *servertest.Response {
			return env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/consent-groups", User: "alice",
				Body: map[string]any{"id": id, "members": []map[string]any{{"userId": "alice", "isOwner": true}}}})
		}
		tenant := func(name string) *servertest.Response {
			return env.Do(servertest.Request{Method: "POST", Path: "/platform", User: admin,
				Body: tenantBody(name, user{UserID: "alice", IsOwner: true})})
		}
		expect(t, start("grp"), 400, startFailed)
		// Only after the tenant is found: a taken id is not told to a
		// caller that would fail anyway.
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "zed",
			Body: map[string]any{"definition": "permit", "tenant": "nope", "caseInstanceId": "grp"}}), 404,
			"An active tenant with id 'nope' cannot be found.")
		expect(t, group(caseID), 400, groupFailed)
		expect(t, group("acme"), 400, groupFailed)
		expect(t, tenant(caseID), 400, tenantFailed)
		expect(t, tenant("grp"), 400, tenantFailed)

		// Nothing of the refused creations was written.
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/grp", User: "alice"}), 404, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/consent-group/" + caseID, User: "alice"}), 404, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tenant/" + caseID + "/users", User: "alice"}), 404, "")
		// The group and the case kept what they were.
		if got := groupUserIDs(t, env, "alice", "grp"); len(got) != 1 || got[0] != "alice" {
			t.Errorf("group grp members %v, want [alice]", got)
		}
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + caseID, User: "alice"}), 200, "")
		// An unused id is still free for every kind.
		expect(t, group("free_group"), 200, `{"groupId":"free_group"}`)
		expect(t, tenant("free_tenant"), 204, "")
	})
}
