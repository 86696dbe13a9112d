package engine

import (
	"testing"
	"time"

	"github.com/casegraph/casegraph/engine/expr"
)

// TestExpressionEnv evaluates the expressions the reference engine's models
// use against a started greeting case.
func TestExpressionEnv(t *testing.T) {
	x := start(t, "greeting", greeting)
	r := newRun(x.def, x.c, alice, Env{Now: t0})
	task := x.item("Answer greeting")
	tests := []struct {
		src  string
		want any
	}{
		{"Greeting.To", "bob"},
		{"Answer == null", true},
		{"case.id", "case-1"},
		{"caseInstanceId", "case-1"},
		{"case.name", "Greeting"},
		{"case.file.Greeting.From", "alice"},
		{"case.team.role.Receiver.member?.id", "bob"},
		{"case.team.role.Sender.member?.id", nil},
		{"case.team.members.size()", int64(2)},
		{"case.plan['Answer greeting'].state", "Active"},
		{"case.plan['Read answer'].state.isAvailable()", true},
		{"stage['Read answer'].state == 'Available'", true},
		{"task.name + ' ' + task.index", "Answer greeting 0"},
		{"task.input.Greeting.Message", "Hello"},
		{"T(java.time.Instant).now()", t0},
		{"map('to', Greeting.To).to", "bob"},
		{"user.id", "alice"},
	}
	for _, tt := range tests {
		x, err := expr.Compile(tt.src)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		got, err := x.Eval(r.exprEnv(task, nil))
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if tm, ok := tt.want.(time.Time); ok {
			if g, _ := got.(time.Time); !g.Equal(tm) {
				t.Errorf("%s = %v, want %v", tt.src, got, tt.want)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("%s = %#v, want %#v", tt.src, got, tt.want)
		}
	}
}

func TestPerformerRole(t *testing.T) {
	x := start(t, "greeting", greeting)
	err := x.fail(MakeTransition{PlanItem: "Answer greeting", Transition: Complete}, carol)
	if err.Kind != ErrInvalid || err.Msg != "You do not have the permission to perform the task Answer greeting" {
		t.Errorf("completing without the performer role: %d %q", err.Kind, err.Msg)
	}
	// With the role, completing through the plan runs the completion with
	// empty output.
	x.do(MakeTransition{PlanItem: "Answer greeting", Transition: Complete}, bob)
	x.want(map[string]State{"Answer greeting": Completed, "Read answer": Active})
	if _, ok := x.c.File["Answer"]; ok {
		t.Errorf("empty output wrote the case file: %v", x.c.File)
	}
	if err := x.fail(CompleteHumanTask{PlanItemID: "nope"}, bob); err.Kind != ErrNotFound {
		t.Errorf("completing an unknown task: %v", err)
	}
}

func TestLoopGuard(t *testing.T) {
	err := startErr(t, "loop", nil)
	if err.Kind != ErrInvalid || err.Msg == "" {
		t.Errorf("a looping model: %v", err)
	}
	t.Log(err.Msg)
}
