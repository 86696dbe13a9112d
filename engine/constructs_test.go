package engine

import "testing"

// These tests pin, on the project's own models, the constructs that the
// reference engine's models exercise (reference_semantics_test.go runs
// those when CASEGRAPH_CONFORMANCE_MODELS names them).

func TestCaseFileMultiplicity(t *testing.T) {
	x := start(t, "multiplicity", nil)
	x.do(ChangeCaseFile{Op: FileCreate, Path: "Ledger", Value: map[string]any{"Title": "q1"}}, alice)
	tests := []struct {
		name string
		cmd  ChangeCaseFile
		msg  string
	}{
		{"second value of an ExactlyOne item", ChangeCaseFile{Op: FileCreate, Path: "Ledger", Value: map[string]any{"Title": "q2"}},
			"CreateCaseFileItem[Ledger] cannot be done because item is in state Available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e := x.fail(tt.cmd, alice); e.Kind != ErrInvalid || e.Msg != tt.msg {
				t.Errorf("got %d %q\nwant %q", e.Kind, e.Msg, tt.msg)
			}
		})
	}
	// As in the reference engine, a list given to an ExactlyOne item is not
	// refused (only objects are type-checked): it is stored as the item's
	// one value.
	x.do(ChangeCaseFile{Op: FileCreate, Path: "Ledger/Owner", Value: []any{map[string]any{}, map[string]any{}}}, alice)
	if got := x.fileJSON(); got != `{"Ledger":{"Owner":[{},{}],"Title":"q1"}}` {
		t.Errorf("case file %s", got)
	}
	// A list item takes a list (one element per entry) or one more element.
	x.do(ChangeCaseFile{Op: FileCreate, Path: "Ledger/Lines", Value: []any{map[string]any{"Text": "1"}, map[string]any{"Text": "2"}}}, alice)
	x.do(ChangeCaseFile{Op: FileCreate, Path: "Ledger/Lines", Value: map[string]any{"Text": "3"}}, alice)
	if got := x.fileJSON(); got != `{"Ledger":{"Lines":[{"Text":"1"},{"Text":"2"},{"Text":"3"}],"Owner":[{},{}],"Title":"q1"}}` {
		t.Errorf("case file %s", got)
	}
}

// The output parameters of a case read the case file items they are bound
// to, null while the item has no value.
func TestCaseOutputParameters(t *testing.T) {
	x := start(t, "multiplicity", nil)
	if got := CaseOutput(x.def, x.c); len(got) != 1 || got["archived"] != nil {
		t.Errorf("output before: %v", got)
	}
	x.do(ChangeCaseFile{Op: FileCreate, Path: "Archive", Value: []any{"a", "b"}}, alice)
	got := CaseOutput(x.def, x.c)
	if list, _ := got["archived"].([]any); len(list) != 2 || list[0] != "a" || list[1] != "b" {
		t.Errorf("output after: %v", got)
	}
}

// An if-part whose contextRef names a nested list sees that list by its
// name: every new element starts the repeating task once more.
func TestIfPartContextRef(t *testing.T) {
	x := start(t, "perkey", nil)
	x.want(map[string]State{"Look up": Available})
	x.do(ChangeCaseFile{Op: FileCreate, Path: "Batch", Value: map[string]any{}}, alice)
	x.want(map[string]State{"Look up": Available})
	x.do(ChangeCaseFile{Op: FileCreate, Path: "Batch/Keys", Value: []any{map[string]any{"code": "a"}, map[string]any{"code": "b"}}}, alice)
	if got := x.items("Look up"); len(got) != 2 || got[0].State != Active || got[1].State != Active {
		t.Errorf("Look up should run per key: %s", x.summary())
	}
}

// The cafienne suspend and resume criteria pause a stage with what it
// holds, and continue it to where it was; the events that raise them
// repeat.
func TestSuspendResumeCriteria(t *testing.T) {
	x := start(t, "pause", nil)
	x.want(map[string]State{"Work": Active, "Review": Active, "Waited": Available, "Wait a day": Available})
	x.do(MakeTransition{PlanItem: "Pause work", Transition: Occur}, alice)
	x.want(map[string]State{"Work": Suspended, "Review": Suspended, "Wait a day": Suspended})
	if got := x.items("Pauser"); len(got) != 2 || got[0].State != Completed || got[1].State != Active {
		t.Errorf("Pauser should complete and repeat: %s", x.summary())
	}
	if x.item("Review").Task.State != TaskSuspended {
		t.Errorf("task workflow %s", x.item("Review").Task.State)
	}
	x.do(MakeTransition{PlanItem: "Continue work", Transition: Occur}, alice)
	x.want(map[string]State{"Work": Active, "Review": Active, "Wait a day": Available, "Waited": Available})
	x.do(FireTimer{PlanItemID: x.item("Wait a day").ID}, alice)
	x.want(map[string]State{"Waited": Completed})
}
