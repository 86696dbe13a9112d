package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/service"
)

// seedChecklists starts n checklist cases (ten Worker tasks each) in
// tenant acme, bob a Worker in each, from a few goroutines.
func seedChecklists(b *testing.B, env *servertest.Env, n int) {
	b.Helper()
	svc := env.Server.Service()
	ctx := context.Background()
	owner := true
	tenant := "acme"
	if _, _, err := svc.CreateTenant(ctx, auth.Identity{UserID: servertest.PlatformOwner}, tenant,
		[]service.UserInput{{UserID: "alice", IsOwner: &owner}, {UserID: "bob"}}); err != nil {
		b.Fatal(err)
	}
	xml, err := os.ReadFile("../testdata/cases/checklist.xml")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svc.DeployDefinition(ctx, auth.Identity{UserID: "alice"}, &tenant, "checklist", xml); err != nil {
		b.Fatal(err)
	}
	jobs := make(chan struct{})
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				_, err := svc.StartCase(ctx, auth.Identity{UserID: "alice"}, service.StartCaseInput{Definition: "checklist", Tenant: tenant,
					Team: []service.MemberInput{{ID: "alice", IsOwner: true}, {ID: "bob", CaseRoles: []string{"Worker"}}}})
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	} // A bulk load leaves the planner's statistics behind until autovacuum
	// analyzes the tables; a running system has them.
	if _, err := env.Server.DB().ExecContext(context.Background(), "ANALYZE"); err != nil {
		b.Fatal(err)
	}
}

// benchCases is the number of checklist cases the task benchmarks seed:
// 10,000 cases hold 100,000 tasks. CASEGRAPH_BENCH_CASES makes it smaller
// for a quick run.
func benchCases() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("CASEGRAPH_BENCH_CASES"), &n); err == nil && n > 0 {
		return n
	}
	return 10000
}

// BenchmarkTaskInbox measures GET /tasks for one user who is a Worker in
// every case, over ten tasks per case, on PostgreSQL: a page of 50
// unassigned tasks, newest first, then the next pages.
func BenchmarkTaskInbox(b *testing.B) {
	env := servertest.Start(b, db.Postgres)
	seedChecklists(b, env, benchCases())
	b.ResetTimer()
	page := 0
	for b.Loop() {
		resp := env.Do(servertest.Request{Method: "GET", User: "bob",
			Path: fmt.Sprintf("/tasks?taskState=Unassigned&numberOfResults=50&offset=%d", (page%20)*50)})
		if resp.Status != http.StatusOK || len(resp.Body) < 1000 {
			b.Fatalf("inbox: %d %.200s", resp.Status, resp.Body)
		}
		page++
	}
}

// BenchmarkClaimComplete measures claiming and completing a task over REST
// on PostgreSQL, one task after another.
func BenchmarkClaimComplete(b *testing.B) {
	env := servertest.Start(b, db.Postgres)
	seedChecklists(b, env, max(benchCases()/10, 100))
	tasks := tasksOf(b, env, "bob", "?taskState=Unassigned&numberOfResults=1000")
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if i >= len(tasks) {
			b.StopTimer()
			tasks = append(tasks, tasksOf(b, env, "bob", "?taskState=Unassigned&numberOfResults=1000")...)
			b.StartTimer()
		}
		id := tasks[i].ID
		i++
		if resp := taskDo(env, "bob", "PUT", id, "claim", nil); resp.Status != http.StatusAccepted {
			b.Fatalf("claim: %d %s", resp.Status, resp.Body)
		}
		if resp := taskDo(env, "bob", "POST", id, "complete", nil); resp.Status != http.StatusAccepted {
			b.Fatalf("complete: %d %s", resp.Status, resp.Body)
		}
	}
}
