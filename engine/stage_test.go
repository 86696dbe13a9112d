package engine

import (
	"testing"
)

// step is a command by name and transition, and what must follow.
type step struct {
	item    string
	t       Transition
	as      Actor
	want    map[string]State
	wantErr ErrorKind
	errMsg  string // set when the step must fail with this message
}

// run plays steps on x: MakeTransition by name, or by id for the case plan.
func (x *tc) play(steps []step) {
	x.t.Helper()
	for i, s := range steps {
		as := s.as
		if as.UserID == "" {
			as = alice
		}
		cmd := MakeTransition{PlanItem: s.item, Transition: s.t}
		if s.errMsg != "" {
			err := x.fail(cmd, as)
			if err.Kind != s.wantErr || err.Msg != s.errMsg {
				x.t.Errorf("step %d (%s %s): error %d %q, want %d %q", i, s.item, s.t, err.Kind, err.Msg, s.wantErr, s.errMsg)
			}
			continue
		}
		x.do(cmd, as)
		for name, want := range s.want {
			if got := x.state(name); got != want {
				x.t.Errorf("step %d (%s %s): %s is %s, want %s%s", i, s.item, s.t, name, got, want, x.summary())
			}
		}
	}
}

func TestStages(t *testing.T) {
	refused := "Cannot complete the stage as there are active items remaining"
	tests := []struct {
		name  string
		steps []step
	}{
		{"an empty stage completes at once", []step{
			{item: "Open empty", t: Occur, want: map[string]State{"Open empty": Completed, "Empty": Completed, "Stages": Active}},
		}},
		{"manual activation, then required item done completes the stage", []step{
			{item: "Collect", t: Complete, wantErr: ErrInvalid, errMsg: refused},
			{item: "Collect A", t: Complete, want: map[string]State{"Collect A": Completed, "Collect B": Enabled, "Collect": Active}},
			{item: "Collect", t: Complete, wantErr: ErrInvalid, errMsg: refused},
			{item: "Collect B", t: ManualStart, want: map[string]State{"Collect B": Active}},
			{item: "Collect B", t: Complete, want: map[string]State{"Collect B": Completed, "Collect": Completed}},
		}},
		{"a disabled item counts as done", []step{
			{item: "Collect A", t: Complete},
			{item: "Collect B", t: Disable, want: map[string]State{"Collect B": Disabled, "Collect": Completed}},
		}},
		{"a stage may be completed by hand when only optional items wait", []step{
			{item: "Collect A", t: Complete},
			{item: "Collect B", t: ManualStart},
			{item: "Collect B", t: Complete, want: map[string]State{"Collect": Completed}},
			{item: "Begin review", t: Occur, want: map[string]State{"Review": Active, "Check": Active, "Notes": Available, "Extra": Enabled}},
			{item: "Review", t: Complete, wantErr: ErrInvalid, errMsg: refused},
			{item: "Check", t: Suspend, want: map[string]State{"Check": Suspended}},
			{item: "Review", t: Complete, wantErr: ErrInvalid, errMsg: refused},
			{item: "Check", t: Resume, want: map[string]State{"Check": Active}},
			{item: "Check", t: Complete, want: map[string]State{
				"Check": Completed, "Review": Completed, "Notes": Terminated, "Extra": Terminated}},
		}},
		{"autoComplete needs only the required items; the case plan needs all", []step{
			{item: "Begin review", t: Occur},
			{item: "Check", t: Complete, want: map[string]State{"Review": Completed, "Stages": Active}},
			{item: "Collect A", t: Complete},
			{item: "Collect B", t: ManualStart},
			{item: "Collect B", t: Complete, want: map[string]State{"Collect": Completed, "Stages": Active}},
			{item: "Open empty", t: Occur, want: map[string]State{"Empty": Completed, "Stages": Completed}},
		}},
		{"completing the case plan by hand ends waiting items", []step{
			{item: "Collect A", t: Complete},
			{item: "Collect B", t: Disable},
			{item: "case-1", t: Complete, want: map[string]State{
				"Stages": Completed, "Review": Terminated, "Open empty": Terminated, "Empty": Terminated}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := start(t, "stages", nil)
			x.want(map[string]State{"Stages": Active, "Review": Available, "Collect": Active, "Collect A": Active,
				"Collect B": Enabled, "Empty": Available, "Begin review": Available})
			if b := x.item("Collect B"); !b.Required {
				t.Error("Collect B has a required rule without condition, which holds")
			}
			x.play(tt.steps)
		})
	}
}

// TestPlannableItemsKeepStageOpen checks that a stage without autoComplete
// waits while a discretionary item may still be planned, and that a user
// may complete it anyway.
func TestPlannableItemsKeepStageOpen(t *testing.T) {
	tests := []struct {
		name     string
		open     bool
		wantCase State
	}{
		{"an applicable discretionary item keeps the case open", true, Active},
		{"an inapplicable one does not", false, Completed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := start(t, "planning", nil)
			x.do(ChangeCaseFile{Op: FileCreate, Path: "Settings", Value: map[string]any{"open": tt.open}}, alice)
			x.do(MakeTransition{PlanItem: "Do it", Transition: Complete}, alice)
			if x.c.State() != tt.wantCase {
				t.Fatalf("case is %s, want %s", x.c.State(), tt.wantCase)
			}
			if tt.wantCase == Active {
				x.do(MakeTransition{PlanItem: "case-1", Transition: Complete}, alice)
				if x.c.State() != Completed {
					t.Errorf("case is %s after completing it by hand", x.c.State())
				}
			}
			if len(x.items("Maybe")) != 0 {
				t.Error("a discretionary item was created without being planned")
			}
		})
	}
}
