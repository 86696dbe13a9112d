package engine

import (
	"testing"
)

var manager = Actor{UserID: "mia", Roles: []string{"Manager"}}

func TestControl(t *testing.T) {
	notActive := func(tr, name string) string {
		return "Cannot perform action '" + tr + "' on '" + name + "', since the surrounding stage is not active"
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"exit criterion on the case plan terminates all work", []step{
			{item: "Abort", t: Occur, want: map[string]State{"Control": Terminated, "Work": Terminated,
				"Repeat": Terminated, "Inner": Terminated, "Inner work": Terminated, "Approve": Terminated}},
			{item: "Work", t: Complete, wantErr: ErrInvalid, errMsg: notActive("complete", "Work")},
		}},
		{"user event roles", []step{
			{item: "Approve", t: Occur, as: carol, wantErr: ErrNotAllowed,
				errMsg: "User 'carol' does not have the permission to raise the event Approve"},
			{item: "Approve", t: Occur, as: bob, wantErr: ErrNotAllowed,
				errMsg: "User 'bob' does not have the permission to raise the event Approve"},
			{item: "Approve", t: Occur, as: manager, want: map[string]State{"Approve": Completed, "Approved": Completed}},
			{item: "Abort", t: Occur, as: carol, want: map[string]State{"Control": Terminated}},
		}},
		{"an owner manages every role", []step{
			{item: "Approve", t: Occur, as: alice, want: map[string]State{"Approved": Completed}},
		}},
		{"exit criterion and exitCriterionRef", []step{
			{item: "Stop work", t: Occur, want: map[string]State{"Inner work": Terminated, "Stopped": Completed,
				"Inner": Completed, "Control": Active}},
		}},
		{"exiting by hand is not exiting by the criterion", []step{
			// Stopped does not occur; the stage then completes without it.
			{item: "Inner work", t: Exit, want: map[string]State{"Inner work": Terminated, "Stopped": Terminated, "Inner": Completed}},
		}},
		{"no-op transitions", []step{
			{item: "Work", t: Occur, wantErr: ErrNoEffect, errMsg: "Transition has no effect: 'occur' cannot be done on 'Work' in state Active"},
			{item: "Work", t: Complete},
			{item: "Work", t: Complete, wantErr: ErrNoEffect, errMsg: "Transition has no effect: 'complete' cannot be done on 'Work' in state Completed"},
			{item: "Approve", t: Create, wantErr: ErrNoEffect, errMsg: "Transition has no effect: 'create' cannot be done on 'Approve' in state Available"},
			{item: "case-1", t: Resume, wantErr: ErrNoEffect, errMsg: "Transition has no effect: 'resume' cannot be done on 'Control' in state Active"},
			{item: "Nope", t: Complete, wantErr: ErrInvalid, errMsg: "There is no plan item with identifier 'Nope' in case case-1"},
			{item: "Work", t: "Bogus", wantErr: ErrInvalid, errMsg: "Transition Bogus is not valid"},
			{item: "Repeat", t: "complete", want: map[string]State{"Repeat": Active}},
		}},
		{"suspend, refuse, reactivate", []step{
			{item: "case-1", t: Suspend, want: map[string]State{"Control": Suspended, "Work": Suspended,
				"Inner": Suspended, "Inner work": Suspended, "Abort": Suspended}},
			{item: "Work", t: Complete, wantErr: ErrInvalid, errMsg: notActive("complete", "Work")},
			{item: "Inner work", t: Complete, wantErr: ErrInvalid, errMsg: notActive("complete", "Inner work")},
			{item: "case-1", t: Resume, wantErr: ErrNoEffect, errMsg: "Transition has no effect: 'resume' cannot be done on 'Control' in state Suspended"},
			{item: "case-1", t: Reactivate, want: map[string]State{"Control": Active, "Work": Active,
				"Inner": Active, "Inner work": Active, "Abort": Available}},
			{item: "Work", t: Complete, want: map[string]State{"Work": Completed}},
		}},
		{"fault and reactivate", []step{
			{item: "Work", t: Fault, want: map[string]State{"Work": Failed}},
			{item: "Work", t: Reactivate, want: map[string]State{"Work": Active}},
		}},
		{"terminate and close the case", []step{
			{item: "case-1", t: Terminate, want: map[string]State{"Control": Terminated, "Work": Terminated, "Inner work": Terminated}},
			{item: "case-1", t: Close, want: map[string]State{"Control": Closed}},
			{item: "case-1", t: Terminate, wantErr: ErrNoEffect, errMsg: "Transition has no effect: 'terminate' cannot be done on 'Control' in state Closed"},
		}},
		{"a suspended item stays suspended when its parent resumes", []step{
			{item: "Inner work", t: Suspend, want: map[string]State{"Inner work": Suspended}},
			{item: "case-1", t: Suspend},
			{item: "case-1", t: Reactivate, want: map[string]State{"Inner": Active, "Inner work": Suspended}},
			{item: "Inner work", t: Resume, want: map[string]State{"Inner work": Active}},
		}},
		{"repetition by index, then the case completes", []step{
			{item: "Repeat", t: Complete, want: map[string]State{"Repeat": Active}},
			{item: "Repeat", t: Complete, want: map[string]State{"Repeat": Active}},
			{item: "Repeat", t: Complete, want: map[string]State{"Repeat": Completed}},
			{item: "Work", t: Complete, want: map[string]State{"Control": Active}},
			{item: "Stop work", t: Occur, want: map[string]State{"Inner": Completed, "Control": Completed,
				"Abort": Terminated, "Approved": Terminated}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := start(t, "control", nil)
			x.want(map[string]State{"Control": Active, "Work": Active, "Repeat": Active, "Inner": Active,
				"Inner work": Active, "Stopped": Available, "Abort": Available, "Approved": Available})
			x.play(tt.steps)
		})
	}
}

// TestRepetitionIndexes checks the instances a repetition rule on the
// index makes, and that a transition by name reaches the newest.
func TestRepetitionIndexes(t *testing.T) {
	x := start(t, "control", nil)
	for range 3 {
		x.do(MakeTransition{PlanItem: "Repeat", Transition: Complete}, alice)
	}
	reps := x.items("Repeat")
	if len(reps) != 3 {
		t.Fatalf("%d instances, want 3:%s", len(reps), x.summary())
	}
	for i, p := range reps {
		if p.Index != i || p.State != Completed || !p.Required {
			t.Errorf("Repeat[%d]: index %d state %s required %v", i, p.Index, p.State, p.Required)
		}
	}
	if err := x.fail(MakeTransition{PlanItem: "Repeat", Transition: Complete}, alice); err.Kind != ErrNoEffect {
		t.Errorf("completing completed instances: %v", err)
	}
}

// TestSuspendedTask checks the workflow state of a suspended human task.
func TestSuspendedTask(t *testing.T) {
	x := start(t, "greeting", greeting)
	task := x.item("Answer greeting")
	x.do(MakeTransition{PlanItem: task.ID, Transition: Suspend}, alice)
	if task.Task.State != TaskSuspended {
		t.Errorf("suspended task workflow state %s", task.Task.State)
	}
	if err := x.fail(CompleteHumanTask{PlanItemID: task.ID}, bob); err.Kind != ErrInvalid {
		t.Errorf("completing a suspended task: %v", err)
	}
	x.do(MakeTransition{PlanItem: task.ID, Transition: Resume}, alice)
	if task.Task.State != Assigned {
		t.Errorf("resumed task workflow state %s, want Assigned", task.Task.State)
	}
	x.do(MakeTransition{PlanItem: "Greeting", Transition: Terminate}, alice)
	if task.State != Terminated || task.Task.State != TaskTerminated {
		t.Errorf("terminated case left task %s / %s", task.State, task.Task.State)
	}
}

func TestFailures(t *testing.T) {
	x := start(t, "control", nil)
	x.do(MakeTransition{PlanItem: "Work", Transition: Fault}, alice)
	if x.c.Failures != 1 {
		t.Errorf("failures = %d, want 1", x.c.Failures)
	}
	x.do(MakeTransition{PlanItem: "Work", Transition: Reactivate}, alice)
	if x.c.Failures != 0 {
		t.Errorf("failures = %d after reactivation, want 0", x.c.Failures)
	}
}

func TestOtherTasks(t *testing.T) {
	x := start(t, "tasks", nil)
	x.want(map[string]State{"Sub case": Active, "Call": Active, "Note": Completed, "Noted": Completed, "Tasks": Active})
	if task := x.item("Note").Task; task == nil || task.State != TaskCompleted {
		t.Errorf("non-blocking task workflow: %+v", task)
	}
	x.do(MakeTransition{PlanItem: "Call", Transition: Complete}, alice)
	x.do(MakeTransition{PlanItem: "Sub case", Transition: Complete}, alice)
	if x.c.State() != Completed {
		t.Errorf("case is %s:%s", x.c.State(), x.summary())
	}
}
