package rest_test

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
)

const admin = servertest.PlatformOwner

// user is the reference engine's tenant user payload.
type user struct {
	UserID  string   `json:"userId"`
	Roles   []string `json:"roles,omitempty"`
	IsOwner bool     `json:"isOwner,omitempty"`
	Name    string   `json:"name,omitempty"`
	Email   string   `json:"email,omitempty"`
	Enabled *bool    `json:"enabled,omitempty"`
}

func tenantBody(name string, users ...user) map[string]any {
	return map[string]any{"name": name, "users": users}
}

// createTenant creates a tenant with alice as owner (roles clerk, boss), bob
// as plain user (clerk), and carol disabled.
func createTenant(t *testing.T, env *servertest.Env, name string) {
	t.Helper()
	disabled := false
	resp := env.Do(servertest.Request{Method: "POST", Path: "/platform", User: admin, Body: tenantBody(name,
		user{UserID: "alice", IsOwner: true, Roles: []string{"clerk", "boss"}, Name: "Alice", Email: "alice@example.com"},
		user{UserID: "bob", Roles: []string{"clerk"}},
		user{UserID: "carol", Enabled: &disabled},
	)})
	if resp.Status != http.StatusNoContent {
		t.Fatalf("create tenant %s: %d %s", name, resp.Status, resp.Body)
	}
}

func expect(t testing.TB, resp *servertest.Response, status int, body string) {
	t.Helper()
	if resp.Status != status || (body != "" && resp.Body != body) {
		t.Fatalf("got %d %q, want %d %q", resp.Status, resp.Body, status, body)
	}
}

func TestCreateTenant(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		before := time.Now().Add(-time.Second)
		resp := env.Do(servertest.Request{Method: "POST", Path: "/platform", User: admin,
			Body: tenantBody("acme", user{UserID: "alice", IsOwner: true, Roles: []string{"clerk"}})})
		expect(t, resp, http.StatusNoContent, "")
		lm := resp.Header.Get("Tenant-Last-Modified")
		instant, id, ok := strings.Cut(lm, ";")
		if !ok || id != "acme" {
			t.Fatalf("Tenant-Last-Modified = %q, want <instant>;acme", lm)
		}
		if at, err := time.Parse(time.RFC3339Nano, instant); err != nil || at.Before(before) {
			t.Fatalf("Tenant-Last-Modified instant %q: %v", instant, err)
		}

		// The trailing-slash spelling works too.
		resp = env.Do(servertest.Request{Method: "POST", Path: "/platform/", User: admin,
			Body: tenantBody("acme2", user{UserID: "alice", IsOwner: true})})
		expect(t, resp, http.StatusNoContent, "")

		// The owner sees the tenant; the platform owner, not a user of it, does not.
		resp = env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/users", User: "alice",
			Header: map[string]string{"Tenant-Last-Modified": lm}})
		expect(t, resp, http.StatusOK, `[{"userId":"alice","roles":["clerk"],"tenant":"acme","name":"","email":"","isOwner":true,"enabled":true}]`)
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q, want application/json exactly", ct)
		}
		resp = env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/owners", User: admin})
		expect(t, resp, http.StatusNotFound, "Tenant 'acme' does not exist, or user 'admin' is not registered in it")
	})
}

func TestCreateTenantErrors(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "taken")
		disabled := false
		tests := []struct {
			name   string
			user   string
			body   any
			ctype  string
			status int
			want   string
		}{
			{"not a platform owner", "alice", tenantBody("t1", user{UserID: "alice", IsOwner: true}),
				"", 401, "Only platform owners can access this route"},
			{"no users", admin, tenantBody("t1"),
				"", 400, "Setting tenant requires a list of users with at least one owner"},
			{"duplicate users", admin, tenantBody("t1", user{UserID: "a", IsOwner: true}, user{UserID: "b"}, user{UserID: "a"}),
				"", 400, "Tenant contains duplicate user entries: ['a']"},
			{"no owner", admin, tenantBody("t1", user{UserID: "a"}),
				"", 400, "Cannot set tenant without active tenant owners"},
			{"only a disabled owner", admin, tenantBody("t1", user{UserID: "a", IsOwner: true, Enabled: &disabled}),
				"", 400, "Cannot set tenant without active tenant owners"},
			{"user without id", admin, tenantBody("t1", user{UserID: "", IsOwner: true}),
				"", 400, "Tenant users must have a userId"},
			{"null roles", admin, `{"name":"t1","users":[{"userId":"a","isOwner":true,"roles":null}]}`,
				"application/json", 400, "Roles cannot be null"},
			{"tenant exists", admin, tenantBody("taken", user{UserID: "a", IsOwner: true}),
				"", 400, "Failure while handling message CreateTenant. Check the server logs for more details. Tenant already exists"},
			{"unknown field", admin, `{"name":"t1","users":[],"owners":["x"]}`,
				"application/json", 400, `The request content was malformed: Unrecognized field "owners"`},
			{"not JSON", admin, `{"name":`,
				"application/json", 400, ""},
			{"wrong content type", admin, `{"name":"t1"}`,
				"text/plain; charset=UTF-8", 400, "The request content type Some(text/plain; charset=UTF-8) is not supported, provide one of Set(application/json)"},
			{"content type as the reference renders it", admin, `{"name":"t1"}`,
				"TEXT/Plain;charset=utf-8", 400, "The request content type Some(text/plain; charset=UTF-8) is not supported, provide one of Set(application/json)"},
			{"invalid name", admin, tenantBody("a/b", user{UserID: "a", IsOwner: true}),
				"", 400, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				resp := env.Do(servertest.Request{Method: "POST", Path: "/platform", User: tt.user, Body: tt.body, ContentType: tt.ctype})
				expect(t, resp, tt.status, tt.want)
				if tt.want == "" && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
					t.Errorf("error Content-Type = %q, want text/plain", resp.Header.Get("Content-Type"))
				}
			})
		}
		// None of the refused tenants exists.
		resp := env.Do(servertest.Request{Method: "GET", Path: "/tenant/t1/users", User: "a"})
		expect(t, resp, http.StatusNotFound, "Tenant 't1' does not exist, or user 'a' is not registered in it")
	})
}

func TestDisableEnableTenant(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")

		resp := env.Do(servertest.Request{Method: "PUT", Path: "/platform/acme/disable", User: "alice"})
		expect(t, resp, http.StatusUnauthorized, "Only platform owners can access this route")

		resp = env.Do(servertest.Request{Method: "PUT", Path: "/platform/acme/disable", User: admin})
		expect(t, resp, http.StatusNoContent, "")
		if !strings.HasSuffix(resp.Header.Get("Tenant-Last-Modified"), ";acme") {
			t.Errorf("Tenant-Last-Modified = %q", resp.Header.Get("Tenant-Last-Modified"))
		}
		resp = env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/users", User: "alice"})
		expect(t, resp, http.StatusNotFound, "Tenant 'acme' does not exist, or user 'alice' is not registered in it")
		resp = env.Do(servertest.Request{Method: "GET", Path: "/platform/user", User: "alice"})
		expect(t, resp, http.StatusOK, `{"userId":"alice","tenants":[],"groups":[]}`)

		resp = env.Do(servertest.Request{Method: "PUT", Path: "/platform/acme/enable", User: admin})
		expect(t, resp, http.StatusNoContent, "")
		resp = env.Do(servertest.Request{Method: "GET", Path: "/tenant/acme/owners", User: "alice"})
		expect(t, resp, http.StatusOK, `["alice"]`)

		resp = env.Do(servertest.Request{Method: "PUT", Path: "/platform/nosuch/disable", User: admin})
		if resp.Status != http.StatusBadRequest || !strings.HasPrefix(resp.Body, "Expected bootstrap command") {
			t.Fatalf("disable unknown tenant: %d %q", resp.Status, resp.Body)
		}
	})
}

func TestPlatformUser(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		resp := env.Do(servertest.Request{Method: "GET", Path: "/platform/user", User: "bob"})
		expect(t, resp, http.StatusOK, `{"userId":"bob","tenants":[{"userId":"bob","roles":["clerk"],"tenant":"acme","name":"","email":"","isOwner":false,"enabled":true}],"groups":[]}`)
		// A disabled account is not among the caller's tenants.
		resp = env.Do(servertest.Request{Method: "GET", Path: "/platform/user", User: "carol"})
		expect(t, resp, http.StatusOK, `{"userId":"carol","tenants":[],"groups":[]}`)
		resp = env.Do(servertest.Request{Method: "GET", Path: "/platform/user"})
		expect(t, resp, http.StatusUnauthorized, "Authorization token is missing")
	})
}

func TestHealthAndVersion(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		for _, prefix := range []string{"", "/platform"} {
			expect(t, env.Do(servertest.Request{Method: "GET", Path: prefix + "/status"}), http.StatusOK, "OK")

			var health struct {
				Status        string                      `json:"Status"`
				MeasurePoints []map[string]map[string]any `json:"measure-points"`
			}
			resp := env.Do(servertest.Request{Method: "GET", Path: prefix + "/health"})
			expect(t, resp, http.StatusOK, "")
			resp.JSON(t, &health)
			if health.Status != "OK" {
				t.Errorf("health Status = %q", health.Status)
			}
			var names []string
			for _, p := range health.MeasurePoints {
				for k, v := range p {
					names = append(names, k)
					if v["Status"] != "OK" {
						t.Errorf("measure point %s = %v, want OK", k, v)
					}
				}
			}
			// The reference engine's six points, in its order.
			if want := []string{"query-db", "idp", "write-journal", "read-journal", "timer-service", "storage-service"}; !slices.Equal(names, want) {
				t.Errorf("measure points %v, want %v", names, want)
			}

			var version map[string]any
			resp = env.Do(servertest.Request{Method: "GET", Path: prefix + "/version"})
			expect(t, resp, http.StatusOK, "")
			resp.JSON(t, &version)
			if version["version"] != "test" || version["name"] != "casegraph" {
				t.Errorf("version = %v", version)
			}
		}
	})
}

func TestStatusWhenDatabaseDown(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		env.Server.DB().Close()
		resp := env.Do(servertest.Request{Method: "GET", Path: "/status"})
		expect(t, resp, http.StatusServiceUnavailable, "The server is currently unavailable (because it is overloaded or down for maintenance).")
		resp = env.Do(servertest.Request{Method: "GET", Path: "/health"})
		if resp.Status != http.StatusOK || !strings.Contains(resp.Body, `"Status":"NOK"`) {
			t.Fatalf("health with the database down: %d %s", resp.Status, resp.Body)
		}
		resp = env.Do(servertest.Request{Method: "GET", Path: "/platform/user", User: "bob"})
		expect(t, resp, http.StatusServiceUnavailable, "")
	})
}

func TestSwagger(t *testing.T) {
	env := servertest.Start(t, "sqlite")
	resp := env.Do(servertest.Request{Method: "GET", Path: "/api-docs/swagger.json"})
	expect(t, resp, 200, "")
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	resp.JSON(t, &doc)
	for _, p := range []string{"/cases", "/tasks/{taskId}/claim", "/tenant/{tenant}/users", "/repository/deploy/{fileName}"} {
		if doc.Paths[p] == nil {
			t.Errorf("the description lacks %s", p)
		}
	}
	if doc.Paths["/cases/{caseId}/planitems/{planItem}/{transition}"]["post"] == nil {
		t.Errorf("the transition route is not a POST")
	}
}

// An archive directory that cannot take a file turns the storage-service
// point and the report red, but the server still answers requests:
// /status stays 200.
func TestStorageDownKeepsStatus(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := servertest.Start(t, db.SQLite, func(c *server.Config) { c.ArchiveDir = filepath.Join(blocker, "archive") })
	expect(t, env.Do(servertest.Request{Method: "GET", Path: "/status"}), http.StatusOK, "OK")
	var health struct {
		Status        string                      `json:"Status"`
		Description   string                      `json:"Description"`
		MeasurePoints []map[string]map[string]any `json:"measure-points"`
	}
	env.Do(servertest.Request{Method: "GET", Path: "/health"}).JSON(t, &health)
	if health.Status != "NOK" || health.Description != "One or more measure points are unhealthy" {
		t.Errorf("health = %q %q, want NOK", health.Status, health.Description)
	}
	for _, p := range health.MeasurePoints {
		if s, ok := p["storage-service"]; ok && s["Status"] != "NOK" {
			t.Errorf("storage-service = %v", s)
		}
	}
}
