package service_test

import (
	"context"
	"os"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/service"
)

// statementCounter counts the SQL statements a database runs.
type statementCounter struct{ n atomic.Int64 }

func (c *statementCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *statementCounter) AfterQuery(context.Context, *bun.QueryEvent) {}

// benchService is a service over a fresh database of flavor with tenant
// acme (owner alice) and permit.xml deployed.
func benchService(b *testing.B, flavor db.Dialect) (*service.Service, *statementCounter) {
	b.Helper()
	d := dbtest.Open(b, flavor)
	counter := &statementCounter{}
	//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
	d.AddQueryHook(counter)
	svc := service.New(d, service.Config{PlatformOwners: []string{"admin"}})
	ctx := context.Background()
	owner := true
	if _, _, err := svc.CreateTenant(ctx, auth.Identity{UserID: "admin"}, "acme", []service.UserInput{{UserID: "alice", IsOwner: &owner}}); err != nil {
		b.Fatal(err)
	}
	xml, err := os.ReadFile("../testdata/cases/permit.xml")
	if err != nil {
		b.Fatal(err)
	}
	tenant := "acme"
	if _, err := svc.DeployDefinition(ctx, auth.Identity{UserID: "alice"}, &tenant, "permit", xml); err != nil {
		b.Fatal(err)
	}
	return svc, counter
}

var alice = auth.Identity{UserID: "alice"}

func startPermit(b *testing.B, svc *service.Service) string {
	started, err := svc.StartCase(context.Background(), alice, service.StartCaseInput{Definition: "permit", Tenant: "acme",
		Inputs: map[string]any{"Application": map[string]any{"Applicant": "Ann", "Floors": 2}},
		Team:   []service.MemberInput{{ID: "alice", IsOwner: true, CaseRoles: []string{"Reviewer", "Clerk"}}}})
	if err != nil {
		b.Fatal(err)
	}
	return started.ID
}

// BenchmarkStartCase measures starting a case (one transaction: the case
// row, its events and read tables) and reports SQL statements per command.
func BenchmarkStartCase(b *testing.B) {
	for _, flavor := range dbtest.Flavors() {
		b.Run(string(flavor), func(b *testing.B) {
			svc, counter := benchService(b, flavor)
			b.ReportAllocs()
			counter.n.Store(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				startPermit(b, svc)
			}
			b.ReportMetric(float64(counter.n.Load())/float64(b.N), "stmts/op")
		})
	}
}

// BenchmarkTransition measures a plan-item transition on a running case:
// suspend and resume of its first task, alternately.
func BenchmarkTransition(b *testing.B) {
	for _, flavor := range dbtest.Flavors() {
		b.Run(string(flavor), func(b *testing.B) {
			svc, counter := benchService(b, flavor)
			id := startPermit(b, svc)
			ctx := context.Background()
			transitions := []string{"suspend", "resume"}
			b.ReportAllocs()
			counter.n.Store(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := svc.MakeTransition(ctx, alice, id, "Review application", transitions[i%2]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(counter.n.Load())/float64(b.N), "stmts/op")
		})
	}
}
