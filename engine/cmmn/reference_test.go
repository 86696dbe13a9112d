package cmmn

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// conformanceModels returns the folder of the reference engine's own test
// models, which are not part of this repository: CASEGRAPH_CONFORMANCE_MODELS
// names it (CI sets it), and without it the conformance run skips. The
// project's own models in testdata/cmmn cover the same rules.
func conformanceModels(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CASEGRAPH_CONFORMANCE_MODELS")
	if dir == "" {
		t.Skip("set CASEGRAPH_CONFORMANCE_MODELS=<folder of the reference engine's CMMN models> to run this conformance test")
	}
	return dir
}

// invalidReference lists, for each invalid model of the reference engine,
// the problems that explain why it is invalid.
var invalidReference = map[string][]string{
	"invalid.xml": {
		`case "invalid": planItemOnPart with id "ref_id_cm_csQA1_4" in sentry with id "s__5pggsv_0": sourceRef "cm_csQA1_4" does not refer to a plan item`,
		`applicabilityRule "isValid" (id "rule_csQA1_1") of planningTable with id "pt_cm_undefined_3" has an invalid expression`,
	},
	"invalidmissingname.xml": {
		`case "invalidmissingname": humanTask with id "ht__QTMkS_0" has no name`,
		`case "invalidmissingname": milestone with id "ms__QTMkS_0" has no name`,
	},
	"invalidrecursion.xml": {
		`case "invalidrecursion": planItem "invalidrecursion" (id "pi_ct__vxj5Z_0") is a case task that starts its own case again`,
	},
	"invalidrecursion2.xml": {
		`case "invalidrecursion2": planItem "invalidrecursion2" (id "pi_ct__Ajqyl_0") is a case task that starts its own case again`,
	},
	"invalidrecursion3.xml": {
		`case "invalidrecursion3": planItem "invalidrecursion3" (id "pi_ct__9Et6z_0") is a case task that starts its own case again`,
	},
	"invalidrecursion4.xml": {
		`case "invalidrecursion4": planItem "invalidrecursion4" (id "pi_ct__2P2HC_0") is a case task that starts its own case again`,
	},
}

// TestReferenceModels parses every model of the reference engine: the
// valid ones must be accepted, with every SpEL expression compiled, and the
// invalid ones rejected for the right reasons.
func TestReferenceModels(t *testing.T) {
	reference := conformanceModels(t)
	var files []string
	err := filepath.WalkDir(reference, func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(path, ".xml") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 60 {
		t.Fatalf("found %d reference models, want the full set", len(files))
	}
	seenInvalid := 0
	for _, path := range files {
		rel, _ := filepath.Rel(reference, path)
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Parse(data)
			if strings.HasPrefix(filepath.Base(path), "invalid") {
				seenInvalid++
				want, ok := invalidReference[filepath.Base(path)]
				if !ok {
					t.Fatalf("no expected problems listed for %s", rel)
				}
				if err == nil {
					t.Fatal("Parse succeeded, want problems")
				}
				checkProblems(t, problemsOf(t, err), want)
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			checkCompiled(t, d)
		})
	}
	if seenInvalid != len(invalidReference) {
		t.Errorf("saw %d invalid reference models, expected %d", seenInvalid, len(invalidReference))
	}
}

// checkCompiled verifies that the model's expressions, in every place they
// occur, reached the expression compiler.
func checkCompiled(t *testing.T, d *Definitions) {
	t.Helper()
	for _, c := range d.Cases() {
		if c.Plan() == nil || c.PlanModel() == nil {
			t.Errorf("case %q has no plan", c.Name())
		}
		for _, x := range c.Expressions() {
			if x.Compiled() != nil || x.Language() != "spel" {
				continue
			}
			if _, ok := literalTimer(c, x); !ok {
				t.Errorf("case %q: expression %q was not compiled", c.Name(), x.Body())
			}
		}
		for _, p := range c.PlanItems() {
			if p.Definition() == nil || p.Name() == "" {
				t.Errorf("case %q: plan item %q unresolved", c.Name(), p.ID())
			}
		}
	}
}
