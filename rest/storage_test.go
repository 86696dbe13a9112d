package rest_test

import (
	"context"
	"maps"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
)

// schemaTables lists every table of the schema but the migrator's own,
// read from the database's catalog, so that a table added later is
// counted without anyone remembering to list it here.
func schemaTables(t *testing.T, env *servertest.Env) []string {
	t.Helper()
	d := env.Server.DB()
	var tables []string
	var err error
	if d.Flavor == db.SQLite {
		err = d.NewRaw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'bun_%' ORDER BY name").
			Scan(context.Background(), &tables)
	} else {
		err = d.NewRaw("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'bun_%' ORDER BY table_name").
			Scan(context.Background(), &tables)
	}
	if err != nil || len(tables) < 10 {
		t.Fatalf("listing the schema's tables: %v (%d tables)", err, len(tables))
	}
	return tables
}

func rowCounts(t *testing.T, env *servertest.Env) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range schemaTables(t, env) {
		n, err := env.Server.DB().NewSelect().TableExpr(table).Count(context.Background())
		if err != nil {
			t.Fatalf("count %s: %v", table, err)
		}
		out[table] = int(n)
	}
	return out
}

func sameCounts(t *testing.T, what string, got, want map[string]int) {
	t.Helper()
	if !maps.Equal(got, want) {
		t.Fatalf("%s: row counts %v, want %v", what, got, want)
	}
}

// TestStorage archives, restores and deletes a case and deletes a tenant
// (reference §1.14), counting the rows of every table around each step.
func TestStorage(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		accepted := "The request has been accepted for processing, but the processing has not been completed."
		empty := rowCounts(t, env)
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "permit.xml", readModel(t, "permit.xml")), 204, "")
		noCase := rowCounts(t, env)
		id := startPermit(t, env, "permit-1")
		withCase := rowCounts(t, env)
		get := func(user string) *servertest.Response {
			return env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: user})
		}
		caseBefore := get("alice").Body
		historyBefore := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/history/events", User: "alice"}).Body
		notFound := "A case with id '" + id + "' cannot be found."
		do := func(user, method, path string) *servertest.Response {
			return env.Do(servertest.Request{Method: method, Path: path, User: user})
		}

		// Archive: case owners only; strangers learn nothing.
		expect(t, do("bob", "PUT", "/storage/case/"+id+"/archive"), 401, "You must be case owner to perform this operation")
		expect(t, do("zed", "PUT", "/storage/case/"+id+"/archive"), 404, notFound)
		expect(t, do("alice", "PUT", "/storage/case/nosuch/archive"), 404, "A case with id 'nosuch' cannot be found.")
		expect(t, do("alice", "PUT", "/storage/case/"+id+"/archive"), 202, accepted)
		retiredOne := maps.Clone(noCase)
		retiredOne["retired_case_ids"]++
		sameCounts(t, "after archive", rowCounts(t, env), retiredOne)
		expect(t, get("alice"), 404, notFound)
		// The id stays taken.
		resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice",
			Body: map[string]any{"definition": "permit", "tenant": "acme", "caseInstanceId": id}})
		expect(t, resp, 400, "Failure while handling message StartCase. Check the server logs for more details")

		// Restore: back exactly as it was, for members only.
		expect(t, do("zed", "PUT", "/storage/case/"+id+"/restore"), 404, "An archive of case '"+id+"' cannot be found")
		expect(t, do("bob", "PUT", "/storage/case/"+id+"/restore"), 202, accepted)
		sameCounts(t, "after restore", rowCounts(t, env), withCase)
		expect(t, get("alice"), 200, caseBefore)
		expect(t, do("alice", "GET", "/cases/"+id+"/history/events"), 200, historyBefore)
		expect(t, do("alice", "PUT", "/storage/case/"+id+"/restore"), 404, "An archive of case '"+id+"' cannot be found")

		// Delete: owners only, gone for good.
		expect(t, do("bob", "DELETE", "/storage/case/"+id), 401, "You must be case owner to perform this operation")
		expect(t, do("alice", "DELETE", "/storage/case/"+id), 202, accepted)
		sameCounts(t, "after delete", rowCounts(t, env), retiredOne)
		expect(t, get("alice"), 404, notFound)
		expect(t, do("alice", "PUT", "/storage/case/"+id+"/restore"), 404, "An archive of case '"+id+"' cannot be found")
		expect(t, do("alice", "DELETE", "/storage/case/"+id), 404, notFound)

		// Delete a tenant with a running case in it.
		second := startPermit(t, env, "")
		expect(t, do("bob", "DELETE", "/storage/tenant/acme"), 401, "Only tenant owners can perform this operation")
		expect(t, do("alice", "DELETE", "/storage/tenant/nosuch"), 404, "Tenant 'nosuch' does not exist, or user 'alice' is not registered in it")
		expect(t, do("alice", "DELETE", "/storage/tenant/acme"), 202, accepted)
		retiredTwo := maps.Clone(empty)
		retiredTwo["retired_case_ids"] += 2
		sameCounts(t, "after tenant delete", rowCounts(t, env), retiredTwo)
		expect(t, get("alice"), 404, notFound)
		expect(t, do("alice", "GET", "/cases/"+second), 404, "A case with id '"+second+"' cannot be found.")
	})
}

// TestStorageWithGroup archives, restores and deletes a case whose team
// holds a consent group: its mapping rows go and come back with it, a
// group member holding the mapped role may restore it, and deleting it
// leaves no row behind.
func TestStorageWithGroup(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		accepted := "The request has been accepted for processing, but the processing has not been completed."
		do := func(user, method, path string) *servertest.Response {
			return env.Do(servertest.Request{Method: method, Path: path, User: user})
		}
		id := setupGroupInbox(t, env)
		withCase := rowCounts(t, env)
		if withCase["case_team_group_roles"] != 2 {
			t.Fatalf("mapping rows %d, want 2 (the mapping and its case role)", withCase["case_team_group_roles"])
		}
		expect(t, do("gina", "PUT", "/storage/case/"+id+"/archive"), 401, "You must be case owner to perform this operation")
		expect(t, do("alice", "PUT", "/storage/case/"+id+"/archive"), 202, accepted)
		archived := rowCounts(t, env)
		for _, table := range []string{"cases", "case_team_members", "case_team_group_roles", "tasks"} {
			if archived[table] != 0 {
				t.Errorf("after archive %s keeps %d rows", table, archived[table])
			}
		}
		// gus is in the group without the mapped role: no restore.
		expect(t, do("gus", "PUT", "/storage/case/"+id+"/restore"), 404, "An archive of case '"+id+"' cannot be found")
		expect(t, do("gina", "PUT", "/storage/case/"+id+"/restore"), 202, accepted)
		sameCounts(t, "after restore", rowCounts(t, env), withCase)
		expect(t, do("gina", "GET", "/cases/"+id), 200, "")
		expect(t, do("alice", "DELETE", "/storage/case/"+id), 202, accepted)
		sameCounts(t, "after delete", rowCounts(t, env), archived)
	})
}
