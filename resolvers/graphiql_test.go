package resolvers_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
)

// TestGraphiQLServedFromBinary checks that the page loads every script and
// style from the binary, none from elsewhere, and explains the token.
func TestGraphiQLServedFromBinary(t *testing.T) {
	env := servertest.Start(t, db.SQLite)
	get := func(path string) (int, string, string) {
		t.Helper()
		resp, err := http.Get(env.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	status, ct, page := get("/graphiql")
	if status != 200 || !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("page: %d %s", status, ct)
	}
	for _, want := range []string{`"Authorization": "Bearer`, "casegraph token", "Headers", `createFetcher({ url: "/graphql" })`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"?][^"]*)"`).FindAllStringSubmatch(page, -1)
	if len(refs) != 4 {
		t.Errorf("page loads %d assets, want 4: %v", len(refs), refs)
	}
	for _, m := range refs {
		if strings.Contains(m[1], "//") {
			t.Errorf("page loads %s from elsewhere", m[1])
			continue
		}
		status, ct, body := get("/" + m[1])
		if status != 200 || len(body) < 5000 || !(strings.HasPrefix(ct, "text/javascript") || strings.HasPrefix(ct, "text/css")) {
			t.Errorf("%s: %d %s, %d bytes", m[1], status, ct, len(body))
		}
	}
	// An unknown asset answers like any unknown GET.
	if status, ct, body := get("/graphiql/nope.js"); status != http.StatusNotFound || ct != "text/plain; charset=UTF-8" ||
		body != "The requested resource could not be found but may be available again in the future." {
		t.Errorf("unknown asset: %d %s %q", status, ct, body)
	}
	// With a trailing slash, the page loads its assets as well.
	status, _, page = get("/graphiql/")
	if status != 200 || !strings.Contains(page, "casegraph token") {
		t.Fatalf("/graphiql/: %d", status)
	}
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"?][^"]*)"`).FindAllStringSubmatch(page, -1) {
		if status, _, _ := get("/graphiql/" + m[1]); status != 200 {
			t.Errorf("/graphiql/%s: %d", m[1], status)
		}
	}
}
