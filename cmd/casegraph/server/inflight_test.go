package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

// holdHook holds, inside their handlers, the requests whose SQL names
// holdMarker: each signals entered and waits for release. The timer
// runner's statements and every other request pass.
type holdHook struct {
	entered chan struct{}
	release chan struct{}
}

const holdMarker = "inflighthold"

func (h *holdHook) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if strings.Contains(e.Query, holdMarker) {
		h.entered <- struct{}{}
		<-h.release
	}
	return ctx
}

func (h *holdHook) AfterQuery(context.Context, *bun.QueryEvent) {}

// holdRequests starts n requests that stay inside their handlers, holding
// their in-flight slots, until release is closed; done gets their statuses.
func holdRequests(t *testing.T, env *servertest.Env, n int) (hook *holdHook, done chan int) {
	t.Helper()
	hook = &holdHook{entered: make(chan struct{}), release: make(chan struct{})}
	//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
	env.Server.DB().AddQueryHook(hook)
	t.Cleanup(func() {
		select {
		case <-hook.release:
		default:
			close(hook.release)
		}
	})
	done = make(chan int, n)
	for range n {
		go func() {
			done <- env.Do(servertest.Request{Method: "GET", Path: "/cases?caseName=" + holdMarker, User: "alice"}).Status
		}()
		select {
		case <-hook.entered:
		case <-time.After(30 * time.Second):
			t.Fatal("a held request never reached its SQL")
		}
	}
	return hook, done
}

// slowBody is a request over a raw connection with "Expect: 100-continue"
// whose body the test has not sent: the server answers "100 Continue" when
// it starts reading the body.
func slowBody(t *testing.T, env *servertest.Env) {
	t.Helper()
	u, err := url.Parse(env.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /repository/validate HTTP/1.1\r\nHost: %s\r\nContent-Type: application/xml\r\n"+
		"Content-Length: 100000\r\nExpect: 100-continue\r\n\r\n", u.Host)
	status, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 100 ") {
		t.Fatalf("want 100 Continue, got %q %v", status, err)
	}
	if _, err := io.WriteString(conn, "<definitions"); err != nil {
		t.Fatal(err)
	}
}

// TestSlowBodyHoldsNoSlot: clients still sending their bodies hold no
// in-flight slot. They did: 64 connections trickling a body, without a
// token, made the server answer 503 to everyone for a minute at a time.
func TestSlowBodyHoldsNoSlot(t *testing.T) {
	env := servertest.Start(t, db.SQLite, func(c *server.Config) { c.MaxInFlight = 1 })
	for range 3 {
		slowBody(t, env)
	}
	if resp := env.Do(servertest.Request{Method: "GET", Path: "/tasks", User: "alice"}); resp.Status != http.StatusOK {
		t.Fatalf("with 3 slow bodies on a server of 1 slot: %d %s", resp.Status, resp.Body)
	}
}

// TestInFlightLimit: with the limit at 2, two requests held inside their
// handlers fill the server; a third gets 503 with Retry-After at once
// instead of queueing, while health probes still answer. When the held
// requests finish, their slots are free again.
func TestInFlightLimit(t *testing.T) {
	env := servertest.Start(t, db.SQLite, func(c *server.Config) { c.MaxInFlight = 2 })
	hook, done := holdRequests(t, env, 2)

	full := env.Do(servertest.Request{Method: "POST", Path: "/graphql", User: "alice", Body: map[string]string{"query": "{ __typename }"}})
	if full.Status != http.StatusServiceUnavailable || full.Header.Get("Retry-After") == "" {
		t.Fatalf("a third request got %d (Retry-After %q) %s, want 503 with Retry-After", full.Status, full.Header.Get("Retry-After"), full.Body)
	}
	// GraphQL clients read JSON; REST clients the reference's text.
	if full.Header.Get("Content-Type") != "application/json" || !strings.Contains(full.Body, `"code":"UNAVAILABLE"`) {
		t.Fatalf("GraphQL's 503: %q %s", full.Header.Get("Content-Type"), full.Body)
	}
	if rest := env.Do(servertest.Request{Method: "GET", Path: "/tasks", User: "alice"}); rest.Status != http.StatusServiceUnavailable ||
		rest.Body != "The server is currently unavailable (because it is overloaded or down for maintenance)." {
		t.Fatalf("a REST request while full got %d %s, want 503", rest.Status, rest.Body)
	}
	if probe := env.Do(servertest.Request{Method: "GET", Path: "/health"}); probe.Status != http.StatusOK {
		t.Fatalf("/health while full got %d %s, want 200", probe.Status, probe.Body)
	}

	close(hook.release)
	for i := range 2 {
		if status := <-done; status != http.StatusOK {
			t.Fatalf("held request %d ended with %d", i, status)
		}
	}
	if again := env.Do(servertest.Request{Method: "POST", Path: "/graphql", User: "alice", Body: map[string]string{"query": "{ __typename }"}}); again.Status != http.StatusOK {
		t.Fatalf("after the held requests finished: %d %s", again.Status, again.Body)
	}
}

// TestClientClosedCounted: a request whose client hung up before its
// answer is counted (and logged) as 499, not as the status it never saw.
func TestClientClosedCounted(t *testing.T) {
	env := servertest.Start(t, db.SQLite, func(c *server.Config) { c.AdminAddr = "127.0.0.1:0" })
	hook := &holdHook{entered: make(chan struct{}), release: make(chan struct{})}
	//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
	env.Server.DB().AddQueryHook(hook)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", env.URL+"/cases?caseName="+holdMarker, nil)
	req.Header.Set("Authorization", "Bearer "+env.Issuer.Token("alice"))
	gone := make(chan error, 1)
	go func() {
		_, err := http.DefaultClient.Do(req)
		gone <- err
	}()
	<-hook.entered
	cancel()
	<-gone
	time.Sleep(100 * time.Millisecond) // the server notices the closed connection
	close(hook.release)
	dbtest.Until(t, 5*time.Second, "the request counted as 499", func() (bool, error) {
		return strings.Contains(grepLines(scrape(t, env.Server.AdminHandler(), "/metrics"), "casegraph_http_requests_total"), `status="499"`), nil
	})
}
