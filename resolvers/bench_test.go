package resolvers_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/graph/client"
	"github.com/casegraph/casegraph/service"
)

// seedCases starts n cases of the named definition (deployed from
// testdata/cases) in tenant acme, with alice as owner and bob as Worker,
// Reviewer and Clerk, using a few goroutines.
func seedCases(b *testing.B, env *servertest.Env, definition string, n int) {
	b.Helper()
	svc := env.Server.Service()
	ctx := context.Background()
	owner := true
	tenant := "acme"
	if _, _, err := svc.CreateTenant(ctx, auth.Identity{UserID: servertest.PlatformOwner}, tenant, []service.UserInput{
		{UserID: "alice", IsOwner: &owner}, {UserID: "bob"}}); err != nil {
		b.Fatal(err)
	}
	xml, err := os.ReadFile("../testdata/cases/" + definition + ".xml")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svc.DeployDefinition(ctx, auth.Identity{UserID: "alice"}, &tenant, definition, xml); err != nil {
		b.Fatal(err)
	}
	var roles []string
	if definition == "checklist" {
		roles = []string{"Worker"}
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				_, err := svc.StartCase(ctx, auth.Identity{UserID: "alice"}, service.StartCaseInput{Definition: definition, Tenant: tenant,
					Team: []service.MemberInput{{ID: "alice", IsOwner: true}, {ID: "bob", CaseRoles: roles}}})
				if err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	} // A bulk load leaves the planner's statistics behind until autovacuum
	// analyzes the tables; a running system has them.
	if _, err := env.Server.DB().ExecContext(context.Background(), "ANALYZE"); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkNestedCasesQuery measures one GraphQL query over 1,000 cases on
// PostgreSQL, each with its case file, team (with member accounts) and plan
// items (with their stage and case): the path a front end's case list
// takes.
func BenchmarkNestedCasesQuery(b *testing.B) {
	env := servertest.Start(b, db.Postgres)
	seedCases(b, env, "permit", 1000)
	bob := env.GraphQL("bob")
	b.ResetTimer()
	for b.Loop() {
		resp, err := client.NestedCases(ctx, bob, ptr(1000))
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.Cases.Edges) != 1000 {
			b.Fatalf("%d cases", len(resp.Cases.Edges))
		}
	}
}
