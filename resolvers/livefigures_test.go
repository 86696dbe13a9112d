package resolvers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/graph/client"
)

// The figures of docs/performance.md ("Live updates"). They take a minute
// and a thousand sockets, so they run only when asked:
//
//	CASEGRAPH_LIVE_FIGURES=1 go test ./resolvers/ -run TestLiveFigures -v

// TestLiveFiguresDelay measures, over two servers on one PostgreSQL
// database, the time from sending a claim (or revoke) to one replica to its
// event reaching a subscriber of the other, next to the command's own time.
func TestLiveFiguresDelay(t *testing.T) {
	if os.Getenv("CASEGRAPH_LIVE_FIGURES") == "" || dbtest.DatabaseURL() == "none" {
		t.Skip("set CASEGRAPH_LIVE_FIGURES=1 (and have PostgreSQL) to measure")
	}
	env, _, taskID, carl := tasksFollowedOnOtherReplica(t)

	const n = 200
	var delays, commands, after []time.Duration
	for i := range n {
		sent := time.Now()
		var err error
		if i%2 == 0 {
			_, err = client.ClaimTask(ctx, env.GraphQL("carl"), taskID)
		} else {
			_, err = client.RevokeTask(ctx, env.GraphQL("carl"), taskID)
		}
		answered := time.Now()
		if err != nil {
			t.Fatal(err)
		}
		ev := carl.nextTask("1")
		received := time.Now()
		if want := map[bool]string{true: "ClaimTask", false: "RevokeTask"}[i%2 == 0]; ev.Kind != want {
			t.Fatalf("event %d: %s, want %s", i, ev.Kind, want)
		}
		delays = append(delays, received.Sub(sent))
		commands = append(commands, answered.Sub(sent))
		after = append(after, received.Sub(answered))
	}
	t.Logf("send→event on the other replica: p50 %v p99 %v; send→answer: p50 %v p99 %v; answer→event: p50 %v p99 %v",
		pct(delays, 50), pct(delays, 99), pct(commands, 50), pct(commands, 99), pct(after, 50), pct(after, 99))
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)].Round(10 * time.Microsecond)
}

// TestLiveFiguresMemory measures the memory of 1,000 idle connections,
// each with a taskChanged subscription, in a server process of its own (so
// that the clients' memory is not counted).
func TestLiveFiguresMemory(t *testing.T) {
	if os.Getenv("CASEGRAPH_LIVE_FIGURES") == "" {
		t.Skip("set CASEGRAPH_LIVE_FIGURES=1 to measure")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLiveFiguresServer$")
	cmd.Env = append(os.Environ(), "CASEGRAPH_LIVE_SERVER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var info struct{ URL, Stats, Token string }
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "LIVE "); ok {
			if err := json.Unmarshal([]byte(line), &info); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if info.URL == "" {
		t.Fatal("the server process did not start")
	}
	stats := func() (heap, sys uint64, goroutines int) {
		resp, err := http.Get(info.Stats)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var s struct {
			Heap, Sys  uint64
			Goroutines int
		}
		if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
			t.Fatal(err)
		}
		return s.Heap, s.Sys, s.Goroutines
	}
	env := &servertest.Env{URL: info.URL}
	warm := make([]*liveClient, 0, 1000)
	connect := func() {
		c, err := dialLive(t, env, map[string]string{"token": info.Token})
		if err != nil {
			t.Fatal(err)
		}
		c.subscribe("1", taskChangedQuery, nil)
		warm = append(warm, c)
	}
	for range 10 {
		connect()
	}
	heap0, sys0, g0 := stats()
	const n = 1000
	for range n {
		connect()
	}
	time.Sleep(time.Second)
	heap1, sys1, g1 := stats()
	if p := os.Getenv("CASEGRAPH_LIVE_HEAP"); p != "" {
		resp, err := http.Get(info.Stats + "/heap")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			_ = os.WriteFile(p, b, 0o600)
			resp.Body.Close()
		}
	}
	t.Logf("%d idle connections: heap %+d KiB (%.1f KiB each), runtime memory %+d KiB (%.1f KiB each), goroutines %+d (%.1f each)",
		n, (int64(heap1)-int64(heap0))>>10, float64(int64(heap1)-int64(heap0))/n/1024,
		(int64(sys1)-int64(sys0))>>10, float64(int64(sys1)-int64(sys0))/n/1024, g1-g0, float64(g1-g0)/n)
}

// TestLiveFiguresServer is the server process of TestLiveFiguresMemory.
func TestLiveFiguresServer(t *testing.T) {
	if os.Getenv("CASEGRAPH_LIVE_SERVER") == "" {
		t.Skip("the server process of TestLiveFiguresMemory")
	}
	env := servertest.Start(t, db.SQLite, func(c *server.Config) { c.LiveConnectionsPerUser = 5000 })
	stats := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		runtime.GC()
		if r.URL.Path == "/heap" {
			_ = pprof.Lookup("heap").WriteTo(w, 0)
			return
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		_ = json.NewEncoder(w).Encode(map[string]any{"Heap": m.HeapInuse + m.StackInuse, "Sys": m.Sys - m.HeapReleased,
			"Goroutines": runtime.NumGoroutine()})
	}))
	defer stats.Close()
	line, _ := json.Marshal(map[string]string{"URL": env.URL, "Stats": stats.URL, "Token": env.Issuer.Token("idle")})
	fmt.Printf("LIVE %s\n", line)
	time.Sleep(10 * time.Minute) // killed by the measuring test
}

// TestLiveFiguresFanout measures what one change costs with 1,000
// taskChanged subscribers on one server (PostgreSQL), of whom 10 are in
// the changed case's team: the SQL statements it sets off (the command's
// own included) and the time from sending it to the last member's event
// and to the last statement.
func TestLiveFiguresFanout(t *testing.T) {
	if os.Getenv("CASEGRAPH_LIVE_FIGURES") == "" || dbtest.DatabaseURL() == "none" {
		t.Skip("set CASEGRAPH_LIVE_FIGURES=1 (and have PostgreSQL) to measure")
	}
	env := servertest.Start(t, db.Postgres)
	deployIncident(t, env)
	team := []client.CaseTeamMemberInput{{MemberId: "alice", IsOwner: ptr(true)}}
	for i := range 10 {
		team = append(team, client.CaseTeamMemberInput{MemberId: fmt.Sprint("member", i), CaseRoles: []string{"Agent"}})
	}
	resp, err := client.StartCase(ctx, env.GraphQL("alice"), client.StartCaseInput{Definition: "incident", Tenant: ptr("acme"),
		Inputs: ptr(json.RawMessage(`{"Incident":{"Title":"Disk full","Severity":3}}`)), Team: team})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := client.CaseTasks(ctx, env.GraphQL("alice"), resp.StartCase.Id)
	if err != nil || len(tasks.Case.Tasks) != 1 {
		t.Fatalf("tasks: %+v %v", tasks, err)
	}
	taskID := tasks.Case.Tasks[0].Id
	var members []*liveClient
	for i := range 1000 {
		user := fmt.Sprint("stranger", i)
		if i%100 == 0 {
			user = fmt.Sprint("member", i/100)
		}
		c := liveAs(t, env, user)
		c.subscribe("1", taskChangedQuery, nil)
		if i%100 == 0 {
			members = append(members, c)
		}
	}
	waitSubscribers(t, env, 1000)
	hook := &lastStatement{}
	//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
	env.Server.DB().AddQueryHook(hook)

	const n = 10
	var toMembers, toQuiet []time.Duration
	var statements []int64
	for i := range n {
		hook.n.Store(0)
		sent := time.Now()
		if i%2 == 0 {
			_, err = client.ClaimTask(ctx, env.GraphQL("member0"), taskID)
		} else {
			_, err = client.RevokeTask(ctx, env.GraphQL("member0"), taskID)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range members {
			if ev := m.nextTask("1"); ev.Task.ID != taskID {
				t.Fatalf("a member heard %+v", ev)
			}
		}
		toMembers = append(toMembers, time.Since(sent))
		// Quiet: no statement for half a second.
		for {
			before := hook.n.Load()
			time.Sleep(500 * time.Millisecond)
			if hook.n.Load() == before {
				break
			}
		}
		statements = append(statements, hook.n.Load())
		toQuiet = append(toQuiet, time.Unix(0, hook.last.Load()).Sub(sent))
	}
	slices.Sort(statements)
	t.Logf("1,000 taskChanged subscribers, 10 in the team; per change: %d–%d statements (the command's own included); "+
		"send→last member's event p50 %v max %v; send→last statement p50 %v max %v",
		statements[0], statements[n-1], pct(toMembers, 50), pct(toMembers, 100), pct(toQuiet, 50), pct(toQuiet, 100))
}

// lastStatement counts statements and keeps when the last one ended.
type lastStatement struct {
	n    atomic.Int64
	last atomic.Int64 // Unix ns
}

func (h *lastStatement) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	h.n.Add(1)
	return ctx
}

func (h *lastStatement) AfterQuery(context.Context, *bun.QueryEvent) {
	h.last.Store(time.Now().UnixNano())
}
