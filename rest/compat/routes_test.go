package compat_test

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// The suite checks that it covers every route the server serves: the
// routes come from the server's own API description, which lists exactly
// what rest.Register added; every row records the route it calls.
var coverage struct {
	sync.Mutex
	routes []route         // served, from the first fixture
	rows   map[string]bool // "METHOD path" of every row
}

type route struct {
	method, path string
	re           *regexp.Regexp
	literal      int // the length of its fixed text, to prefer the most specific
}

var param = regexp.MustCompile(`\{([^}]+)\}`)

func recordRoutes(t *testing.T, env *servertest.Env) {
	t.Helper()
	coverage.Lock()
	defer coverage.Unlock()
	if coverage.routes != nil {
		return
	}
	resp := env.Do(servertest.Request{Method: "GET", Path: "/api-docs/swagger.json"})
	mustStatus(t, resp, http.StatusOK)
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	resp.JSON(t, &doc)
	for path, methods := range doc.Paths {
		for m := range methods {
			coverage.routes = append(coverage.routes, newRoute(strings.ToUpper(m), path))
		}
	}
	sort.Slice(coverage.routes, func(i, j int) bool {
		a, b := coverage.routes[i], coverage.routes[j]
		return a.path < b.path || a.path == b.path && a.method < b.method
	})
}

func newRoute(method, path string) route {
	expr := regexp.QuoteMeta(path)
	expr = strings.NewReplacer(`\{`, "{", `\}`, "}").Replace(expr)
	expr = param.ReplaceAllStringFunc(expr, func(p string) string {
		// The rest-of-path parameters span several segments.
		if p == "{path}" || p == "{fileName}" {
			return ".+"
		}
		return "[^/]+"
	})
	return route{method: method, path: path, re: regexp.MustCompile("^" + expr + "/?$"), literal: len(param.ReplaceAllString(path, ""))}
}

// covered records the route a row calls. A row refused for its token
// alone covers nothing: every route has those.
func covered(r row) {
	if (r.caller == noToken || r.caller == badToken) && r.status == http.StatusUnauthorized {
		return
	}
	method, path := r.method, r.path
	coverage.Lock()
	defer coverage.Unlock()
	if coverage.rows == nil {
		coverage.rows = map[string]bool{}
	}
	path, _, _ = strings.Cut(path, "?")
	coverage.rows[method+" "+path] = true
}

// routeOf is the most specific served route matching a row's path.
func routeOf(method, path string) (route, bool) {
	var best route
	found := false
	for _, r := range coverage.routes {
		if r.method == method && r.re.MatchString(path) && (!found || r.literal > best.literal) {
			best, found = r, true
		}
	}
	return best, found
}

// uncovered lists the served routes no row calls.
func uncovered() []string {
	coverage.Lock()
	defer coverage.Unlock()
	hit := map[string]bool{}
	for k := range coverage.rows {
		method, path, _ := strings.Cut(k, " ")
		if r, ok := routeOf(method, path); ok {
			hit[r.method+" "+r.path] = true
		}
	}
	var missing []string
	for _, r := range coverage.routes {
		if !hit[r.method+" "+r.path] {
			missing = append(missing, r.method+" "+r.path)
		}
	}
	return missing
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	// Only a whole run can tell whether every route is covered.
	whole := flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == ""
	if code == 0 && whole && len(coverage.routes) > 0 {
		if missing := uncovered(); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: no compatibility row calls these served routes:\n  %s\n", strings.Join(missing, "\n  "))
			code = 1
		} else if testing.Verbose() {
			fmt.Printf("compat: rows call all %d served routes\n", len(coverage.routes))
		}
	}
	os.Exit(code)
}

// openRoutes need no token.
var openRoutes = map[string]bool{
	"GET /status": true, "GET /health": true, "GET /version": true,
	"GET /platform/status": true, "GET /platform/health": true, "GET /platform/version": true,
	"POST /repository/validate": true,
	// Anonymous case start, served by the fixtures that configure it.
	"POST /request/case/{type}": true, "POST /request/case": true,
}

// TestEveryRouteNeedsAToken: every route but the open ones answers a
// request without a token, or with one that is no JWT, with 401 and the
// reference engine's message, before it looks at anything else.
func TestEveryRouteNeedsAToken(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		f := newFixture(t, env)
		var rows []row
		coverage.Lock()
		routes := append([]route(nil), coverage.routes...)
		coverage.Unlock()
		for _, r := range routes {
			path := param.ReplaceAllString(r.path, "x")
			if openRoutes[r.method+" "+r.path] {
				continue
			}
			rows = append(rows,
				row{caller: noToken, method: r.method, path: path, status: 401, text: "Authorization token is missing"},
				row{caller: badToken, method: r.method, path: path, status: 401, text: "Token parse failure: ", prefix: true})
		}
		if len(rows) < 100 {
			t.Fatalf("only %d rows from the API description", len(rows))
		}
		f.run(t, rows)
	})
}
