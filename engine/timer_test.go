package engine

import (
	"slices"
	"testing"
	"time"
)

func TestTimers(t *testing.T) {
	x := start(t, "timer", map[string]any{"Settings": map[string]any{"wait": "P1D"}})
	reminder, escalate := x.item("Reminder"), x.item("Escalate")
	if got, want := x.c.Timers(), []Timer{{reminder.ID, t0.Add(time.Hour)}}; !slices.Equal(got, want) {
		t.Fatalf("timers at start %v, want %v", got, want)
	}
	x.want(map[string]State{"Work": Enabled, "Escalate": Available, "Follow up": Available})

	// Escalate starts with Work, its duration read from the case file.
	x.do(MakeTransition{PlanItem: "Work", Transition: ManualStart}, alice)
	started := x.now
	if got, want := x.c.Timers(), []Timer{{reminder.ID, t0.Add(time.Hour)}, {escalate.ID, started.Add(24 * time.Hour)}}; !slices.Equal(got, want) {
		t.Fatalf("timers after Work started %v, want %v", got, want)
	}

	// A suspended case waits on no timer.
	x.do(MakeTransition{PlanItem: "case-1", Transition: Suspend}, alice)
	if got := x.c.Timers(); len(got) != 0 {
		t.Errorf("timers of a suspended case: %v", got)
	}
	if err := x.fail(FireTimer{PlanItemID: reminder.ID}, alice); err.Kind != ErrInvalid {
		t.Errorf("firing a timer in a suspended case: %v", err)
	}
	x.do(MakeTransition{PlanItem: "case-1", Transition: Reactivate}, alice)
	if got := len(x.c.Timers()); got != 2 {
		t.Errorf("%d timers after reactivation, want 2", got)
	}

	x.do(FireTimer{PlanItemID: reminder.ID}, alice)
	x.want(map[string]State{"Reminder": Completed, "Follow up": Active})
	if got, want := x.c.Timers(), []Timer{{escalate.ID, started.Add(24 * time.Hour)}}; !slices.Equal(got, want) {
		t.Errorf("timers after the reminder %v, want %v", got, want)
	}
	if err := x.fail(FireTimer{PlanItemID: reminder.ID}, alice); err.Kind != ErrNoEffect {
		t.Errorf("firing a timer twice: %v", err)
	}
	if err := x.fail(FireTimer{PlanItemID: x.item("Work").ID}, alice); err.Kind != ErrInvalid {
		t.Errorf("firing a task: %v", err)
	}

	x.do(FireTimer{PlanItemID: escalate.ID}, alice)
	x.do(MakeTransition{PlanItem: "Work", Transition: Complete}, alice)
	x.do(MakeTransition{PlanItem: "Follow up", Transition: Complete}, alice)
	if x.c.State() != Completed || len(x.c.Timers()) != 0 {
		t.Errorf("case %s with timers %v:%s", x.c.State(), x.c.Timers(), x.summary())
	}
}

// TestTimerWithoutDuration checks that a timer whose expression yields
// nothing waits without a due time instead of failing the case.
func TestTimerWithoutDuration(t *testing.T) {
	x := start(t, "timer", nil)
	x.do(MakeTransition{PlanItem: "Work", Transition: ManualStart}, alice)
	if got := len(x.c.Timers()); got != 1 {
		t.Errorf("%d timers, want only the reminder", got)
	}
}
