package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// setAccount enables or disables carl's account in acme, as its owner.
func setAccount(t *testing.T, env *servertest.Env, user string, enabled bool) {
	t.Helper()
	expect(t, env.Do(servertest.Request{Method: "POST", Path: "/tenant/acme/users", User: "alice",
		Body: map[string]any{"userId": user, "enabled": enabled}}), http.StatusNoContent, "")
}

// A team member whose tenant account is disabled loses every case of the
// tenant on every route: 401 with the reference engine's text where an id
// is named, nothing in lists; enabling the account again restores it.
func TestDisabledAccountLosesCases(t *testing.T) {
	rows := matrixRows(t)
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "incident.xml", readModel(t, "incident.xml")), 204, "")
		setAccount(t, env, "carl", true)
		const disabled = "The user account carl has been disabled"
		for _, row := range rows {
			t.Run(row.name, func(t *testing.T) {
				setAccount(t, env, "carl", false)
				id := startMatrixCase(t, env)
				task := taskNamed(t, env, "alice", id, "Triage").ID
				resp := row.call(env, "carl", id, task)
				if resp.Status != http.StatusUnauthorized || resp.Body != disabled {
					t.Errorf("disabled carl: got %d %s, want 401 %s", resp.Status, resp.Body, disabled)
				}
				setAccount(t, env, "carl", true)
				id = startMatrixCase(t, env)
				task = taskNamed(t, env, "alice", id, "Triage").ID
				want := row.withRole
				if row.with != "" && row.with != "carl" {
					want = row.member
				}
				if resp := row.call(env, "carl", id, task); resp.Status != want {
					t.Errorf("enabled carl: got %d %s, want %d", resp.Status, resp.Body, want)
				}
			})
		}

		// Lists and counts agree: while disabled, none of acme's cases.
		id := startMatrixCase(t, env)
		expect(t, env.Do(servertest.Request{Method: "PUT", Path: "/cases/" + id + "/casefile/update/Incident", User: "alice",
			Body: map[string]any{"Severity": 2}}), 200, "")
		triage := taskNamed(t, env, "alice", id, "Triage").ID
		expect(t, env.Do(servertest.Request{Method: "PUT", Path: "/tasks/" + triage + "/claim", User: "carl"}), http.StatusAccepted, "{}")
		var count map[string]int
		env.Do(servertest.Request{Method: "GET", Path: "/tasks/user/count?tenant=acme", User: "carl"}).JSON(t, &count)
		if count["claimed"] == 0 {
			t.Fatalf("carl's count after a claim = %v", count)
		}
		setAccount(t, env, "carl", false)
		for _, path := range []string{"/cases", "/cases?tenant=acme", "/tasks", "/tasks?tenant=acme", "/identifiers", "/identifiers/names"} {
			expect(t, env.Do(servertest.Request{Method: "GET", Path: path, User: "carl"}), http.StatusOK, "[]")
		}
		count = nil
		env.Do(servertest.Request{Method: "GET", Path: "/tasks/user/count", User: "carl"}).JSON(t, &count)
		if count["claimed"] != 0 || count["unclaimed"] != 0 {
			t.Errorf("disabled carl's count = %v", count)
		}
		// Starting a case in the tenant is refused too.
		resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "carl", Body: map[string]any{"definition": "incident", "tenant": "acme"}})
		expect(t, resp, http.StatusUnauthorized, disabled)

		// A stranger still cannot tell a hidden case from a missing one.
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: stranger}), http.StatusNotFound, "")

		setAccount(t, env, "carl", true)
		resp = env.Do(servertest.Request{Method: "GET", Path: "/cases", User: "carl"})
		if resp.Status != 200 || !strings.Contains(resp.Body, id) {
			t.Errorf("enabled carl does not see the case again: %d %s", resp.Status, resp.Body)
		}
		env.Do(servertest.Request{Method: "GET", Path: "/tasks/user/count", User: "carl"}).JSON(t, &count)
		if count["unclaimed"] == 0 {
			t.Errorf("enabled carl's count = %v", count)
		}
	})
}
