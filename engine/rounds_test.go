package engine

import (
	"testing"
	"time"
)

// TestRepeatingStage pins addendum §8, §9 and §18: a repeating,
// auto-completing stage whose last task completes ends Completed (its exit
// criterion on that task does not terminate it); only then does the
// milestone on its completion occur, which starts the next round: a new
// stage instance with the next index and fresh children, whose task starts
// Unassigned and is assigned again by its expression, with task.stage.index
// and caseFileItem in its context.
func TestRepeatingStage(t *testing.T) {
	x := start(t, "rounds", map[string]any{"Callers": []any{map[string]any{"Who": "ann"}, map[string]any{"Who": "bob"}}})
	round, answer := x.item("Round"), x.item("Answer")
	if round.State != Active || round.Index != 0 || answer.State != Active {
		t.Fatalf("first round %s[%d], answer %s", round.State, round.Index, answer.State)
	}
	if tk := answer.Task; tk.Assignee != "agent-0" || tk.State != Assigned || tk.Documentation != "Answer the caller" ||
		tk.DueDate == nil || tk.DueDate.Sub(tk.ActivatedOn) != 2*time.Minute {
		t.Fatalf("first answer task %+v", tk)
	}
	if tk := x.item("Greet").Task; tk.Assignee != "bob" || tk.Documentation != "Say hello to the last caller" {
		t.Fatalf("greet task %+v", tk)
	}

	x.do(CompleteHumanTask{PlanItemID: answer.ID, Output: map[string]any{"Reply": map[string]any{"Message": "again"}}}, alice)
	if round.State != Completed {
		t.Fatalf("the round ended %s, want Completed", round.State)
	}
	if again := x.items("Again"); len(again) == 0 || again[0].State != Completed {
		t.Fatalf("milestone Again: %+v", again)
	}
	next := x.item("Round")
	if next == round || next.Index != 1 || next.State != Active {
		t.Fatalf("next round %+v", next)
	}
	nextAnswer := x.item("Answer")
	if nextAnswer == answer || nextAnswer.StageID != next.ID || nextAnswer.Index != 0 || nextAnswer.State != Active {
		t.Fatalf("next answer %+v", nextAnswer)
	}
	if tk := nextAnswer.Task; tk.Assignee != "agent-1" || tk.State != Assigned {
		t.Fatalf("next answer task %+v", tk)
	}
	activated := -1
	for i, e := range x.events {
		if a, ok := e.Payload.(HumanTaskActivated); ok && a.TaskID == nextAnswer.ID {
			activated = i
			if a.State != Unassigned {
				t.Errorf("the repeated task activated %s, want Unassigned", a.State)
			}
		}
		if a, ok := e.Payload.(HumanTaskAssigned); ok && a.TaskID == nextAnswer.ID && (activated < 0 || i < activated) {
			t.Errorf("assigned before activation")
		}
	}

	x.do(CompleteHumanTask{PlanItemID: nextAnswer.ID, Output: map[string]any{"Reply": map[string]any{"Message": "done"}}}, alice)
	if next.State != Completed || len(x.items("Round")) != 2 {
		t.Fatalf("after the last answer: round %s, %d rounds", next.State, len(x.items("Round")))
	}
}
