package service

import (
	"testing"

	"github.com/casegraph/casegraph/engine"
)

// TestPlanItemPath: the case plan, each stage down to the item, a
// repetition's index after a dot.
func TestPlanItemPath(t *testing.T) {
	c := &engine.Case{PlanItems: []*engine.PlanItem{
		{ID: "p", Type: "CasePlan", Name: "Permit"},
		{ID: "s", Type: "Stage", Name: "Review", StageID: "p"},
		{ID: "t0", Type: "HumanTask", Name: "Approve", StageID: "s"},
		{ID: "t1", Type: "HumanTask", Name: "Approve", StageID: "s", Index: 1},
		{ID: "m", Type: "Milestone", Name: "Done", StageID: "p"},
	}}
	for id, want := range map[string]string{
		"p": "Case[Permit]", "s": "Case[Permit]/Stage[Review]", "t0": "Case[Permit]/Stage[Review]/HumanTask[Approve]",
		"t1": "Case[Permit]/Stage[Review]/HumanTask[Approve.1]", "m": "Case[Permit]/Milestone[Done]", "gone": "", "": "",
	} {
		if got := planItemPath(c, id); got != want {
			t.Errorf("%q: %q, want %q", id, got, want)
		}
	}
}
