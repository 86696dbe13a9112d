package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db/dbtest"
)

// forEachDBWith is servertest.ForEachDB with a configuration change.
func forEachDBWith(t *testing.T, edit func(*server.Config), test func(t *testing.T, env *servertest.Env)) {
	t.Helper()
	for _, flavor := range dbtest.Flavors() {
		t.Run(string(flavor), func(t *testing.T) {
			t.Parallel()
			test(t, servertest.Start(t, flavor, edit))
		})
	}
}

// TestInputLimits: every size limit answers 400 naming the field and the
// limit, and stores nothing.
func TestInputLimits(t *testing.T) {
	forEachDBWith(t, func(c *server.Config) {
		c.MaxTeamMembers, c.MaxTenantUsers, c.MaxRolesPerUser, c.MaxCaseFileBytes = 5, 4, 3, 2000
	}, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		long := strings.Repeat("u", 256)
		users := func(n int) []user {
			out := []user{{UserID: "alice", IsOwner: true}}
			for i := 1; i < n; i++ {
				out = append(out, user{UserID: fmt.Sprintf("u%d", i)})
			}
			return out
		}
		members := func(n int) []map[string]any {
			out := []map[string]any{{"userId": "alice", "isOwner": true}}
			for i := 1; i < n; i++ {
				out = append(out, map[string]any{"userId": fmt.Sprintf("m%d", i)})
			}
			return out
		}
		for _, tc := range []struct {
			name string
			req  servertest.Request
			want string
		}{
			{"long user id", servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice", Body: user{UserID: long}},
				"userId is 256 bytes long; the limit is 255"},
			{"control character in user id", servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice", Body: user{UserID: "a\tb"}},
				"userId contains the control character '\\t', which no identifier may hold"},
			{"long role", servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice", Body: user{UserID: "x", Roles: []string{long}}},
				"role is 256 bytes long; the limit is 255"},
			{"roles per user", servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice",
				Body: user{UserID: "x", Roles: []string{"a", "b", "c", "d"}}}, "roles of user 'x' has 4 entries; the limit is 3"},
			{"long tenant name", servertest.Request{Method: "POST", Path: "/platform", User: admin, Body: tenantBody(long, users(1)...)},
				"tenant name is 256 bytes long; the limit is 255"},
			{"users per tenant request", servertest.Request{Method: "POST", Path: "/platform", User: admin, Body: tenantBody("big", users(5)...)},
				"users has 5 entries; the limit is 4"},
			{"users per tenant replacement", servertest.Request{Method: "PUT", Path: "/tenant/acme", User: "alice",
				Body: map[string]any{"users": users(5)}}, "users has 5 entries; the limit is 4"},
			{"long definition name", servertest.Request{Method: "POST", Path: "/repository/deploy/" + long + "?tenant=acme", User: "alice",
				Body: readModel(t, "permit.xml"), ContentType: "application/xml"}, "definition name is 260 bytes long; the limit is 255"},
			{"members per team", servertest.Request{Method: "POST", Path: "/cases/" + id + "/caseteam", User: "alice",
				Body: map[string]any{"users": members(6)}}, "the case team has 6 entries; the limit is 5"},
			{"members per team at start", servertest.Request{Method: "POST", Path: "/cases", User: "alice",
				Body: map[string]any{"definition": "permit", "tenant": "acme", "caseTeam": map[string]any{"users": members(6)}}},
				"the case team has 6 entries; the limit is 5"},
			{"members added to a team", servertest.Request{Method: "PUT", Path: "/cases/" + id + "/caseteam", User: "alice",
				Body: []map[string]any{{"memberId": "x1"}, {"memberId": "x2"}, {"memberId": "x3"}, {"memberId": "x4"}}},
				"the case team has 6 entries; the limit is 5"},
			{"long member id", servertest.Request{Method: "POST", Path: "/cases/" + id + "/caseteam/users", User: "alice",
				Body: map[string]any{"userId": long}}, "userId is 256 bytes long; the limit is 255"},
			{"long assignee", servertest.Request{Method: "PUT", Path: "/tasks/nope/assign", User: "alice",
				Body: map[string]any{"assignee": long}}, "assignee is 256 bytes long; the limit is 255"},
			{"bogus member type in body", servertest.Request{Method: "PUT", Path: "/cases/" + id + "/caseteam", User: "alice",
				Body: map[string]any{"memberId": "x", "memberType": "bogus"}}, "Member type 'bogus' is not valid; use user or role"},
			{"JSON values", servertest.Request{Method: "POST", Path: "/cases", User: "alice", ContentType: "application/json",
				Body: `{"definition":"permit","tenant":"acme","inputs":{"Application":{"Floors":[` + strings.Repeat("0,", 300_000) + `0]}}}`},
				"The request content was malformed: it holds more than 250000 JSON values"},
			{"business identifier", servertest.Request{Method: "PUT", Path: "/cases/" + id + "/casefile/update/Application", User: "alice",
				Body: map[string]any{"Applicant": strings.Repeat("a", 1500)}}, "The business identifier Applicant would be 1500 bytes long; the limit is 1024"},
			{"case file size", servertest.Request{Method: "PUT", Path: "/cases/" + id + "/casefile/update/Application", User: "alice",
				Body: map[string]any{"Address": strings.Repeat("x", 3000)}}, "The case file would be "},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp := env.Do(tc.req)
				if resp.Status != http.StatusBadRequest || !strings.Contains(resp.Body, tc.want) {
					t.Fatalf("got %d %q, want 400 with %q", resp.Status, resp.Body, tc.want)
				}
			})
		}
		// Nothing of the refused requests was stored.
		resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/casefile", User: "alice"})
		if strings.Contains(resp.Body, "xxxxxxxx") {
			t.Fatalf("the refused case file was stored: %.200s", resp.Body)
		}
		resp = env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/caseteam", User: "alice"})
		if strings.Contains(resp.Body, "x1") || !strings.Contains(resp.Body, "bob") {
			t.Fatalf("the refused team change was stored: %s", resp.Body)
		}
	})
}

// TestIdentifierFilterNames: each name of an identifiers filter is one more
// EXISTS; PostgreSQL took 11 s to plan 100 of them and SQLite answered 500
// past 1,000 (its expression depth). A filter names at most 10.
func TestIdentifierFilterNames(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		names := func(n int) string {
			parts := make([]string, n)
			for i := range parts {
				parts[i] = fmt.Sprintf("n%d%%3Dv", i)
			}
			return strings.Join(parts, ",")
		}
		for _, route := range []string{"/cases", "/tasks"} {
			if resp := env.Do(servertest.Request{Method: "GET", Path: route + "?identifiers=" + names(10), User: "alice"}); resp.Status != http.StatusOK {
				t.Errorf("%s with 10 names: %d %s", route, resp.Status, resp.Body)
			}
			resp := env.Do(servertest.Request{Method: "GET", Path: route + "?identifiers=" + names(2000), User: "alice"})
			if want := "Invalid identifiers filter: it names 2000 identifiers; the limit is 10"; resp.Status != http.StatusBadRequest || resp.Body != want {
				t.Errorf("%s with 2000 names: %d %q, want 400 %q", route, resp.Status, resp.Body, want)
			}
		}
	})
}
