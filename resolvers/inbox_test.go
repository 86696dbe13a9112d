package resolvers_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/graph"
	"github.com/casegraph/casegraph/resolvers"
)

// TestInboxPage: the inbox page and its script are served by the binary,
// with a policy that lets the page load nothing from elsewhere.
func TestInboxPage(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, db.SQLite)
	for _, p := range []string{"/inbox", "/inbox/"} {
		resp := env.Do(servertest.Request{Method: "GET", Path: p})
		if resp.Status != 200 || !strings.Contains(resp.Body, `<script src="inbox/inbox.js">`) ||
			!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'self'") {
			t.Fatalf("GET %s: %d %s %v", p, resp.Status, resp.Header, resp.Body[:min(len(resp.Body), 200)])
		}
		if strings.Contains(resp.Body, "http://") || strings.Contains(resp.Body, "https://") {
			t.Errorf("GET %s: the page refers to another site", p)
		}
	}
	for _, p := range []string{"/inbox/inbox.js", "/inbox/inbox/inbox.js"} {
		resp := env.Do(servertest.Request{Method: "GET", Path: p})
		if resp.Status != 200 || !strings.Contains(resp.Body, "graphql-transport-ws") || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
			t.Fatalf("GET %s: %d %s", p, resp.Status, resp.Header)
		}
	}
	if resp := env.Do(servertest.Request{Method: "GET", Path: "/inbox/nothing.js"}); resp.Status != 404 {
		t.Fatalf("unknown asset: %d", resp.Status)
	}
}

// TestInboxOperations: every GraphQL document of the inbox script is valid
// against the schema, so the page cannot drift from it unnoticed.
func TestInboxOperations(t *testing.T) {
	js, err := os.ReadFile("inbox/inbox.js")
	if err != nil {
		t.Fatal(err)
	}
	task := regexp.MustCompile(`const TASK = "([^"]*)"`).FindSubmatch(js)
	if task == nil {
		t.Fatal("no TASK selection in inbox.js")
	}
	schema := graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{}}).Schema()
	docs := regexp.MustCompile("(?s)[\"`]((?:query|mutation|subscription|\\{ me)[^\"`]*)[\"`]").FindAllSubmatch(js, -1)
	if len(docs) < 6 {
		t.Fatalf("found %d GraphQL documents in inbox.js, want the page's 6 or more", len(docs))
	}
	for _, d := range docs {
		src := strings.ReplaceAll(string(d[1]), "${TASK}", string(task[1]))
		if _, errs := gqlparser.LoadQueryWithRules(schema, src, nil); len(errs) > 0 {
			t.Errorf("%s: %v", src, errs)
		}
	}
}
