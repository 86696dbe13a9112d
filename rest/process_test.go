package rest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
	"github.com/casegraph/casegraph/service"
)

// registry is a test HTTP service for the permit fee model: it answers
// with the status and body it is set to, and records what it got.
type registry struct {
	*httptest.Server
	mu       sync.Mutex
	status   int
	delay    time.Duration
	requests []recorded
}

type recorded struct {
	method, path, body, key, applicant string
}

func newRegistry(t *testing.T) *registry {
	r := &registry{status: 200}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.requests = append(r.requests, recorded{req.Method, req.URL.Path, string(body), req.Header.Get("Idempotency-Key"), req.Header.Get("X-Applicant")})
		status, delay := r.status, r.delay
		r.mu.Unlock()
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-req.Context().Done():
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status == 200 {
			_, _ = w.Write([]byte(`{"rate": 3, "name": "Ann"}`))
		} else {
			_, _ = w.Write([]byte(`{"error": "no"}`))
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *registry) set(status int, delay time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status, r.delay = status, delay
}

func (r *registry) calls() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.requests...)
}

func processConfig(timeout time.Duration) func(*server.Config) {
	return func(c *server.Config) { c.ProcessTimeout = timeout }
}

// startPermit deploys the permit fee model and starts a case against
// registry base URL.
func startPermitFee(t *testing.T, env *servertest.Env, base string) string {
	t.Helper()
	createTenant(t, env, "acme")
	expect(t, deploy(env, "alice", "permitfee.xml", readModel(t, "permitfee.xml")), 204, "")
	resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: map[string]any{
		"definition": "permitfee", "tenant": "acme",
		"inputs":   map[string]any{"Request": map[string]any{"registry": base, "applicant": "ann", "area": 40, "urgent": true}},
		"caseTeam": map[string]any{"users": []map[string]any{{"userId": "alice", "isOwner": true}}},
	}})
	expect(t, resp, 200, "")
	var started struct{ CaseInstanceID string }
	resp.JSON(t, &started)
	return started.CaseInstanceID
}

func getFeeCase(t *testing.T, env *servertest.Env, id string) caseJSON {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "alice"})
	expect(t, resp, 200, "")
	var c caseJSON
	resp.JSON(t, &c)
	return c
}

func runCalls(t *testing.T, svc *service.Service, want int) {
	t.Helper()
	n, err := svc.RunDueCalls(context.Background())
	if err != nil || n != want {
		t.Fatalf("RunDueCalls = %d, %v; want %d", n, err, want)
	}
}

func outbox(t *testing.T, env *servertest.Env, caseID string) []db.OutboxCall {
	t.Helper()
	calls, err := db.OutboxCalls(context.Background(), env.Server.DB(), caseID)
	if err != nil {
		t.Fatal(err)
	}
	return calls
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestHTTPProcessTaskRunsToCompletion(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		reg := newRegistry(t)
		id := startPermitFee(t, env, reg.URL)
		lookup := itemByName(t, getFeeCase(t, env, id), "Lookup")
		if lookup.CurrentState != "Active" {
			t.Fatalf("Lookup = %+v", lookup)
		}
		// The call waits in the outbox, committed, and has not been made.
		rows := outbox(t, env, id)
		if len(rows) != 1 || rows[0].TaskID != lookup.ID || len(reg.calls()) != 0 {
			t.Fatalf("outbox = %+v, calls %v", rows, reg.calls())
		}
		runCalls(t, env.Server.Service(), 1)
		calls := reg.calls()
		if len(calls) != 1 {
			t.Fatalf("registry calls = %+v", calls)
		}
		got := calls[0]
		if got.method != "POST" || got.path != "/registry/ann" || got.body != `{"applicant": "ann", "area": 40}` || got.applicant != "ann" ||
			got.key != id+"/"+lookup.ID+"/"+rows[0].CallID {
			t.Fatalf("request = %+v", got)
		}
		c := getFeeCase(t, env, id)
		if c.State != "Completed" || jsonOf(c.File["Registry"]) != `{"name":"Ann","rate":3}` || jsonOf(c.File["Status"]) != "200" ||
			jsonOf(c.File["Fee"]) != "130" || c.File["Approved"] != true {
			t.Fatalf("case %s file %v", c.State, c.File)
		}
		if len(outbox(t, env, id)) != 0 {
			t.Fatal("outbox row left after the outcome")
		}
		runCalls(t, env.Server.Service(), 0)
	})
}

func TestHTTPProcessTaskFailures(t *testing.T) {
	cases := []struct {
		name   string
		status int
		delay  time.Duration
		closed bool
		reason string
		code   string
	}{
		{name: "4xx", status: 404, reason: "answered 404 Not Found", code: "404"},
		{name: "5xx", status: 503, reason: "answered 503 Service Unavailable", code: "503"},
		{name: "timeout", status: 200, delay: 2 * time.Second, reason: "timed out after 300ms"},
		{name: "refused", closed: true, reason: "connection refused"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
				reg := newRegistry(t)
				reg.set(tc.status, tc.delay)
				base := reg.URL
				if tc.closed {
					ln, err := net.Listen("tcp", "127.0.0.1:0")
					if err != nil {
						t.Fatal(err)
					}
					base = "http://" + ln.Addr().String()
					ln.Close()
				}
				id := startPermitFee(t, env, base)
				runCalls(t, env.Server.Service(), 1)
				c := getFeeCase(t, env, id)
				lookup := itemByName(t, c, "Lookup")
				if lookup.CurrentState != "Failed" || lookup.Transition != "Fault" {
					t.Fatalf("Lookup = %+v", lookup)
				}
				if tc.code != "" && jsonOf(c.File["ErrorCode"]) != tc.code {
					t.Errorf("ErrorCode = %v", c.File["ErrorCode"])
				}
				reason := failureReason(t, env, id, lookup.ID)
				if !strings.Contains(reason, tc.reason) {
					t.Errorf("failure reason %q, want it to contain %q", reason, tc.reason)
				}
				if len(outbox(t, env, id)) != 0 {
					t.Fatal("outbox row left after the failure")
				}
				if tc.closed {
					return
				}
				// Reactivating calls again; this time the registry answers.
				reg.set(200, 0)
				expect(t, transition(env, "alice", id, lookup.ID, "reactivate"), 200, "")
				if rows := outbox(t, env, id); len(rows) != 1 {
					t.Fatalf("outbox after reactivate = %+v", rows)
				}
				runCalls(t, env.Server.Service(), 1)
				if c := getFeeCase(t, env, id); c.State != "Completed" || jsonOf(c.File["Fee"]) != "130" {
					t.Fatalf("after retry: %s %v", c.State, c.File)
				}
				if calls := reg.calls(); len(calls) != 2 || calls[0].key == calls[1].key {
					t.Fatalf("registry calls = %+v", calls)
				}
			}, processConfig(300*time.Millisecond))
		})
	}
}

// failureReason reads the task's failure reason from the engine state,
// which both doors show.
func failureReason(t *testing.T, env *servertest.Env, caseID, taskID string) string {
	t.Helper()
	_, c, err := db.LoadCase(context.Background(), env.Server.DB(), caseID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.PlanItems {
		if p.ID == taskID && p.Process != nil {
			return p.Process.FailureReason
		}
	}
	return ""
}

// TestOutboxSurvivesACrash: a call committed but never made (the process
// died after the commit) is made by the next worker, once; a call whose
// worker died after claiming it is made again when its lease ends.
func TestOutboxSurvivesACrash(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		reg := newRegistry(t)
		id := startPermitFee(t, env, reg.URL)
		ctx := context.Background()

		// A claim by a worker that dies before calling.
		var claimed db.OutboxCall
		err := env.Server.DB().InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			c, ok, err := db.ClaimOutboxCall(ctx, tx, env.Server.DB().Flavor, time.Now(), time.Hour)
			if !ok && err == nil {
				t.Fatal("nothing to claim")
			}
			claimed = c
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		// Another replica, started fresh, leaves a leased row alone.
		var made []int
		replica := service.New(env.Server.DB(), service.Config{Process: service.ProcessConfig{
			Called: func(_ engine.CallProcess, attempt int) { made = append(made, attempt) }}})
		runCalls(t, replica, 0)
		if len(reg.calls()) != 0 {
			t.Fatal("a leased call was made")
		}
		// The lease ends: the row is claimed again and the call made once.
		if err := db.ExpireOutboxLeases(ctx, env.Server.DB(), time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		runCalls(t, replica, 1)
		if calls := reg.calls(); len(calls) != 1 || !strings.HasSuffix(calls[0].key, "/"+claimed.CallID) || len(made) != 1 || made[0] != 2 {
			t.Fatalf("calls = %+v, attempts %v", calls, made)
		}
		if c := getFeeCase(t, env, id); c.State != "Completed" {
			t.Fatalf("case is %s", c.State)
		}
		runCalls(t, env.Server.Service(), 0)
		if len(reg.calls()) != 1 {
			t.Fatal("the call was repeated")
		}
	})
}

func TestCommittedCallIsMadeByANewWorker(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		reg := newRegistry(t)
		id := startPermitFee(t, env, reg.URL)
		// The server "crashes": its worker never ran. A new service on
		// the same database makes the call, once.
		env.Stop()
		d, err := db.Open(context.Background(), env.DatabaseURL, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		fresh := service.New(d, service.Config{})
		runCalls(t, fresh, 1)
		runCalls(t, fresh, 0)
		if len(reg.calls()) != 1 {
			t.Fatalf("calls = %+v", reg.calls())
		}
		if _, c, err := db.LoadCase(context.Background(), d, id); err != nil || c.State() != engine.Completed {
			t.Fatalf("case = %v, %v", c.State(), err)
		}
	})
}

// smtpServer is a mail server that speaks just enough SMTP for one
// client at a time, and keeps what it got.
type smtpServer struct {
	addr string
	mu   sync.Mutex
	mail []smtpMail
}

type smtpMail struct {
	from string
	to   []string
	data string
}

func newSMTPServer(t *testing.T) *smtpServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &smtpServer{addr: ln.Addr().String()}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(conn)
		}
	}()
	return s
}

func (s *smtpServer) serve(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	say := func(line string) { _, _ = conn.Write([]byte(line + "\r\n")) }
	say("220 test ESMTP")
	var m smtpMail
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(strings.SplitN(line, " ", 2)[0])
		switch {
		case verb == "EHLO" || verb == "HELO":
			say("250 test")
		case strings.HasPrefix(strings.ToUpper(line), "MAIL FROM:"):
			m = smtpMail{from: strings.Trim(line[10:], "<> ")}
			say("250 ok")
		case strings.HasPrefix(strings.ToUpper(line), "RCPT TO:"):
			m.to = append(m.to, strings.Trim(line[8:], "<> "))
			say("250 ok")
		case verb == "DATA":
			say("354 go on")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(l)
			}
			m.data = b.String()
			s.mu.Lock()
			s.mail = append(s.mail, m)
			s.mu.Unlock()
			say("250 queued")
		case verb == "QUIT":
			say("221 bye")
			return
		default:
			say("250 ok")
		}
	}
}

func (s *smtpServer) got() []smtpMail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]smtpMail(nil), s.mail...)
}

func TestMailProcessTaskAndPDF(t *testing.T) {
	smtpSrv := newSMTPServer(t)
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		reg := newRegistry(t)
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "notify.xml", readModel(t, "notify.xml")), 204, "")
		resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: map[string]any{
			"definition": "notify", "tenant": "acme",
			"inputs": map[string]any{"Letter": map[string]any{"name": "Ann", "audit": reg.URL + "/audit",
				"to": []any{map[string]any{"email": "ann@example.com", "name": "Ann"}}, "cc": "bob@example.com",
				"attachments": []any{map[string]any{"fileName": "permit.txt", "mimeType": "text/plain", "content": "cGVybWl0"}}}},
			"caseTeam": map[string]any{"users": []map[string]any{{"userId": "alice", "isOwner": true}}},
		}})
		expect(t, resp, 200, "")
		var started struct{ CaseInstanceID string }
		resp.JSON(t, &started)
		id := started.CaseInstanceID
		c := getFeeCase(t, env, id)
		if itemByName(t, c, "Audit").CurrentState != "Completed" || itemByName(t, c, "Report").CurrentState != "Failed" ||
			itemByName(t, c, "Mail").CurrentState != "Active" {
			t.Fatalf("plan items = %+v", c.PlanItems)
		}
		if r := failureReason(t, env, id, itemByName(t, c, "Report").ID); r != "PDF reports are not supported by CaseGraph" {
			t.Errorf("Report reason = %q", r)
		}
		runCalls(t, env.Server.Service(), 2)
		if len(reg.calls()) != 1 || reg.calls()[0].path != "/audit" {
			t.Errorf("audit calls = %+v", reg.calls())
		}
		c = getFeeCase(t, env, id)
		if st := itemByName(t, c, "Mail").CurrentState; st != "Completed" {
			t.Fatalf("Mail is %s (%s)", st, failureReason(t, env, id, itemByName(t, c, "Mail").ID))
		}
		mails := smtpSrv.got()
		if len(mails) == 0 {
			t.Fatal("no mail arrived")
		}
		got := mails[0]
		if got.from != "casegraph@example.com" || strings.Join(got.to, ",") != "ann@example.com,bob@example.com" ||
			!strings.Contains(got.data, "Subject: Your permit, Ann") || !strings.Contains(got.data, `To: "Ann" <ann@example.com>`) ||
			!strings.Contains(got.data, "Cc: <bob@example.com>") || !strings.Contains(got.data, "cGVybWl0") {
			t.Fatalf("mail = %+v", got)
		}
	}, func(c *server.Config) { c.SMTPAddr = smtpSrv.addr; c.SMTPFrom = "casegraph@example.com" })
}

func TestMailWithoutServerFails(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "notify.xml", readModel(t, "notify.xml")), 204, "")
		resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: map[string]any{
			"definition": "notify", "tenant": "acme",
			"inputs":   map[string]any{"Letter": map[string]any{"name": "Ann", "to": "ann@example.com", "audit": "http://127.0.0.1:1/x"}},
			"caseTeam": map[string]any{"users": []map[string]any{{"userId": "alice", "isOwner": true}}},
		}})
		expect(t, resp, 200, "")
		var started struct{ CaseInstanceID string }
		resp.JSON(t, &started)
		runCalls(t, env.Server.Service(), 2)
		mail := itemByName(t, getFeeCase(t, env, started.CaseInstanceID), "Mail")
		if r := failureReason(t, env, started.CaseInstanceID, mail.ID); mail.CurrentState != "Failed" || !strings.Contains(r, "CASEGRAPH_SMTP_ADDR") {
			t.Fatalf("Mail = %+v, reason %q", mail, r)
		}
	})
}

// TestWorkerWakesOnCommit: the worker sleeps a long poll, yet a command
// that stores a call wakes it at once.
func TestWorkerWakesOnCommit(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		reg := newRegistry(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); env.Server.Service().RunProcessCalls(ctx, time.Hour) }()
		defer func() { cancel(); <-done }()
		id := startPermitFee(t, env, reg.URL)
		deadline := time.Now().Add(10 * time.Second)
		for getFeeCase(t, env, id).State != "Completed" {
			if time.Now().After(deadline) {
				t.Fatalf("the worker did not make the call; registry calls %+v", reg.calls())
			}
			time.Sleep(20 * time.Millisecond)
		}
		if len(reg.calls()) != 1 {
			t.Fatalf("calls = %+v", reg.calls())
		}
	})
}
