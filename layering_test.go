package casegraph

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/casegraph/casegraph"

// layers is the import rule of docs/architecture.md: for each package of the
// module, the packages of ours it may import (a name covers its sub
// packages, so "engine" allows engine/cmmn). Imports point down the
// picture only. Test files are not held to it: a door's tests read the
// database to check what a request stored.
var layers = map[string][]string{
	"engine":        {"engine"},
	"engine/cmmn":   {"engine"},
	"engine/expr":   {"engine"},
	"auth":          {},
	"auth/authtest": {"auth"},
	"db":            {"engine"},
	"db/dbtest":     {"db"},
	"service":       {"engine", "db", "auth"},
	// The doors reach storage and authorization only through service, and
	// never each other: a rule decided in one door would be missing in the
	// other.
	"rest":        {"service", "auth"},
	"rest/compat": {},
	"resolvers":   {"service", "auth", "graph", "model"},
	// Generated GraphQL code knows only its own types.
	"graph":        {"model"},
	"graph/client": {},
	"model":        {},
	// Metrics and traces watch the service through its Observer and the
	// doors through middleware and extensions the server installs.
	"telemetry": {"service"},
	// The binary wires every layer together.
	"cmd/casegraph/server":            {"auth", "db", "service", "rest", "resolvers", "telemetry"},
	"cmd/casegraph/server/servertest": {"auth", "db", "cmd/casegraph/server"},
	"cmd/casegraph":                   {"auth", "db", "engine", "cmd/casegraph/server", "cmd/casegraph/load", "telemetry"},
	// The load generator speaks to a server over HTTP only.
	"cmd/casegraph/load": {},
	// Proof tests run the built binary; only their test files import.
	"cmd/casegraph/proof": {},
	"cmd/aliasattack":     {},
	"":                    {},
}

// TestLayering fails when a package of the module imports one of ours its
// layer may not, or when a new package has no rule yet.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		seen++
		for _, msg := range layeringViolations(p.ImportPath, p.Imports) {
			t.Error(msg)
		}
	}
	if seen < len(layers) {
		t.Errorf("go list named %d packages, the rules %d: a package was removed or renamed; update layers", seen, len(layers))
	}
}

// layeringViolations returns a sentence for each import of pkg that its
// layer forbids.
func layeringViolations(pkg string, imports []string) []string {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	allowed, ok := layers[rel]
	if !ok {
		return []string{"package " + pkg + " has no layering rule: add it to layers in layering_test.go with the packages of ours it may import"}
	}
	var msgs []string
	for _, imp := range imports {
		if imp != module && !strings.HasPrefix(imp, module+"/") {
			continue
		}
		dep := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
		if slices.ContainsFunc(allowed, func(a string) bool { return dep == a || strings.HasPrefix(dep, a+"/") }) {
			continue
		}
		msgs = append(msgs, "package "+rel+" imports "+dep+", which its layer may not (allowed: "+strings.Join(allowed, ", ")+
			"); see 'Imports only point down' in docs/architecture.md and layers in layering_test.go")
	}
	return msgs
}

// TestLayeringViolations checks that the check can fail.
func TestLayeringViolations(t *testing.T) {
	for _, tc := range []struct {
		pkg     string
		imports []string
		want    int
	}{
		{module + "/rest", []string{"net/http", module + "/service"}, 0},
		{module + "/rest", []string{module + "/db"}, 1},
		{module + "/rest", []string{module + "/resolvers"}, 1},
		{module + "/resolvers", []string{module + "/db", module + "/rest"}, 2},
		{module + "/engine", []string{module + "/engine/cmmn", module + "/db"}, 1},
		{module + "/db", []string{module + "/engine", module + "/service"}, 1},
		{module + "/service", []string{module + "/engine/cmmn", module + "/db", module + "/auth"}, 0},
		{module + "/newpkg", nil, 1},
	} {
		if got := layeringViolations(tc.pkg, tc.imports); len(got) != tc.want {
			t.Errorf("%s importing %v: got %q, want %d violations", tc.pkg, tc.imports, got, tc.want)
		}
	}
}
