package telemetry

import (
	"database/sql"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// exportedNames is every series name a server exports: each CaseGraph
// metric observed once, the pool statistics and the Go and process
// collectors, histograms with their _bucket, _sum and _count.
func exportedNames(t *testing.T) map[string]bool {
	t.Helper()
	m := NewMetrics()
	pool, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	m.AddDB(pool, "sqlite")
	m.AddSnapshotCache(func() (int64, int64, int) { return 1, 1, 1 })
	m.RequestStarted()("GET /cases/{caseId}", "GET", 200, time.Millisecond)
	m.command("StartCase", "ok", time.Millisecond, 1)
	m.timerFired(time.Second)
	m.gqlOperations.WithLabelValues("Op", "ok").Inc()
	m.gqlDuration.WithLabelValues("Op").Observe(0.1)
	m.gqlErrors.WithLabelValues("Op", "NOT_FOUND").Inc()
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range families {
		n := f.GetName()
		names[n] = true
		if f.GetType().String() == "HISTOGRAM" {
			names[n+"_bucket"], names[n+"_sum"], names[n+"_count"] = true, true, true
		}
	}
	return names
}

// TestDashboard: the shipped Grafana dashboard is valid JSON with the
// fields an import needs, and queries only metrics the server exports.
func TestDashboard(t *testing.T) {
	b, err := os.ReadFile("../docs/grafana/casegraph.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		UID, Title    string
		SchemaVersion int
		Panels        []struct {
			Type, Title string
			Targets     []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("dashboard is not JSON: %v", err)
	}
	if dash.UID == "" || dash.Title == "" || dash.SchemaVersion == 0 || len(dash.Panels) == 0 {
		t.Fatalf("dashboard lacks uid, title, schemaVersion or panels")
	}
	exported := exportedNames(t)
	metric := regexp.MustCompile(`\b(?:casegraph|go|process)_[a-z0-9_]+\b`)
	queried := map[string]bool{}
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q queries nothing", p.Title)
		}
		for _, tg := range p.Targets {
			found := metric.FindAllString(tg.Expr, -1)
			if len(found) == 0 {
				t.Errorf("panel %q: no metric in %s", p.Title, tg.Expr)
			}
			for _, n := range found {
				queried[n] = true
				if !exported[n] {
					t.Errorf("panel %q queries %s, which the server does not export", p.Title, n)
				}
			}
		}
	}
	// Every CaseGraph metric is on the dashboard.
	for n := range exported {
		if strings.HasPrefix(n, "casegraph_") && !strings.HasSuffix(n, "_sum") && !strings.HasSuffix(n, "_count") &&
			!queried[n] && !queried[n+"_bucket"] && !queried[strings.TrimSuffix(n, "_bucket")] {
			t.Errorf("metric %s is on no panel", n)
		}
	}
}

// TestDocumentedMetrics: docs/operations.md names every metric the server
// exports under casegraph_ and the pool's go_sql_.
func TestDocumentedMetrics(t *testing.T) {
	b, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	for n := range exportedNames(t) {
		if strings.HasSuffix(n, "_bucket") || strings.HasSuffix(n, "_sum") || strings.HasSuffix(n, "_count") && !strings.HasPrefix(n, "go_sql_") {
			continue
		}
		if (strings.HasPrefix(n, "casegraph_") || strings.HasPrefix(n, "go_sql_")) && !strings.Contains(string(b), "`"+n+"`") {
			t.Errorf("docs/operations.md does not describe %s", n)
		}
	}
}

func TestBoundedNames(t *testing.T) {
	b := newBoundedNames(2)
	for _, c := range []struct{ in, want string }{
		{"", "anonymous"}, {"A", "A"}, {"B", "B"}, {"C", "other"}, {"A", "A"}, {"bad name", "other"},
		{"9x", "other"}, {strings.Repeat("x", 65), "other"},
	} {
		if got := b.label(c.in); got != c.want {
			t.Errorf("label(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for in, want := range map[any]string{"NOT_FOUND": "NOT_FOUND", "bad": "OTHER", nil: "NONE", 3: "NONE"} {
		if got := errorCode(in); got != want {
			t.Errorf("errorCode(%v) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"": "unmatched", "GET /cases/{caseId}": "/cases/{caseId}", "/graphiql/": "/graphiql/"} {
		if got := Route(in); got != want {
			t.Errorf("Route(%q) = %q, want %q", in, got, want)
		}
	}
}
