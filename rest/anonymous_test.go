package rest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// anonymousConfig writes an anonymous-start configuration file and returns
// a config edit that turns it on.
func anonymousConfig(t *testing.T, cfg map[string]any) func(*server.Config) {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "anonymous.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return func(c *server.Config) { c.AnonymousConfig = path }
}

func anonymousDefinition(url, definition, tenant string, users ...map[string]any) map[string]any {
	return map[string]any{"url": url, "definition": definition, "tenant": tenant, "caseTeam": map[string]any{"users": users}}
}

var permitInputs = map[string]any{"Application": map[string]any{
	"Applicant": "Ann Builder", "Address": "Main Street 1", "Floors": 3, "Reviewer": "alice"}}

// TestAnonymousStart follows the reference engine's anonymous case start
// (§1.16): no token, the configured user, tenant and team, its statuses
// and texts.
func TestAnonymousStart(t *testing.T) {
	owner := map[string]any{"userId": "alice", "isOwner": true, "caseRoles": []string{"Reviewer"}}
	edit := anonymousConfig(t, map[string]any{
		"user": map[string]any{"id": "anon", "name": "Anonymous", "email": "anon@example.com", "roles": []string{"guest"}},
		"definitions": []any{
			anonymousDefinition("permit", "permit.xml", "acme", owner, map[string]any{"userId": "bob", "origin": "Tenant", "caseRoles": []string{"Clerk"}}),
			anonymousDefinition("", "permit", "acme", owner),
			anonymousDefinition("missing", "nothere.xml", "acme", owner),
			anonymousDefinition("badrole", "permit.xml", "acme", map[string]any{"userId": "alice", "isOwner": true, "caseRoles": []string{"Nope"}}),
			anonymousDefinition("notenant", "permit.xml", "nowhere", owner),
		},
	})
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "permit.xml", readModel(t, "permit.xml")), 204, "")
		post := func(path string, body any, header map[string]string) *servertest.Response {
			return env.Do(servertest.Request{Method: "POST", Path: path, Body: body, Header: header})
		}

		resp := post("/request/case/permit", map[string]any{"inputs": permitInputs}, map[string]string{"CorrelationId": "anon-req-1"})
		if resp.Status != 200 || !strings.HasPrefix(resp.Body, `{"caseInstanceId": "`) {
			t.Fatalf("anonymous start: %d %q", resp.Status, resp.Body)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "text/plain; charset=UTF-8" {
			t.Errorf("Content-Type %q: the reference sends its hand-built JSON as text", ct)
		}
		var started struct{ CaseInstanceID string }
		resp.JSON(t, &started)
		id := started.CaseInstanceID
		if lm := resp.Header.Get("Case-Last-Modified"); !strings.HasSuffix(lm, ";"+id) {
			t.Errorf("Case-Last-Modified = %q", lm)
		}

		// The case has the configured team, without the anonymous user,
		// and was started by it.
		c := getCase(t, env, "alice", id)
		if c.Tenant != "acme" || c.State != "Active" || len(c.Team.Users) != 2 {
			t.Fatalf("case %+v", c)
		}
		for _, u := range c.Team.Users {
			if u.UserID == "bob" && (u.Origin != "Tenant" || u.IsOwner || len(u.CaseRoles) != 1) {
				t.Errorf("bob in the team: %+v", u)
			}
		}
		raw := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "alice"})
		var rec struct{ CreatedBy string }
		raw.JSON(t, &rec)
		if rec.CreatedBy != "anon" {
			t.Errorf("createdBy %q, want the anonymous user", rec.CreatedBy)
		}
		var events []struct {
			Content struct {
				ModelEvent struct {
					CorrelationID string `json:"correlationId"`
					User          struct{ UserID, Origin string }
				} `json:"modelEvent"`
			}
		}
		env.Do(servertest.Request{Method: "GET", Path: "/debug/" + id, User: "alice"}).JSON(t, &events)
		if len(events) == 0 {
			t.Fatal("no events")
		}
		if me := events[0].Content.ModelEvent; me.User.UserID != "anon" || me.User.Origin != "Anonymous" || me.CorrelationID != "anon-req-1" {
			t.Errorf("first event's modelEvent %+v", me)
		}
		// The anonymous caller has no further access: a token of the
		// anonymous user's id sees nothing.
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "anon"}), 404, "A case with id '"+id+"' cannot be found.")

		// url "" is POST /request/case; a chosen id is kept, and taken.
		expect(t, post("/request/case", map[string]any{"inputs": permitInputs, "caseInstanceId": "anon-1"}, nil), 200, `{"caseInstanceId": "anon-1"}`)
		expect(t, post("/request/case", map[string]any{"inputs": permitInputs, "caseInstanceId": "anon-1"}, nil), 400,
			"Failure while handling message StartCase. Check the server logs for more details")

		expect(t, post("/request/case/nope", map[string]any{"inputs": permitInputs}, nil), 404, "Request of type 'nope' is not found")
		for _, typ := range []string{"missing", "badrole", "notenant"} {
			expect(t, post("/request/case/"+typ, map[string]any{"inputs": permitInputs}, nil), 500,
				"Your request bumped into an internal configuration issue and cannot be handled")
		}
		expect(t, post("/request/case/permit", "{not json", nil), 400, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/request/case/permit"}), 404, "")
	}, edit, func(c *server.Config) { c.AnonymousBurst = 100 })
}

// TestAnonymousStartOff: without the configuration the route does not
// exist, so a POST is 405 as for any unknown route.
func TestAnonymousStartOff(t *testing.T) {
	env := servertest.Start(t, "sqlite")
	resp := env.Do(servertest.Request{Method: "POST", Path: "/request/case/permit", Body: map[string]any{"inputs": map[string]any{}}})
	if resp.Status != 405 {
		t.Fatalf("POST /request/case/permit with anonymous start off: %d %q", resp.Status, resp.Body)
	}
}

// TestAnonymousStartRateLimit: a client address gets its burst, then 503
// with the seconds until its next request in Retry-After.
func TestAnonymousStartRateLimit(t *testing.T) {
	edit := anonymousConfig(t, map[string]any{"user": map[string]any{"id": "anon"},
		"definitions": []any{anonymousDefinition("permit", "permit.xml", "acme", map[string]any{"userId": "alice", "isOwner": true})}})
	env := servertest.Start(t, "sqlite", edit, func(c *server.Config) { c.AnonymousRate, c.AnonymousBurst = 1, 2 })
	post := func() *servertest.Response {
		return env.Do(servertest.Request{Method: "POST", Path: "/request/case/other", Body: map[string]any{}})
	}
	expect(t, post(), 404, "Request of type 'other' is not found")
	expect(t, post(), 404, "Request of type 'other' is not found")
	resp := post()
	expect(t, resp, 503, "Too many requests from your address; try again later")
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
		t.Errorf("Retry-After %q, want the seconds until the next token (at most 60)", resp.Header.Get("Retry-After"))
	}
}
