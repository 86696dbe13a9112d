package proof_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/load"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

// TestThreeReplicas runs three server processes on one fresh PostgreSQL
// schema under the load generator's mixed workload, spread over all three,
// then checks the invariants: owners, task and plan item states, gapless
// event sequences, read tables that agree with the events, every
// acknowledged command present, every timer fired exactly once.
func TestThreeReplicas(t *testing.T) {
	if dbtest.DatabaseURL() == "none" {
		t.Skip("replicas share a PostgreSQL database; TEST_DATABASE_URL=none")
	}
	url := dbtest.URL(t, db.Postgres)
	dataDir := t.TempDir()
	token := tokens(t, dataDir)
	// Started together, they race for the migration lock at start.
	servers := make([]*server, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			servers[i], errs[i] = spawn(t, url, dataDir, "")
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}

	var acks ackLog
	res, err := load.Run(context.Background(), load.Config{
		Targets:  []string{servers[0].URL(), servers[1].URL(), servers[2].URL()},
		Users:    6,
		Duration: 8 * time.Second,
		Token:    token,
		OnAck:    acks.add,
	})
	if err != nil {
		t.Fatal(err)
	}
	var report bytes.Buffer
	res.Stats.Report(&report, res.Elapsed)
	t.Logf("three replicas:\n%s", report.String())
	if res.Stats.Errors() != 0 {
		t.Errorf("requests failed with every replica up:\n%s", report.String())
	}
	if len(acks.list()) < 30 {
		t.Fatalf("only %d commands acknowledged in 8 s: too little load to prove anything", len(acks.list()))
	}
	d := openDB(t, url)
	waitTimers(t, d, res.Tenant, 20*time.Second)
	for _, s := range servers {
		s.stop()
	}
	checkInvariants(t, d, res.Tenant, acks.list(), true)
}

// TestKilledServer kills a server with SIGKILL in the middle of the
// workload and starts it again on the same address: every acknowledged
// command is there, no command is half applied, and work goes on.
func TestKilledServer(t *testing.T) {
	for _, flavor := range dbtest.Flavors() {
		t.Run(string(flavor), func(t *testing.T) {
			url := dbtest.URL(t, flavor)
			dataDir := t.TempDir()
			token := tokens(t, dataDir)
			srv := startServer(t, url, dataDir, "")

			var acks ackLog
			done := make(chan *load.Result, 1)
			go func() {
				res, err := load.Run(context.Background(), load.Config{
					Targets:  []string{srv.URL()},
					Users:    4,
					Duration: 6 * time.Second,
					Token:    token,
					OnAck:    acks.add,
					// Requests cut off by the kill fail fast.
					Client: &http.Client{Timeout: 5 * time.Second},
				})
				if err != nil {
					t.Error(err)
				}
				done <- res
			}()
			time.Sleep(2 * time.Second)
			before := len(acks.list())
			srv.kill()
			if before == 0 {
				t.Fatal("nothing was acknowledged before the kill")
			}
			time.Sleep(500 * time.Millisecond)
			srv = startServer(t, url, dataDir, srv.addr)
			res := <-done
			if res == nil {
				t.FailNow()
			}
			if after := len(acks.list()); after <= before {
				t.Errorf("no command acknowledged after the restart (%d before the kill, %d in all)", before, after)
			}
			var report bytes.Buffer
			res.Stats.Report(&report, res.Elapsed)
			t.Logf("killed and restarted:\n%s", report.String())

			// Work goes on: a run on the restarted server has no error.
			more, moreAcks := workGoesOn(t, []string{srv.URL()}, 2, 4, token, "after the restart")
			d := openDB(t, url)
			waitTimers(t, d, res.Tenant, 20*time.Second)
			waitTimers(t, d, more.Tenant, 20*time.Second)
			srv.stop()
			checkInvariants(t, d, res.Tenant, acks.list(), true)
			checkInvariants(t, d, more.Tenant, moreAcks.list(), true)
		})
	}
}

// TestTimerDueWhileDown starts a case whose timer falls due two seconds
// later, stops the only server before then, and starts it again after:
// the timer fires once, and the task it opens is there once.
func TestTimerDueWhileDown(t *testing.T) {
	for _, flavor := range dbtest.Flavors() {
		t.Run(string(flavor), func(t *testing.T) {
			url := dbtest.URL(t, flavor)
			dataDir := t.TempDir()
			token := tokens(t, dataDir)
			srv := startServer(t, url, dataDir, "")
			model, err := os.ReadFile("testdata/latetimer.xml")
			if err != nil {
				t.Fatal(err)
			}
			tenant := "late"
			call(t, srv, token, "admin", "POST", "/platform", "application/json",
				`{"name":"late","users":[{"userId":"olga","isOwner":true}]}`, http.StatusNoContent)
			call(t, srv, token, "olga", "POST", "/repository/deploy/latetimer?tenant=late", "application/xml", string(model), http.StatusNoContent)
			body := call(t, srv, token, "olga", "POST", "/cases", "application/json",
				`{"definition":"latetimer","tenant":"late"}`, http.StatusOK)
			srv.stop()
			started := time.Now()

			d := openDB(t, url)
			var caseID string
			if err := json.Unmarshal([]byte(body), &struct {
				ID *string `json:"caseInstanceId"`
			}{&caseID}); err != nil || caseID == "" {
				t.Fatalf("start case answered %s", body)
			}
			checkInvariants(t, d, tenant, nil, false)
			if n := len(query(t, d, "SELECT 1 FROM tasks WHERE case_id = ?", caseID)); n != 0 {
				t.Fatalf("the timer fired before the server stopped (%d tasks): the test proves nothing", n)
			}
			// Down past the due time.
			time.Sleep(time.Until(started.Add(3 * time.Second)))
			srv = startServer(t, url, dataDir, "")
			waitTimers(t, d, tenant, 15*time.Second)
			// A few more rounds of the timer loop: it must not fire again.
			time.Sleep(time.Second)
			srv.stop()
			checkInvariants(t, d, tenant, nil, true)
		})
	}
}

// call sends a request to srv as user and wants the status; it answers
// the body.
func call(t *testing.T, srv *server, token func(context.Context, string) (string, error), user, method, path, contentType, body string, want int) string {
	t.Helper()
	tok, err := token(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, srv.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, data, want)
	}
	return string(data)
}
