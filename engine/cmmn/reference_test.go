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
		`invalid.case: A plan item with name 'cm_csQA1_4' is referenced from entryCriterion s__5pggsv_0, but it does not exist in the case plan model`,
		`applicabilityRule "isValid" (id "rule_csQA1_1") of planningTable with id "pt_cm_undefined_3" has an invalid expression`,
	},
	"invalidmissingname.xml": {
		`invalidmissingname.case: The CasePlan with id cm__QTMkS_0 must have a name`,
		`invalidmissingname.case: The HumanTask with id ht__QTMkS_0 must have a name`,
		`invalidmissingname.case: The Milestone with id ms__QTMkS_0 must have a name`,
	},
	"invalidrecursion.xml": {
		"invalidrecursion.case: CaseTask 'invalidrecursion' leads to infinite recursion, because\n CaseTask['invalidrecursion'] does not have entry criteria" +
			"\n and Stage['Stage without entry criterion'] does not have entry criteria\n and invalidrecursion always starts immediately",
	},
	"invalidrecursion2.xml": {
		"invalidrecursion2.case: CaseTask 'invalidrecursion2' leads to infinite recursion, because\n CaseTask['invalidrecursion2'] depends on a milestone that occurs immediately" +
			"\n and invalidrecursion2 always starts immediately",
	},
	"invalidrecursion3.xml": {
		"invalidrecursion3.case: CaseTask 'invalidrecursion3' leads to infinite recursion, because\n CaseTask['invalidrecursion3'] does not have entry criteria" +
			"\n and Stage['Stage_0'] depends on a milestone that occurs immediately\n and invalidrecursion3 always starts immediately",
	},
	"invalidrecursion4.xml": {
		"invalidrecursion4.case: CaseTask 'invalidrecursion4' leads to infinite recursion, because\n CaseTask['invalidrecursion4'] has an entry criterion with only an if part expression" +
			"\n and invalidrecursion4 always starts immediately",
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
