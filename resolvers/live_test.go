package resolvers_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/graph/client"
)

// liveClient is a minimal graphql-transport-ws client: what a browser's
// graphql-ws library does, over a real WebSocket.
type liveClient struct {
	t    testing.TB
	conn *websocket.Conn
}

type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// dialLive connects and sends connection_init with payload; it returns the
// error that ended the handshake (a refused upgrade or a close frame).
func dialLive(t testing.TB, env *servertest.Env, payload any) (*liveClient, error) {
	t.Helper()
	return dialLiveFrom(t, env, "", payload)
}

// dialLiveFrom is dialLive from a page of origin ("": none).
func dialLiveFrom(t testing.TB, env *servertest.Env, origin string, payload any) (*liveClient, error) {
	t.Helper()
	header := http.Header{}
	if origin != "" {
		header.Set("Origin", origin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(env.URL, "http")+"/graphql",
		&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: header})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("status %d: %w", resp.StatusCode, err)
		}
		return nil, err
	}
	c := &liveClient{t: t, conn: conn}
	t.Cleanup(func() { _ = conn.CloseNow() })
	p, _ := json.Marshal(payload)
	if err := wsjson.Write(ctx, conn, wsMessage{Type: "connection_init", Payload: p}); err != nil {
		return nil, err
	}
	for {
		m, err := c.read(ctx)
		if err != nil {
			return nil, err
		}
		if m.Type == "connection_ack" {
			return c, nil
		}
	}
}

func liveAs(t testing.TB, env *servertest.Env, user string) *liveClient {
	t.Helper()
	c, err := dialLive(t, env, map[string]string{"Authorization": "Bearer " + env.Issuer.Token(user)})
	if err != nil {
		t.Fatalf("live connection of %s: %v", user, err)
	}
	return c
}

// read returns the next message, answering pings on the way.
func (c *liveClient) read(ctx context.Context) (wsMessage, error) {
	for {
		var m wsMessage
		if err := wsjson.Read(ctx, c.conn, &m); err != nil {
			return m, err
		}
		if m.Type == "ping" {
			_ = wsjson.Write(ctx, c.conn, wsMessage{Type: "pong"})
			continue
		}
		return m, nil
	}
}

func (c *liveClient) subscribe(id, query string, vars map[string]any) {
	c.t.Helper()
	p, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err := wsjson.Write(context.Background(), c.conn, wsMessage{ID: id, Type: "subscribe", Payload: p}); err != nil {
		c.t.Fatal(err)
	}
}

// next waits for the next message of subscription id.
func (c *liveClient) next(id string, within time.Duration) (wsMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	for {
		m, err := c.read(ctx)
		if err != nil || m.ID == id {
			return m, err
		}
	}
}

type taskEvent struct {
	Kind          string
	MatchesFilter bool
	Task          struct {
		ID, Name, State string
		Assignee        *string
		Case            struct{ ID string }
	}
}

func (c *liveClient) nextTask(id string) taskEvent {
	c.t.Helper()
	m, err := c.next(id, 10*time.Second)
	if err != nil {
		c.t.Fatalf("waiting for a task event: %v", err)
	}
	if m.Type != "next" {
		c.t.Fatalf("want a next message, got %s %s", m.Type, m.Payload)
	}
	var body struct {
		Data   struct{ TaskChanged taskEvent }
		Errors []any
	}
	if err := json.Unmarshal(m.Payload, &body); err != nil || len(body.Errors) > 0 {
		c.t.Fatalf("task event %s: %v", m.Payload, err)
	}
	return body.Data.TaskChanged
}

const taskChangedQuery = `subscription($filter: TaskFilter, $after: Time) {
  taskChanged(filter: $filter, after: $after) { kind matchesFilter task { id name state assignee case { id } } }
}`

// waitListening waits until env hears other replicas' changes.
func waitListening(t *testing.T, envs ...*servertest.Env) {
	t.Helper()
	for _, env := range envs {
		dbtest.Until(t, 10*time.Second, "the live listener", func() (bool, error) { return env.Server.Service().LiveListening(), nil })
	}
}

// waitSubscribers waits until env has n subscriptions: the server
// registers one after the subscribe message, without a reply.
func waitSubscribers(t *testing.T, env *servertest.Env, n int) {
	t.Helper()
	dbtest.Until(t, 10*time.Second, "the subscription", func() (bool, error) { return env.Server.Service().Subscribers() >= n, nil })
}

// closeOf is the close code and reason that ended a connection.
func closeOf(err error) (websocket.StatusCode, string) {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Code, ce.Reason
	}
	return -1, fmt.Sprint(err)
}

// tasksFollowedOnOtherReplica starts two replicas, an incident case on the
// first, and carl following the tenant's tasks on the second; it returns
// the case's task.
func tasksFollowedOnOtherReplica(t *testing.T) (env, env2 *servertest.Env, taskID string, carl *liveClient) {
	t.Helper()
	env, env2 = twoReplicas(t)
	deployIncident(t, env)
	waitListening(t, env, env2)
	_, taskID = startIncident(t, env)
	carl = liveAs(t, env2, "carl")
	carl.subscribe("1", taskChangedQuery, map[string]any{"filter": map[string]any{"tenant": "acme"}})
	waitSubscribers(t, env2, 1)
	return env, env2, taskID, carl
}

// twoReplicas starts two servers on one fresh PostgreSQL schema, as two
// replicas of one deployment.
func twoReplicas(t *testing.T) (*servertest.Env, *servertest.Env) {
	t.Helper()
	env := servertest.Start(t, db.Postgres)
	dbURL := env.DatabaseURL
	return env, servertest.Start(t, db.Postgres, func(c *server.Config) { c.DatabaseURL = dbURL })
}

// TestLiveAcrossReplicas: two servers on one PostgreSQL database; what is
// committed on one reaches a subscriber of the other, read as that
// subscriber: a removed member hears nothing more of the case, and a
// disabled account is disconnected with a reason.
func TestLiveAcrossReplicas(t *testing.T) {
	if dbtest.DatabaseURL() == "none" {
		t.Skip("needs PostgreSQL")
	}
	t.Parallel()
	env, env2 := twoReplicas(t)
	deployIncident(t, env)
	setCarl(t, env, true)
	waitListening(t, env, env2)

	carl := liveAs(t, env2, "carl")
	carl.subscribe("1", taskChangedQuery, map[string]any{"filter": map[string]any{"tenant": "acme", "states": []string{"UNASSIGNED"}}})
	waitSubscribers(t, env2, 1)

	caseID, taskID := startIncident(t, env)
	ev := carl.nextTask("1")
	if ev.Kind != "StartCase" || ev.Task.ID != taskID || ev.Task.State != "UNASSIGNED" || !ev.MatchesFilter || ev.Task.Case.ID != caseID {
		t.Fatalf("start on the other replica: %+v", ev)
	}
	if _, err := client.ClaimTask(ctx, env.GraphQL("carl"), taskID); err != nil {
		t.Fatal(err)
	}
	ev = carl.nextTask("1")
	if ev.Kind != "ClaimTask" || ev.Task.ID != taskID || ev.Task.State != "ASSIGNED" || ev.MatchesFilter || ev.Task.Assignee == nil || *ev.Task.Assignee != "carl" {
		t.Fatalf("claim on the other replica: %+v", ev)
	}

	// Removed from the team: the removal and every later change of the
	// case stay unheard; a change of another case of carl's is heard, so
	// the earlier ones were read and skipped.
	if _, err := client.RemoveCaseTeamMember(ctx, env.GraphQL("alice"), caseID, "carl", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := client.AssignTask(ctx, env.GraphQL("alice"), taskID, "bob"); err != nil {
		t.Fatal(err)
	}
	other, otherTask := startIncident(t, env)
	ev = carl.nextTask("1")
	if ev.Task.Case.ID != other || ev.Task.ID != otherTask {
		t.Fatalf("after the removal carl heard %+v, want only case %s", ev, other)
	}

	// Disabled: the connection ends with a reason.
	setCarl(t, env, false)
	m, err := carl.next("1", 10*time.Second)
	code, reason := closeOf(err)
	if err == nil {
		t.Logf("got %s %s", m.Type, m.Payload)
	}
	if code != 4403 || !strings.Contains(reason, "carl") {
		t.Fatalf("disabled carl: close %d %q (%v), want 4403 naming the account", code, reason, err)
	}
}

// TestLiveSQLiteBus: on SQLite the in-process bus carries the changes;
// caseChanged follows one case and resumes with after.
func TestLiveSQLiteBus(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, db.SQLite)
	deployIncident(t, env)
	caseID, taskID := startIncident(t, env)
	before := time.Now().UTC()

	bob := liveAs(t, env, "bob")
	bob.subscribe("c", `subscription($id: ID!, $after: Time) { caseChanged(id: $id, after: $after) { kind case { id lastModified } } }`,
		map[string]any{"id": caseID})
	waitSubscribers(t, env, 1)
	if _, err := client.ClaimTask(ctx, env.GraphQL("carl"), taskID); err != nil {
		t.Fatal(err)
	}
	m, err := bob.next("c", 10*time.Second)
	if err != nil || m.Type != "next" || !strings.Contains(string(m.Payload), `"kind":"ClaimTask"`) || !strings.Contains(string(m.Payload), caseID) {
		t.Fatalf("caseChanged on SQLite: %s %s %v", m.Type, m.Payload, err)
	}

	// A reconnecting client names what it saw; the change since comes first.
	again := liveAs(t, env, "bob")
	again.subscribe("r", `subscription($id: ID!, $after: Time) { caseChanged(id: $id, after: $after) { kind } }`,
		map[string]any{"id": caseID, "after": before.Add(-time.Hour).Format(time.RFC3339Nano)})
	m, err = again.next("r", 10*time.Second)
	if err != nil || !strings.Contains(string(m.Payload), `"kind":"Resume"`) {
		t.Fatalf("resume: %s %v", m.Payload, err)
	}
	carl := liveAs(t, env, "carl")
	carl.subscribe("t", taskChangedQuery, map[string]any{"after": before.Add(-time.Hour).Format(time.RFC3339Nano)})
	if ev := carl.nextTask("t"); ev.Kind != "Resume" || ev.Task.ID != taskID {
		t.Fatalf("task resume: %+v", ev)
	}

	// A stranger may not follow the case.
	eve := liveAs(t, env, "eve")
	eve.subscribe("x", `subscription($id: ID!) { caseChanged(id: $id) { kind } }`, map[string]any{"id": caseID})
	m, err = eve.next("x", 10*time.Second)
	if err != nil || !strings.Contains(string(m.Payload), "NOT_FOUND") {
		t.Fatalf("stranger: %s %s %v", m.Type, m.Payload, err)
	}
}

// TestLiveAuthAndLimits: the token is checked at connection_init; the
// connections of a user and of the server are bounded; the cost limits
// apply to subscription documents.
func TestLiveAuthAndLimits(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, db.SQLite, func(c *server.Config) {
		c.LiveConnections, c.LiveConnectionsPerUser, c.GraphQLMaxDepth = 3, 2, 4
	})
	_, err := dialLive(t, env, map[string]string{})
	if code, reason := closeOf(err); code != 4401 || reason != "Authorization token is missing" {
		t.Fatalf("no token: %d %q", code, reason)
	}
	_, err = dialLive(t, env, map[string]string{"Authorization": "Bearer nonsense"})
	if code, _ := closeOf(err); code != 4401 {
		t.Fatalf("bad token: %v", err)
	}
	if _, err := dialLive(t, env, map[string]string{"token": env.Issuer.Token("alice")}); err != nil {
		t.Fatalf("token field: %v", err)
	}
	liveAs(t, env, "alice")
	_, err = dialLive(t, env, map[string]string{"token": env.Issuer.Token("alice")})
	if code, reason := closeOf(err); code != 4429 || !strings.Contains(reason, "Too many") {
		t.Fatalf("third connection of alice: %d %q", code, reason)
	}
	// The refused connection gives its slot back: bob gets the third.
	var bob *liveClient
	dbtest.Until(t, 5*time.Second, "the refused connection's slot", func() (bool, error) {
		bob, err = dialLive(t, env, map[string]string{"token": env.Issuer.Token("bob")})
		return err == nil, nil
	})
	_, err = dialLive(t, env, map[string]string{"token": env.Issuer.Token("dora")})
	if err == nil || !strings.Contains(err.Error(), "status 503") {
		t.Fatalf("fourth connection: %v, want 503", err)
	}

	bob.subscribe("d", `subscription { taskChanged { task { case { planItems { children { children { id } } } } } } }`, nil)
	m, err := bob.next("d", 10*time.Second)
	if err != nil || !strings.Contains(string(m.Payload), "levels deep") {
		t.Fatalf("deep subscription: %s %s %v", m.Type, m.Payload, err)
	}

	// One root field per subscription, even aliased twice (it failed as
	// an internal error).
	bob.subscribe("two", `subscription { a: taskChanged { kind } b: taskChanged { kind } }`, nil)
	m, err = bob.next("two", 10*time.Second)
	if err != nil || !strings.Contains(string(m.Payload), "A subscription selects exactly one root field; this one selects 2") ||
		!strings.Contains(string(m.Payload), "BAD_USER_INPUT") {
		t.Fatalf("two root fields: %s %s %v", m.Type, m.Payload, err)
	}
	// Over plain HTTP a subscription is refused at once (it waited for an
	// event until the request's deadline).
	req, _ := http.NewRequest("POST", env.URL+"/graphql", strings.NewReader(`{"query":"subscription { taskChanged { kind } }"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+env.Issuer.Token("bob"))
	started := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body graphQLBody
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if err != nil || len(body.Errors) != 1 || body.Errors[0].Extensions["code"] != "BAD_USER_INPUT" ||
		!strings.HasPrefix(body.Errors[0].Message, "Subscriptions are served over a WebSocket") || time.Since(started) > 5*time.Second {
		t.Fatalf("subscription over HTTP: %d %+v %v after %s", resp.StatusCode, body, err, time.Since(started))
	}

	// One connection runs a bounded number of subscriptions.
	for i := range 16 {
		bob.subscribe(fmt.Sprint("s", i), taskChangedQuery, nil)
	}
	waitSubscribers(t, env, 16)
	bob.subscribe("over", taskChangedQuery, nil)
	m, err = bob.next("over", 10*time.Second)
	if err != nil || !strings.Contains(string(m.Payload), "at most 16 subscriptions") {
		t.Fatalf("17th subscription: %s %s %v", m.Type, m.Payload, err)
	}
}

// TestLiveTokenExpiry: a live connection ends when its token expires.
func TestLiveTokenExpiry(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, db.SQLite)
	soon := env.Issuer.Sign(jwt.Claims{Subject: "alice", Expiry: jwt.NewNumericDate(time.Now().Add(2 * time.Second))}, nil)
	c, err := dialLive(t, env, map[string]string{"token": soon})
	if err != nil {
		t.Fatal(err)
	}
	c.subscribe("1", taskChangedQuery, nil)
	// A page of another origin may connect: only the token authenticates.
	if _, err := dialLiveFrom(t, env, "https://app.example.com", map[string]string{"token": env.Issuer.Token("bob")}); err != nil {
		t.Fatalf("front end on another origin: %v", err)
	}
	_, err = c.next("1", 10*time.Second)
	if code, reason := closeOf(err); code != 4401 || !strings.Contains(reason, "expired") {
		t.Fatalf("expired token: close %d %q (%v)", code, reason, err)
	}
}

// TestLivePendingUpgrades: upgrades that never send connection_init are
// bounded apart from the server's limit (a tenth of it), so that they
// cannot lock everyone out of subscriptions; a connection past its init
// no longer counts among them.
func TestLivePendingUpgrades(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, db.SQLite, func(c *server.Config) { c.LiveConnections = 30 })
	rawUpgrade := func() (*websocket.Conn, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(env.URL, "http")+"/graphql",
			&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
		if err != nil && resp != nil {
			return nil, fmt.Errorf("status %d: %w", resp.StatusCode, err)
		}
		return conn, err
	}
	var idle []*websocket.Conn
	for range 3 {
		conn, err := rawUpgrade()
		if err != nil {
			t.Fatalf("upgrade %d: %v", len(idle)+1, err)
		}
		idle = append(idle, conn)
	}
	if _, err := dialLive(t, env, map[string]string{"token": env.Issuer.Token("alice")}); err == nil || !strings.Contains(err.Error(), "status 503") {
		t.Fatalf("a fourth connection while three wait for their init: %v, want 503", err)
	}
	_ = idle[0].CloseNow()
	dbtest.Until(t, 5*time.Second, "the closed upgrade's slot", func() (bool, error) {
		_, err := dialLive(t, env, map[string]string{"token": env.Issuer.Token("alice")})
		return err == nil, nil
	})
	// alice, initialized, waits no more: bob gets a slot beside the two idle.
	if _, err := dialLive(t, env, map[string]string{"token": env.Issuer.Token("bob")}); err != nil {
		t.Fatalf("bob beside alice and two idle upgrades: %v", err)
	}
}

// TestLiveQueriesAndMutations: queries and mutations sent over a live
// connection get the loaders and budgets an HTTP request gets; without
// them a nested field failed as an internal error, after a mutation had
// committed.
func TestLiveQueriesAndMutations(t *testing.T) {
	env := servertest.Start(t, db.SQLite)
	caseID := setupPermit(t, env).Id
	alice := liveAs(t, env, "alice")
	alice.subscribe("q", `{ cases(first: 5) { edges { node { id caseRoles } } } }`, nil)
	m, err := alice.next("q", 10*time.Second)
	if err != nil || m.Type != "next" || strings.Contains(string(m.Payload), "errors") || !strings.Contains(string(m.Payload), "Reviewer") {
		t.Fatalf("a query over the live connection: %s %s %v", m.Type, m.Payload, err)
	}
	alice.subscribe("m", `mutation($id: ID!) { updateCaseFileItem(caseId: $id, path: "Application", value: {Floors: 4}) { id caseRoles } }`,
		map[string]any{"id": caseID})
	m, err = alice.next("m", 10*time.Second)
	if err != nil || m.Type != "next" || strings.Contains(string(m.Payload), "errors") || !strings.Contains(string(m.Payload), "Reviewer") {
		t.Fatalf("a mutation over the live connection: %s %s %v", m.Type, m.Payload, err)
	}
}

// TestLiveOperationDeadline: a query over a live connection has the
// server's request deadline, as over HTTP (it had none).
func TestLiveOperationDeadline(t *testing.T) {
	env := servertest.Start(t, db.SQLite, func(c *server.Config) { c.RequestTimeout = time.Nanosecond })
	alice := liveAs(t, env, "alice")
	alice.subscribe("q", `{ cases(first: 5) { edges { node { id } } } }`, nil)
	m, err := alice.next("q", 10*time.Second)
	if err != nil || !strings.Contains(string(m.Payload), "UNAVAILABLE") {
		t.Fatalf("a query past its deadline: %s %s %v", m.Type, m.Payload, err)
	}
	// Once: then the operation completes.
	if m, err = alice.next("q", 10*time.Second); err != nil || m.Type != "complete" {
		t.Fatalf("after the error: %s %s %v", m.Type, m.Payload, err)
	}
}
