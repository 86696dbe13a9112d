package cmmn

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no document makes Parse panic, and that a document
// Parse accepts always yields the same graph.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(testdata, "*.xml"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed models in %s: %v", testdata, err)
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`<!DOCTYPE d [<!ENTITY a "b">]><definitions/>`))
	f.Add([]byte(`<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL"><case id="c" name="c"><casePlanModel id="p" name="p"/></case></definitions>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		if err != nil {
			if _, ok := err.(*ValidationError); !ok {
				t.Fatalf("error %T, want *ValidationError", err)
			}
			return
		}
		again, err := Parse(data)
		if err != nil {
			t.Fatalf("second Parse failed: %v", err)
		}
		if a, b := dump(d), dump(again); a != b {
			t.Fatalf("two parses differ:\n%s", diffLines(a, b))
		}
	})
}
