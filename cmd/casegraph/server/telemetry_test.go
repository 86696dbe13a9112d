package server_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Khan/genqlient/graphql"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/graph/client"
)

func ptr[T any](v T) *T { return &v }

// setupMinimal creates tenant acme with alice as owner and deploys the
// minimal model there.
func setupMinimal(t testing.TB, env *servertest.Env) {
	t.Helper()
	ctx := context.Background()
	if _, err := client.CreateTenant(ctx, env.GraphQL(servertest.PlatformOwner), client.CreateTenantInput{Name: "acme",
		Users: []client.TenantUserInput{{UserId: "alice", IsOwner: ptr(true), Roles: []string{"Clerk"}}}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../../testdata/cmmn/minimal.xml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.DeployDefinition(ctx, env.GraphQL("alice"), ptr("acme"), "minimal", string(b)); err != nil {
		t.Fatal(err)
	}
}

// startRESTCase starts a minimal case over REST and returns its id.
func startRESTCase(t testing.TB, env *servertest.Env) string {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice",
		Body: map[string]any{"definition": "minimal", "tenant": "acme"}})
	if resp.Status != http.StatusOK {
		t.Fatalf("start case: %d %s", resp.Status, resp.Body)
	}
	var started struct{ CaseInstanceID string }
	resp.JSON(t, &started)
	return started.CaseInstanceID
}

// scrape GETs path from h and returns the body, failing unless 200.
func scrape(t *testing.T, h http.Handler, path string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	return rec.Body.String()
}

var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)
var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// sample is the value of the series name with (at least) the labels want
// in the Prometheus text exposition, and whether there is one.
func sample(body, name string, want map[string]string) (float64, bool) {
	for _, line := range strings.Split(body, "\n") {
		m := sampleLine.FindStringSubmatch(line)
		if m == nil || m[1] != name {
			continue
		}
		labels := map[string]string{}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			labels[p[1]] = p[2]
		}
		match := true
		for k, v := range want {
			if labels[k] != v {
				match = false
			}
		}
		if match {
			v, err := strconv.ParseFloat(m[3], 64)
			return v, err == nil
		}
	}
	return 0, false
}

func TestMetricsAfterRequests(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		setupMinimal(t, env)
		id := startRESTCase(t, env)
		if resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "alice"}); resp.Status != 200 {
			t.Fatalf("get case: %d %s", resp.Status, resp.Body)
		}
		if resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/nope", User: "alice"}); resp.Status != 404 {
			t.Fatalf("get unknown case: %d %s", resp.Status, resp.Body)
		}
		ctx := context.Background()
		if _, err := client.StartCase(ctx, env.GraphQL("alice"), client.StartCaseInput{Definition: "minimal", Tenant: ptr("acme")}); err != nil {
			t.Fatal(err)
		}
		// An unknown tenant: the command refuses it, the response carries
		// the error's code.
		if _, err := client.StartCase(ctx, env.GraphQL("alice"), client.StartCaseInput{Definition: "minimal", Tenant: ptr("nowhere")}); err == nil {
			t.Fatal("starting a case in an unknown tenant succeeded")
		}

		body := scrape(t, env.Server.Handler(), "/metrics")
		for _, c := range []struct {
			name   string
			labels map[string]string
			min    float64
		}{
			{"casegraph_http_requests_total", map[string]string{"route": "/cases", "method": "POST", "status": "200"}, 1},
			{"casegraph_http_requests_total", map[string]string{"route": "/cases/{caseId}", "method": "GET", "status": "200"}, 1},
			{"casegraph_http_requests_total", map[string]string{"route": "/cases/{caseId}", "method": "GET", "status": "404"}, 1},
			{"casegraph_http_requests_total", map[string]string{"route": "/graphql", "method": "POST", "status": "200"}, 4},
			{"casegraph_http_request_duration_seconds_count", map[string]string{"route": "/cases/{caseId}", "method": "GET"}, 2},
			{"casegraph_http_request_duration_seconds_bucket", map[string]string{"route": "/cases", "method": "POST", "le": "+Inf"}, 1},
			{"casegraph_graphql_operations_total", map[string]string{"operation": "StartCase", "outcome": "ok"}, 1},
			{"casegraph_graphql_operations_total", map[string]string{"operation": "StartCase", "outcome": "error"}, 1},
			{"casegraph_graphql_operations_total", map[string]string{"operation": "CreateTenant", "outcome": "ok"}, 1},
			{"casegraph_graphql_errors_total", map[string]string{"operation": "StartCase", "code": "NOT_FOUND"}, 1},
			{"casegraph_graphql_operation_duration_seconds_count", map[string]string{"operation": "DeployDefinition"}, 1},
			{"casegraph_commands_total", map[string]string{"kind": "StartCase", "outcome": "ok"}, 2},
			{"casegraph_commands_total", map[string]string{"kind": "StartCase", "outcome": "not_found"}, 1},
			{"casegraph_commands_total", map[string]string{"kind": "CreateTenant", "outcome": "ok"}, 1},
			{"casegraph_command_duration_seconds_count", map[string]string{"kind": "StartCase"}, 3},
			{"go_sql_open_connections", map[string]string{"db_name": string(env.Flavor)}, 1},
			{"go_goroutines", nil, 1},
			{"process_resident_memory_bytes", nil, 1},
		} {
			got, ok := sample(body, c.name, c.labels)
			if !ok || got < c.min {
				t.Errorf("%s%v = %v (present %v), want at least %v", c.name, c.labels, got, ok, c.min)
			}
		}
		// Label sets stay bounded: no raw path or id becomes a label.
		if strings.Contains(body, id) || strings.Contains(body, "/cases/nope") {
			t.Errorf("a case id or raw path is a label value:\n%s", grepLines(body, "casegraph_http"))
		}
	})
}

func grepLines(body, prefix string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestOperationNamesBounded: clients choose GraphQL operation names, so
// past the cap every new name is counted as "other".
func TestOperationNamesBounded(t *testing.T) {
	env := servertest.Start(t, db.SQLite)
	for i := range 105 {
		resp := env.Do(servertest.Request{Method: "POST", Path: "/graphql", Body: map[string]any{
			"query": "query Op" + strconv.Itoa(i) + " { __typename }"}})
		if resp.Status != 200 {
			t.Fatalf("query %d: %d %s", i, resp.Status, resp.Body)
		}
	}
	resp := env.Do(servertest.Request{Method: "POST", Path: "/graphql", Body: map[string]any{"query": "{ __typename }"}})
	if resp.Status != 200 {
		t.Fatal(resp.Body)
	}
	body := scrape(t, env.Server.Handler(), "/metrics")
	if v, _ := sample(body, "casegraph_graphql_operations_total", map[string]string{"operation": "other"}); v != 5 {
		t.Errorf("other = %v, want 5", v)
	}
	if v, _ := sample(body, "casegraph_graphql_operations_total", map[string]string{"operation": "anonymous"}); v != 1 {
		t.Errorf("anonymous = %v, want 1", v)
	}
	if _, ok := sample(body, "casegraph_graphql_operations_total", map[string]string{"operation": "Op104"}); ok {
		t.Error("a name past the cap became a label")
	}
}

// TestAdminListener: with an admin address, probes, metrics and profiles
// are served there and only there.
func TestAdminListener(t *testing.T) {
	env := servertest.Start(t, db.SQLite, func(c *server.Config) { c.AdminAddr = "127.0.0.1:0" })
	admin := env.Server.AdminHandler()
	if got := scrape(t, admin, "/livez"); got != "ok" {
		t.Errorf("livez: %q", got)
	}
	if got := scrape(t, admin, "/readyz"); got != "ready" {
		t.Errorf("readyz: %q", got)
	}
	if got := scrape(t, admin, "/debug/pprof/"); !strings.Contains(got, "goroutine") {
		t.Errorf("pprof index: %.200s", got)
	}
	if got := scrape(t, admin, "/debug/pprof/goroutine?debug=1"); !strings.Contains(got, "goroutine profile") {
		t.Errorf("goroutine profile: %.200s", got)
	}
	env.Do(servertest.Request{Method: "GET", Path: "/status"})
	if got := scrape(t, admin, "/metrics"); !strings.Contains(got, `casegraph_http_requests_total{method="GET",route="/status",status="200"}`) {
		t.Errorf("admin metrics: %s", grepLines(got, "casegraph_http_requests_total"))
	}
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap", "/metrics", "/livez", "/readyz"} {
		if resp := env.Do(servertest.Request{Method: "GET", Path: path}); resp.Status != http.StatusNotFound {
			t.Errorf("main listener GET %s: %d, want 404", path, resp.Status)
		}
	}
	// /status and /health answer as before.
	if resp := env.Do(servertest.Request{Method: "GET", Path: "/status"}); resp.Status != 200 {
		t.Errorf("status: %d", resp.Status)
	}
	if resp := env.Do(servertest.Request{Method: "GET", Path: "/health"}); resp.Status != 200 {
		t.Errorf("health: %d %s", resp.Status, resp.Body)
	}
}

// TestNoMetrics: a server without metrics serves no /metrics.
func TestNoMetrics(t *testing.T) {
	env := servertest.Start(t, db.SQLite, func(c *server.Config) { c.NoMetrics = true })
	if resp := env.Do(servertest.Request{Method: "GET", Path: "/metrics"}); resp.Status != http.StatusNotFound {
		t.Errorf("GET /metrics: %d", resp.Status)
	}
	rec := httptest.NewRecorder()
	env.Server.AdminHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("admin GET /metrics: %d", rec.Code)
	}
}

// headerClient is a genqlient client that sends header with each request
// and keeps the last response's headers.
type headerClient struct {
	header http.Header
	last   http.Header
	token  string
}

func (h *headerClient) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.header {
		r.Header[k] = v
	}
	r.Header.Set("Authorization", "Bearer "+h.token)
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		h.last = resp.Header
	}
	return resp, err
}

func (h *headerClient) client(url string) graphql.Client {
	return graphql.NewClient(url+"/graphql", &http.Client{Transport: h})
}

// TestServeAdminListener: Serve opens the admin listener beside the main
// one and closes both at shutdown.
func TestServeAdminListener(t *testing.T) {
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	adminAddr := free.Addr().String()
	free.Close()
	env := servertest.Start(t, db.SQLite, func(c *server.Config) { c.AdminAddr = adminAddr })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- env.Server.Serve(ctx, ln, time.Second) }()
	var resp *http.Response
	// The admin listener opens inside Serve, after the main one.
	dbtest.Until(t, 5*time.Second, "the admin listener answers", func() (bool, error) {
		resp, err = http.Get("http://" + adminAddr + "/readyz")
		return err == nil, nil
	})
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("admin /readyz: %d", resp.StatusCode)
	}
	if resp, err := http.Get("http://" + ln.Addr().String() + "/debug/pprof/"); err != nil || resp.StatusCode != 404 {
		t.Errorf("main listener pprof: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if _, err := http.Get("http://" + adminAddr + "/livez"); err == nil {
		t.Error("admin listener still answers after shutdown")
	}
}
