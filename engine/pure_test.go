package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPure checks that the engine stays pure (STYLE.md: the engine does no
// I/O): none of its packages imports a database, HTTP, logging, process
// or randomness package or another CaseGraph package, and none reads the
// clock.
func TestPure(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}: {{join .Imports " "}}`,
		".", "./cmmn", "./expr").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	forbidden := []string{"database/sql", "net/http", "net", "log", "log/slog", "os", "os/exec", "math/rand",
		"math/rand/v2", "crypto/rand", "context", "sync"}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		for _, imp := range strings.Fields(imports) {
			for _, f := range forbidden {
				if imp == f {
					t.Errorf("%s imports %s", pkg, imp)
				}
			}
			if strings.HasPrefix(imp, "github.com/casegraph/casegraph/") &&
				!strings.HasPrefix(imp, "github.com/casegraph/casegraph/engine/") {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
	for _, dir := range []string{".", "cmmn", "expr"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(src), "time.Now(") {
				t.Errorf("%s reads the clock; time comes in Env.Now", f)
			}
		}
	}
}
