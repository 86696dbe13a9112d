package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
)

// heldRequest is a GraphQL request sent over a raw connection with
// "Expect: 100-continue" and no body yet. The server answers "100
// Continue" only when the handler starts reading the body, past the
// in-flight limit: from then on the request holds its slot until the test
// sends the body.
type heldRequest struct {
	conn net.Conn
	r    *bufio.Reader
	body string
}

func holdRequest(t *testing.T, env *servertest.Env) *heldRequest {
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
	// A bound on every read and write, so a broken server fails the test
	// instead of hanging it.
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	h := &heldRequest{conn: conn, r: bufio.NewReader(conn), body: `{"query":"{ __typename }"}`}
	fmt.Fprintf(conn, "POST /graphql HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\nExpect: 100-continue\r\n\r\n", u.Host, env.Issuer.Token("alice"), len(h.body))
	status, err := h.r.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 100 ") {
		t.Fatalf("want 100 Continue, got %q %v", status, err)
	}
	if blank, err := h.r.ReadString('\n'); err != nil || blank != "\r\n" {
		t.Fatalf("after 100 Continue: %q %v", blank, err)
	}
	return h
}

// finish sends the body and returns the final answer's status.
func (h *heldRequest) finish(t *testing.T) int {
	t.Helper()
	if _, err := io.WriteString(h.conn, h.body); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(h.r, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// TestInFlightLimit: with the limit at 2, two requests held inside their
// handlers fill the server; a third gets 503 with Retry-After at once
// instead of queueing, while health probes still answer. When the held
// requests finish, their slots are free again.
func TestInFlightLimit(t *testing.T) {
	env := servertest.Start(t, db.SQLite, func(c *server.Config) { c.MaxInFlight = 2 })
	held := []*heldRequest{holdRequest(t, env), holdRequest(t, env)}

	full := env.Do(servertest.Request{Method: "POST", Path: "/graphql", User: "alice", Body: map[string]string{"query": "{ __typename }"}})
	if full.Status != http.StatusServiceUnavailable || full.Header.Get("Retry-After") == "" {
		t.Fatalf("a third request got %d (Retry-After %q) %s, want 503 with Retry-After", full.Status, full.Header.Get("Retry-After"), full.Body)
	}
	if rest := env.Do(servertest.Request{Method: "GET", Path: "/tasks", User: "alice"}); rest.Status != http.StatusServiceUnavailable {
		t.Fatalf("a REST request while full got %d, want 503", rest.Status)
	}
	if probe := env.Do(servertest.Request{Method: "GET", Path: "/health"}); probe.Status != http.StatusOK {
		t.Fatalf("/health while full got %d %s, want 200", probe.Status, probe.Body)
	}

	for i, h := range held {
		if status := h.finish(t); status != http.StatusOK {
			t.Fatalf("held request %d ended with %d", i, status)
		}
	}
	if again := env.Do(servertest.Request{Method: "POST", Path: "/graphql", User: "alice", Body: map[string]string{"query": "{ __typename }"}}); again.Status != http.StatusOK {
		t.Fatalf("after the held requests finished: %d %s", again.Status, again.Body)
	}
}
