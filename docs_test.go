package casegraph

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsLinks keeps the README and docs/ readable from a fresh clone:
// every relative link points at a file of the repository, none outside it.
func TestDocsLinks(t *testing.T) {
	files, _ := filepath.Glob("docs/*.md")
	files = append(files, "README.md", "CHANGELOG.md")
	if len(files) < 7 {
		t.Fatalf("docs: %v", files)
	}
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			path := filepath.Clean(filepath.Join(filepath.Dir(f), target))
			if strings.HasPrefix(path, "..") {
				t.Errorf("%s links outside the repository: %s", f, target)
				continue
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to a missing file: %s", f, target)
			}
		}
	}
}
