package proof_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/load"
	"github.com/casegraph/casegraph/db/dbtest"
)

// unavailableMsg is the documented answer of a request the database could
// not serve (README, docs/graphql.md): 503 with Retry-After on REST,
// UNAVAILABLE on GraphQL.
const unavailableMsg = "The server is currently unavailable (because it is overloaded or down for maintenance)."

// restartRequestTimeout is the servers' CASEGRAPH_REQUEST_TIMEOUT here: no
// request may take longer, database down or not.
const restartRequestTimeout = 5 * time.Second

// TestPostgresRestart crashes PostgreSQL (immediate shutdown) under the
// load of two server processes, keeps it down for a few seconds and
// starts it again on the same port and data directory. While it is down
// every request answers 503 with the documented message at once and
// /readyz answers 503; once it is back, the same processes, never
// restarted, serve again within seconds and /readyz answers 200; no
// request ever answers 500 or hangs; every command acknowledged, before
// the crash or after, is in the database and none is half applied; the
// background workers log the outage once each (a warning as it starts, an
// info line as it ends), no error at every interval.
//
// It runs its own PostgreSQL server, so that stopping it disturbs no
// other suite; without PostgreSQL's server binaries it skips, except in
// CI.
func TestPostgresRestart(t *testing.T) {
	pg := startPrivatePostgres(t)
	url := pg.URL()
	dataDir := t.TempDir()
	token := tokens(t, dataDir)
	var servers [2]*server
	admin := map[*server]string{}
	for i := range servers {
		adminAddr := freeAddr()
		servers[i] = startServer(t, url, dataDir, "", "CASEGRAPH_ADMIN_ADDR="+adminAddr,
			"CASEGRAPH_REQUEST_TIMEOUT="+restartRequestTimeout.String(),
			// The workers' line at the end of the outage is info.
			"CASEGRAPH_LOG_LEVEL=info")
		admin[servers[i]] = adminAddr
	}
	for _, s := range servers {
		if code, body := get(t, "http://"+admin[s]+"/readyz"); code != http.StatusOK {
			t.Fatalf("readyz of %s before the crash: %d %s", s.addr, code, body)
		}
	}

	rec := &recorder{base: http.DefaultTransport}
	var acks ackLog
	// A test that fails early ends the load with it.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan *load.Result, 1)
	go func() {
		res, err := load.Run(ctx, load.Config{
			Targets:  []string{servers[0].URL(), servers[1].URL()},
			Users:    4,
			Duration: 14 * time.Second,
			Token:    token,
			OnAck:    acks.add,
			// Past the servers' request timeout: a request that reaches
			// it is a hang, reported by the recorder, not cut off here.
			Client: &http.Client{Timeout: 3 * restartRequestTimeout, Transport: rec},
		})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	dbtest.Until(t, 20*time.Second, "the load has 20 commands acknowledged", func() (bool, error) {
		return len(acks.list()) >= 20, nil
	})
	before := acks.list()
	// The member a team change added reads the case: a probe of a case
	// that exists.
	var member, probeCase string
	for _, a := range before {
		if a.Op == load.OpTeamChange {
			member, probeCase = a.User, a.CaseID
			break
		}
	}
	if probeCase == "" {
		t.Fatalf("none of %d acknowledged commands is a team change", len(before))
	}

	pg.crash()
	downAt := time.Now()
	for _, s := range servers {
		code, body := get(t, "http://"+admin[s]+"/readyz")
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "database unreachable") {
			t.Errorf("readyz of %s with PostgreSQL down: %d %s", s.addr, code, body)
		}
		probeDown(t, s, token, member, probeCase)
	}
	// Down long enough for the load to meet the outage many times.
	dbtest.Until(t, 10*time.Second, "the load got 30 answers while PostgreSQL is down", func() (bool, error) {
		return rec.countSince(downAt) >= 30, nil
	})
	time.Sleep(time.Until(downAt.Add(3 * time.Second)))
	upAt := time.Now()
	pg.start()
	backAt := time.Now()
	t.Logf("PostgreSQL down for %s, recovery and start took %s", upAt.Sub(downAt).Round(time.Millisecond), backAt.Sub(upAt).Round(time.Millisecond))

	// The same processes serve again, without a restart.
	for _, s := range servers {
		dbtest.Until(t, 10*time.Second, "the server on "+s.addr+" serves the case again", func() (bool, error) {
			code, _ := request(t, s, token, member, "GET", "/cases/"+probeCase, "")
			return code == http.StatusOK, nil
		})
		t.Logf("%s serves again %s after PostgreSQL accepts queries", s.addr, time.Since(backAt).Round(time.Millisecond))
		if code, body := get(t, "http://"+admin[s]+"/readyz"); code != http.StatusOK {
			t.Errorf("readyz of %s with PostgreSQL back: %d %s", s.addr, code, body)
		}
		select {
		case <-s.exited:
			t.Fatalf("the server on %s exited", s.addr)
		default:
		}
	}

	res := <-done
	if res == nil {
		t.FailNow()
	}
	var report bytes.Buffer
	res.Stats.Report(&report, res.Elapsed)
	t.Logf("PostgreSQL crashed and restarted:\n%s", report.String())
	if n := acks.countSince(len(before)); n == 0 {
		t.Errorf("no command acknowledged after PostgreSQL came back (%d before the crash)", len(before))
	}
	rec.check(t, downAt, upAt)

	// Work goes on: a short run on both servers has no error.
	more, moreAcks := workGoesOn(t, []string{servers[0].URL(), servers[1].URL()}, 2, 6, token, "after PostgreSQL came back")

	d := openDB(t, url)
	waitTimers(t, d, res.Tenant, 20*time.Second)
	waitTimers(t, d, more.Tenant, 20*time.Second)
	for _, s := range servers {
		s.stop()
	}
	// The background workers met the outage as one warning each, not an
	// error at every interval (docs/operations.md).
	for _, s := range servers {
		logs := s.logs.String()
		for _, msg := range []string{"firing timers failed", "reading the next timer failed",
			"claiming a process call failed", "reading the next process call failed"} {
			if n := strings.Count(logs, msg); n != 0 {
				t.Errorf("the server on %s logged %q %d times", s.addr, msg, n)
			}
		}
		// Once each; a broken pooled connection met after the first
		// success may make a second, short outage.
		for _, what := range []string{"timers", "process calls"} {
			paused := strings.Count(logs, "database unavailable; "+what+" paused")
			resumed := strings.Count(logs, "database available again; "+what+" resumed")
			if paused < 1 || paused > 2 || resumed != paused {
				t.Errorf("the server on %s logged that %s paused %d times and resumed %d times; want once each", s.addr, what, paused, resumed)
			}
		}
		errs := 0
		for _, line := range strings.Split(logs, "\n") {
			if strings.Contains(line, "database available again") {
				t.Logf("%s: %s", s.addr, line)
			}
			if strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, "level=ERROR") {
				errs++
			}
		}
		t.Logf("%s logged %d lines at ERROR in all", s.addr, errs)
	}
	// Every acknowledged command, those before the crash among them, is
	// there: none was acknowledged before its transaction committed.
	checkInvariants(t, d, res.Tenant, acks.list(), true)
	checkInvariants(t, d, more.Tenant, moreAcks.list(), true)
}

// probeDown asks s for a case over REST and over GraphQL while the
// database is down: 503 with Retry-After and the documented message, and
// UNAVAILABLE, both well within the request timeout.
func probeDown(t *testing.T, s *server, token func(context.Context, string) (string, error), user, caseID string) {
	t.Helper()
	start := time.Now()
	code, body := request(t, s, token, user, "GET", "/cases/"+caseID, "")
	if code != http.StatusServiceUnavailable || body != unavailableMsg {
		t.Errorf("GET /cases/%s on %s with PostgreSQL down: %d %q, want 503 %q", caseID, s.addr, code, body, unavailableMsg)
	}
	query, _ := json.Marshal(map[string]any{"query": "query($id: ID!) { case(id: $id) { id state } }", "variables": map[string]any{"id": caseID}})
	_, body = request(t, s, token, user, "POST", "/graphql", string(query))
	if codes := graphQLCodes(body); len(codes) == 0 || codes[0] != "UNAVAILABLE" {
		t.Errorf("GraphQL case read on %s with PostgreSQL down: %s, want UNAVAILABLE", s.addr, body)
	}
	if took := time.Since(start); took > restartRequestTimeout {
		t.Errorf("two requests on %s with PostgreSQL down took %s", s.addr, took)
	}
}

// request sends a request as user to s and answers the status and body.
func request(t *testing.T, s *server, token func(context.Context, string) (string, error), user, method, path, body string) (int, string) {
	t.Helper()
	tok, err := token(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 2 * restartRequestTimeout}).Do(req)
	if err != nil {
		t.Fatalf("%s %s on %s: %v", method, path, s.addr, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(data)
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := (&http.Client{Timeout: 2 * restartRequestTimeout}).Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(data)
}

// graphQLCodes lists the extensions.code of a GraphQL answer's errors.
func graphQLCodes(body string) []string {
	var resp struct {
		Errors []struct {
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if json.Unmarshal([]byte(body), &resp) != nil {
		return nil
	}
	var codes []string
	for _, e := range resp.Errors {
		codes = append(codes, e.Extensions.Code)
	}
	return codes
}

func (a *ackLog) countSince(n int) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.acks) - n
}

// exchange is one request the load generator made and what came of it.
type exchange struct {
	method, path string
	start, end   time.Time
	status       int
	retryAfter   string
	body         string // of a failure or a GraphQL answer, trimmed
	err          error  // the transport's, when no answer came
	cancelled    bool   // the run ended while it went
}

// recorder is the load generator's transport: it keeps every exchange, for
// the checks the load's own statistics cannot make (statuses, bodies,
// durations).
type recorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	log  []exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	x := exchange{method: req.Method, path: req.URL.Path, start: time.Now()}
	resp, err := r.base.RoundTrip(req)
	if err == nil {
		var data []byte
		data, err = io.ReadAll(io.LimitReader(resp.Body, 4<<20))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(data))
		x.status, x.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
		if resp.StatusCode/100 != 2 || req.URL.Path == "/graphql" {
			x.body = string(data[:min(len(data), 2000)])
		}
	}
	x.end, x.err, x.cancelled = time.Now(), err, req.Context().Err() != nil
	r.mu.Lock()
	r.log = append(r.log, x)
	r.mu.Unlock()
	return resp, err
}

// countSince is the number of answers to requests sent after t.
func (r *recorder) countSince(t time.Time) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, x := range r.log {
		if x.start.After(t) && x.err == nil {
			n++
		}
	}
	return n
}

// check holds every exchange of the run to the promises: an answer came
// within the request timeout, never a 500 or an INTERNAL_SERVER_ERROR;
// a request sent after PostgreSQL went down and answered before it was
// started again got 503 with Retry-After and the documented message
// (UNAVAILABLE on GraphQL).
func (r *recorder) check(t *testing.T, downAt, upAt time.Time) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var down, downOK int
	fails := 0
	fail := func(format string, args ...any) {
		if fails++; fails <= 10 {
			t.Errorf(format, args...)
		}
	}
	for _, x := range r.log {
		took := x.end.Sub(x.start)
		name := fmt.Sprintf("%s %s at %+.3fs", x.method, x.path, x.start.Sub(downAt).Seconds())
		if x.err != nil {
			if !x.cancelled {
				fail("%s: no answer after %s: %v", name, took.Round(time.Millisecond), x.err)
			}
			continue
		}
		// A second for the answer to travel after the server's deadline.
		if took > restartRequestTimeout+time.Second {
			fail("%s took %s, past the request timeout %s", name, took.Round(time.Millisecond), restartRequestTimeout)
		}
		codes := graphQLCodes(x.body)
		if x.status == http.StatusInternalServerError || contains(codes, "INTERNAL_SERVER_ERROR") {
			fail("%s answered %d %s", name, x.status, x.body)
		}
		if !x.start.After(downAt) || !x.end.Before(upAt) {
			continue
		}
		down++
		switch {
		case x.path == "/graphql":
			if len(codes) > 0 && codes[0] == "UNAVAILABLE" {
				downOK++
			} else {
				fail("%s with PostgreSQL down answered %d %s, want UNAVAILABLE", name, x.status, x.body)
			}
		case x.status == http.StatusServiceUnavailable && x.body == unavailableMsg && x.retryAfter != "":
			downOK++
		default:
			fail("%s with PostgreSQL down answered %d (Retry-After %q) %q, want 503 %q", name, x.status, x.retryAfter, x.body, unavailableMsg)
		}
	}
	t.Logf("%d requests in all; %d sent and answered while PostgreSQL was down, %d of them as promised", len(r.log), down, downOK)
	if down < 30 {
		t.Errorf("only %d requests met the outage: too few to prove anything", down)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
