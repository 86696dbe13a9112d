package rest_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

func readModel(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../testdata/cases/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func deploy(env *servertest.Env, user, path, xml string) *servertest.Response {
	return env.Do(servertest.Request{Method: "POST", Path: "/repository/deploy/" + path, User: user, Body: xml, ContentType: "application/xml"})
}

func TestRepositoryDeployListLoad(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		permit := readModel(t, "permit.xml")

		expect(t, deploy(env, "bob", "permit.xml", permit), 401, "User 'bob' does not have the privileges to deploy a definition")
		expect(t, deploy(env, "alice", "permit", permit), 204, "")
		expect(t, deploy(env, "alice", "sub/folder/permit.xml?tenant=acme", permit), 204, "")

		resp := env.Do(servertest.Request{Method: "GET", Path: "/repository/list", User: "bob"})
		expect(t, resp, 200, `{"models":[{"definitions":"permit.xml","description":"A building permit: review the application, then inform the applicant."},`+
			`{"definitions":"sub/folder/permit.xml","description":"A building permit: review the application, then inform the applicant."}]}`)

		for _, name := range []string{"permit.xml", "permit", "sub/folder/permit.xml"} {
			resp = env.Do(servertest.Request{Method: "GET", Path: "/repository/load/" + name, User: "bob"})
			expect(t, resp, 200, permit)
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/xml") {
				t.Errorf("load Content-Type = %q", ct)
			}
		}
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/repository/load/nope.xml", User: "bob"}),
			404, "A model with name nope.xml cannot be found")

		// Deploying a new version replaces the current one.
		v2 := strings.Replace(permit, "A building permit:", "A building permit (v2):", 1)
		expect(t, deploy(env, "alice", "permit.xml", v2), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/repository/load/permit.xml", User: "bob"}), 200, v2)
	})
}

func TestRepositoryTenantResolution(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		createTenant(t, env, "beta")
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/platform", User: admin,
			Body: tenantBody("world", user{UserID: "wanda", IsOwner: true}, user{UserID: "bob"})}), 204, "")
		permit := readModel(t, "permit.xml")
		tests := []struct {
			name, user, path string
			status           int
			want             string
		}{
			{"several tenants, none named", "alice", "/repository/list", 400, "Tenant property must have a value, because user belongs to multiple tenants"},
			{"several tenants, default among them", "bob", "/repository/list", 200, `{"models":[]}`},
			{"named tenant", "alice", "/repository/list?tenant=beta", 200, `{"models":[]}`},
			{"blank tenant means the default", "wanda", "/repository/list?tenant=", 200, `{"models":[]}`},
			{"in no tenant", "zed", "/repository/list", 401, "User 'zed' is not registered in a tenant"},
			{"unknown tenant", "alice", "/repository/list?tenant=nosuch", 404, "An active tenant with id 'nosuch' cannot be found."},
			{"not in the named tenant", "wanda", "/repository/list?tenant=acme", 404, "An active tenant with id 'acme' cannot be found."},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				expect(t, env.Do(servertest.Request{Method: "GET", Path: tt.path, User: tt.user}), tt.status, tt.want)
			})
		}
		expect(t, deploy(env, "alice", "permit.xml", permit), 400, "Tenant property must have a value, because user belongs to multiple tenants")
		expect(t, deploy(env, "alice", "permit.xml?tenant=beta", permit), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/repository/load/permit.xml?tenant=acme", User: "alice"}),
			404, "A model with name permit.xml cannot be found")

		// A disabled tenant is gone for the repository.
		expect(t, env.Do(servertest.Request{Method: "PUT", Path: "/platform/beta/disable", User: admin}), 204, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/repository/list?tenant=beta", User: "alice"}),
			404, "An active tenant with id 'beta' cannot be found.")
	})
}

func TestRepositoryValidate(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		permit := readModel(t, "permit.xml")
		// Open: no token needed.
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/repository/validate", Body: permit, ContentType: "application/xml"}), 200, "")

		broken := strings.Replace(permit, `sourceRef="pi_review"`, `sourceRef="pi_nowhere"`, 1)
		broken = strings.Replace(broken, `performerRef="role_clerk"`, `performerRef="role_ghost"`, 1)
		resp := env.Do(servertest.Request{Method: "POST", Path: "/repository/validate", Body: broken, ContentType: "application/xml"})
		var problems []string
		if resp.Status != http.StatusBadRequest || json.Unmarshal([]byte(resp.Body), &problems) != nil || len(problems) < 2 {
			t.Fatalf("validate broken: %d %s; want 400 with a JSON array of at least two problems", resp.Status, resp.Body)
		}
		// Labelled as the reference engine's string marshaller labels it.
		if ct := resp.Header.Get("Content-Type"); ct != "text/plain; charset=UTF-8" {
			t.Errorf("validate answers its JSON array as %q", ct)
		}
		joined := strings.Join(problems, "\n")
		if !strings.Contains(joined, "pi_nowhere") || !strings.Contains(joined, "role_ghost") {
			t.Errorf("problems do not name the elements: %s", joined)
		}

		hostile := []string{
			`<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL">&lol2;</definitions>`,
			`<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><definitions>&xxe;</definitions>`,
			`<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL">` + strings.Repeat("<a>", 50000) + strings.Repeat("</a>", 50000) + `</definitions>`,
			`not xml at all`,
			``,
		}
		for i, doc := range hostile {
			resp := env.Do(servertest.Request{Method: "POST", Path: "/repository/validate", Body: doc, ContentType: "application/xml"})
			if resp.Status != http.StatusBadRequest || !strings.HasPrefix(resp.Body, "[") {
				t.Errorf("hostile document %d: %d %.200s", i, resp.Status, resp.Body)
			}
		}

		createTenant(t, env, "acme")
		// An invalid deploy names its problems, one a line, after the
		// reference engine's message.
		resp = deploy(env, "alice", "broken.xml", broken)
		expect(t, resp, 400, "Cannot deploy broken.xml: definition is invalid.\n"+strings.Join(problems, "\n"))
		expect(t, deploy(env, "alice", "a%5Cb.xml", permit), 400, "Cannot deploy a\\b.xml: the name contains a character that is not allowed")
		expect(t, env.Do(servertest.Request{Method: "POST", Path: "/repository/deploy/p.xml", User: "alice", Body: permit, ContentType: "application/json"}), 400,
			"The request content type Some(application/json) is not supported, provide one of Set(application/xml)")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/repository/list", User: "alice"}), 200, `{"models":[]}`)
	})
}
