package compat_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// TestAnonymousRequest: the reference engine's anonymous case start
// (§1.16, §2.6), served on a fixture that configures it: no token, 200
// with the case id as hand-built JSON text, 404 for an unknown type, 500
// for what the configuration cannot serve. With the feature off (every
// other fixture) the route does not exist: TestConventions' 405 row.
func TestAnonymousRequest(t *testing.T) {
	team := map[string]any{"users": []map[string]any{
		{"userId": "carla", "isOwner": true}, {"userId": "mike", "caseRoles": []string{"Clerk"}}}}
	b, err := json.Marshal(map[string]any{
		"user": map[string]any{"id": "anonymous", "name": "Anonymous", "email": "", "roles": []string{}},
		"definitions": []map[string]any{
			{"url": "order", "definition": "compat.xml", "tenant": tenant, "caseTeam": team},
			{"url": "", "definition": "compat", "tenant": tenant, "caseTeam": team},
			{"url": "broken", "definition": "no-such-model.xml", "tenant": tenant, "caseTeam": team},
		}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "anonymous.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	inputs := startBody("compat")["inputs"]
	started := func(id string) func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
		return func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
			lm := resp.Header.Get("Case-Last-Modified")
			if !strings.HasSuffix(lm, ";"+id) {
				t.Errorf("Case-Last-Modified %q, want <instant>;%s", lm, id)
			}
			// The configured owner reads the case; the anonymous caller
			// has no further access.
			mustStatus(t, f.as(t, caseOwner, "GET", "/cases/"+id, nil, c), 200)
			mustStatus(t, f.as(t, nonMember, "GET", "/cases/"+id, nil, c), 404)
		}
	}
	configIssue := "Your request bumped into an internal configuration issue and cannot be handled"
	rows := []row{
		{caller: noToken, method: "POST", path: "/request/case/order", body: map[string]any{"inputs": inputs, "caseInstanceId": "anon-order-1"},
			status: 200, text: `{"caseInstanceId": "anon-order-1"}`, after: started("anon-order-1")},
		{caller: noToken, method: "POST", path: "/request/case", body: map[string]any{"inputs": inputs, "caseInstanceId": "anon-root-1", "debug": true},
			status: 200, text: `{"caseInstanceId": "anon-root-1"}`, after: started("anon-root-1")},
		// A token is not needed, and changes nothing.
		{name: "generated id", caller: caseMember, method: "POST", path: "/request/case/order", body: map[string]any{"inputs": inputs},
			status: 200, prefix: true, text: `{"caseInstanceId": "`},
		{name: "id taken", caller: noToken, method: "POST", path: "/request/case/order", body: map[string]any{"inputs": inputs, "caseInstanceId": "anon-order-1"},
			status: 400, text: "Failure while handling message StartCase. Check the server logs for more details"},
		{name: "unknown type", caller: noToken, method: "POST", path: "/request/case/nothing", body: map[string]any{"inputs": inputs},
			status: 404, text: "Request of type 'nothing' is not found"},
		{name: "missing definition", caller: noToken, method: "POST", path: "/request/case/broken", body: map[string]any{"inputs": inputs},
			status: 500, text: configIssue},
	}
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		newFixture(t, env).run(t, rows)
	}, func(c *server.Config) { c.AnonymousConfig, c.AnonymousBurst = path, 100 })
}
