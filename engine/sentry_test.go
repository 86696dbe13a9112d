package engine

import (
	"slices"
	"testing"
)

// TestSentries runs the sentries model through steps: each step is a
// command and the states it must lead to.
func TestSentries(t *testing.T) {
	type step struct {
		name string
		cmd  func(x *tc) Command
		want map[string]State
	}
	completePrepare := step{"complete Prepare",
		func(x *tc) Command { return MakeTransition{PlanItem: x.item("Prepare").ID, Transition: Complete} },
		map[string]State{"Prepare": Completed, "After prepare": Active, "Follows after": Completed}}
	createOrder := step{"create Order",
		func(*tc) Command {
			return ChangeCaseFile{Op: FileCreate, Path: "Order", Value: map[string]any{"Status": "new", "Amount": 50}}
		},
		map[string]State{"Order created": Completed, "Order updated": Available, "Big order": Available, "Approved": Available}}
	tests := []struct {
		name  string
		steps []step
		after map[string]State
	}{
		{
			name:  "task first, then case file",
			steps: []step{completePrepare, createOrder},
			after: map[string]State{"Prepared order": Completed},
		},
		{
			name:  "case file first, then task",
			steps: []step{createOrder, completePrepare},
			after: map[string]State{"Prepared order": Completed},
		},
		{
			name: "if-part false, then true; repetition on update",
			steps: []step{createOrder,
				{"update amount to 60", func(*tc) Command {
					return ChangeCaseFile{Op: FileUpdate, Path: "Order", Value: map[string]any{"Amount": 60}}
				}, map[string]State{"Order updated": Completed, "Big order": Available}},
				{"update amount to 150", func(*tc) Command {
					return ChangeCaseFile{Op: FileUpdate, Path: "Order", Value: map[string]any{"Amount": 150}}
				}, map[string]State{"Order updated": Completed, "Big order": Completed, "Approved": Available}},
				{"approve", func(*tc) Command {
					return ChangeCaseFile{Op: FileUpdate, Path: "Order", Value: map[string]any{"Status": "approved"}}
				}, map[string]State{"Approved": Completed}},
			},
			after: map[string]State{"Prepared order": Available, "Prepare": Active},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := start(t, "sentries", nil)
			x.want(map[string]State{"Prepare": Active, "After prepare": Available, "Follows after": Available,
				"Order created": Available, "Prepared order": Available})
			for _, s := range tt.steps {
				x.do(s.cmd(x), alice)
				for name, want := range s.want {
					if got := x.state(name); got != want {
						t.Errorf("after %s: %s is %s, want %s", s.name, name, got, want)
					}
				}
			}
			x.want(tt.after)
		})
	}
}

// TestSentryRepetitionIndex checks that a repeating item with an entry
// criterion gets a new instance, index+1, each time the criterion fires.
func TestSentryRepetitionIndex(t *testing.T) {
	x := start(t, "sentries", nil)
	x.do(ChangeCaseFile{Op: FileCreate, Path: "Order", Value: map[string]any{"Amount": 1}}, alice)
	for amount := 2; amount <= 4; amount++ {
		x.do(ChangeCaseFile{Op: FileUpdate, Path: "Order", Value: map[string]any{"Amount": amount}}, alice)
	}
	updated := x.items("Order updated")
	if len(updated) != 3 {
		t.Fatalf("%d instances of Order updated, want 3:%s", len(updated), x.summary())
	}
	for i, p := range updated {
		if p.Index != i || p.State != Completed || !p.Repeating {
			t.Errorf("instance %d: index %d, state %s, repeating %v", i, p.Index, p.State, p.Repeating)
		}
	}
	// A change that changes nothing is no update.
	x.do(ChangeCaseFile{Op: FileUpdate, Path: "Order", Value: map[string]any{"Amount": 4}}, alice)
	if n := len(x.items("Order updated")); n != 3 || len(fileEvents(x.events)) != 0 {
		t.Errorf("an update without change made %d instances and events %v", n, fileEvents(x.events))
	}
}

// TestSentryArrayCreate checks that each new array element fires the
// create on-part once, and that a task bound to the array gets the element
// that started it.
func TestSentryArrayCreate(t *testing.T) {
	x := start(t, "sentries", nil)
	x.do(ChangeCaseFile{Op: FileCreate, Path: "Order", Value: map[string]any{"Amount": 1}}, alice)
	x.do(ChangeCaseFile{Op: FileCreate, Path: "Order/Lines", Value: []any{
		map[string]any{"Product": "apple", "Quantity": 2},
		map[string]any{"Product": "pear", "Quantity": 3},
	}}, alice)
	x.do(ChangeCaseFile{Op: FileCreate, Path: "Order/Lines", Value: map[string]any{"Product": "plum", "Quantity": 1}}, alice)
	var got []string
	for _, p := range x.items("Handle line") {
		if p.State != Active || p.Task == nil {
			t.Fatalf("Handle line[%d] is %s", p.Index, p.State)
		}
		got = append(got, p.Task.Input["Product"].(string))
	}
	if want := []string{"apple x2", "pear x3", "plum x1"}; !slices.Equal(got, want) {
		t.Errorf("task inputs = %v, want %v", got, want)
	}
	if got, want := fileEvents(x.events), []string{"Order/Lines[2]:create"}; !slices.Equal(got, want) {
		t.Errorf("file events = %v, want %v", got, want)
	}
}

// TestRepeatingItemExits checks that a repeating item without entry
// criteria repeats when completed, but not when its exit criterion ends it.
func TestRepeatingItemExits(t *testing.T) {
	x := start(t, "sentries", nil)
	x.do(MakeTransition{PlanItem: "Chore", Transition: Complete}, alice)
	x.do(MakeTransition{PlanItem: "Chore", Transition: Complete}, alice)
	if n := len(x.items("Chore")); n != 3 || x.state("Chore") != Active {
		t.Fatalf("%d chores, the last %s", n, x.state("Chore"))
	}
	x.do(MakeTransition{PlanItem: "Stop chores", Transition: Occur}, alice)
	if n := len(x.items("Chore")); n != 3 || x.state("Chore") != Terminated {
		t.Errorf("%d chores after the stop, the last %s:%s", n, x.state("Chore"), x.summary())
	}
}
