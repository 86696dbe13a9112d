package engine

import (
	"encoding/json"
	"errors"
	"testing"
)

func fourEyesTeam() Team {
	return Team{Members: []Member{
		{ID: "alice", Type: UserMember, IsOwner: true, CaseRoles: []string{}},
		{ID: "bob", Type: UserMember, CaseRoles: []string{}},
		{ID: "carol", Type: UserMember, CaseRoles: []string{}},
	}}
}

// TestFourEyes plays the four-eyes and rendez-vous rules of foureyes.xml
// in both directions, on every command that checks them.
func TestFourEyes(t *testing.T) {
	bob := Actor{UserID: "bob"}
	carol := Actor{UserID: "carol"}
	worked := func(cmd, other, task string) string {
		return cmd + "[{id}]: Since you have worked on " + other + " you cannot also work on " + task
	}
	notWorked := func(cmd, other, task string) string {
		return cmd + "[{id}]: Since you have not worked on " + other + " you cannot work on " + task
	}
	tests := []struct {
		name  string
		steps []taskStep
	}{
		{"four eyes, checked on the declaring task", []taskStep{
			{as: carol, cmd: "claim", task: "Task3"},
			{as: carol, cmd: "claim", task: "Task1", err: ErrNotAllowed, msg: worked("ClaimTask", "Task3", "Task1")},
			{as: bob, cmd: "claim", task: "Task1"},
		}},
		{"four eyes, checked on the other task", []taskStep{
			{as: bob, cmd: "claim", task: "Task1"},
			{as: bob, cmd: "claim", task: "Task3", err: ErrNotAllowed, msg: worked("ClaimTask", "Task1", "Task3")},
			{as: carol, cmd: "claim", task: "Task3"},
		}},
		{"four eyes carries over to a rendez-vous partner", []taskStep{
			{as: bob, cmd: "claim", task: "Task2"},
			{as: bob, cmd: "claim", task: "Task3", err: ErrNotAllowed, msg: worked("ClaimTask", "Task2", "Task3")},
			{as: carol, cmd: "complete", task: "Task3"},
			{as: carol, cmd: "claim", task: "Task2", err: ErrNotAllowed, msg: worked("ClaimTask", "Task3", "Task2")},
		}},
		{"rendez-vous, one way", []taskStep{
			{as: bob, cmd: "claim", task: "Task1"},
			{as: carol, cmd: "claim", task: "Task2", err: ErrNotAllowed, msg: notWorked("ClaimTask", "Task1", "Task2")},
			{as: bob, cmd: "claim", task: "Task2"},
		}},
		{"rendez-vous, the other way", []taskStep{
			{as: bob, cmd: "claim", task: "Task2"},
			{as: carol, cmd: "complete", task: "Task1", err: ErrNotAllowed, msg: notWorked("CompleteHumanTask", "Task2", "Task1")},
			{as: carol, cmd: "finish", task: "Task1", err: ErrNotAllowed, msg: notWorked("CompleteHumanTask", "Task2", "Task1")},
			{as: bob, cmd: "complete", task: "Task1"},
		}},
		{"rendez-vous binds nobody while nobody holds the partner", []taskStep{
			{as: carol, cmd: "claim", task: "Task2"},
			{as: carol, cmd: "revoke", task: "Task2"},
			{as: bob, cmd: "claim", task: "Task1"},
			{as: bob, cmd: "revoke", task: "Task1"},
			{as: bob, cmd: "claim", task: "Task2"},
			{as: carol, cmd: "claim", task: "Task1", err: ErrNotAllowed, msg: notWorked("ClaimTask", "Task2", "Task1")},
			{as: wAlice, cmd: "claim", task: "Task1", err: ErrNotAllowed, msg: notWorked("ClaimTask", "Task2", "Task1")},
		}},
		{"a revoke releases the four-eyes hold, rendez-vous partners hold together", []taskStep{
			// The walk of the reference engine's clients (issue 13, point 3).
			{as: bob, cmd: "claim", task: "Task1"},
			{as: bob, cmd: "claim", task: "Task3", err: ErrNotAllowed, msg: worked("ClaimTask", "Task1", "Task3")},
			{as: bob, cmd: "claim", task: "Task2"},
			{as: bob, cmd: "revoke", task: "Task1"},
			{as: bob, cmd: "claim", task: "Task3", err: ErrNotAllowed, msg: worked("ClaimTask", "Task2", "Task3")},
			{as: bob, cmd: "revoke", task: "Task2"},
			{as: bob, cmd: "claim", task: "Task3"},
		}},
		{"a delegate holds the task, its owner does not", []taskStep{
			{as: bob, cmd: "claim", task: "Task1"},
			{as: bob, cmd: "delegate", task: "Task1", to: "carol"},
			{as: bob, cmd: "claim", task: "Task3"},
			{as: carol, cmd: "claim", task: "Task3", err: ErrNotAllowed, msg: worked("ClaimTask", "Task1", "Task3")},
		}},
		{"assign checks the assignee", []taskStep{
			{as: wAlice, cmd: "assign", task: "Task1", to: "bob"},
			{as: wAlice, cmd: "assign", task: "Task3", to: "bob", err: ErrNotAllowed, msg: worked("AssignTask", "Task1", "Task3")},
			{as: wAlice, cmd: "assign", task: "Task2", to: "carol", err: ErrNotAllowed, msg: notWorked("AssignTask", "Task1", "Task2")},
			{as: wAlice, cmd: "assign", task: "Task3", to: "carol"},
		}},
		{"delegate checks the delegate", []taskStep{
			{as: bob, cmd: "claim", task: "Task1"},
			{as: carol, cmd: "claim", task: "Task3"},
			{as: carol, cmd: "delegate", task: "Task3", to: "bob", err: ErrNotAllowed, msg: worked("DelegateTask", "Task1", "Task3")},
			{as: bob, cmd: "delegate", task: "Task1", to: "carol", err: ErrNotAllowed, msg: worked("DelegateTask", "Task3", "Task1")},
			{as: carol, cmd: "delegate", task: "Task3", to: "alice"},
		}},
		{"save and validate check the actor", []taskStep{
			{as: bob, cmd: "claim", task: "Task3"},
			{as: bob, cmd: "save", task: "Task1", err: ErrNotAllowed, msg: worked("SaveHumanTaskOutput", "Task3", "Task1")},
			{as: bob, cmd: "validate", task: "Task1", err: ErrNotAllowed, msg: worked("ValidateTaskOutput", "Task3", "Task1")},
			{as: carol, cmd: "validate", task: "Task1"},
		}},
		{"working on a task again is no second pair of eyes", []taskStep{
			{as: bob, cmd: "claim", task: "Task1"},
			{as: bob, cmd: "revoke", task: "Task1"},
			{as: bob, cmd: "claim", task: "Task1"},
			{as: bob, cmd: "complete", task: "Task1"},
		}},
		{"every instance of a repeating partner counts", []taskStep{
			{as: bob, cmd: "complete", task: "Task5"},
			{as: carol, cmd: "complete", task: "Task5"},
			{as: bob, cmd: "claim", task: "Task4", err: ErrNotAllowed, msg: worked("ClaimTask", "Task5", "Task4")},
			{as: carol, cmd: "claim", task: "Task4", err: ErrNotAllowed, msg: worked("ClaimTask", "Task5", "Task4")},
			{as: wAlice, cmd: "claim", task: "Task4"},
			{as: wAlice, cmd: "claim", task: "Task5", err: ErrNotAllowed, msg: worked("ClaimTask", "Task4", "Task5")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := startTeam(t, "foureyes", fourEyesTeam())
			for _, s := range tt.steps {
				x.step(s)
			}
		})
	}
}

// TestMayPerform: the mayPerform predicate answers what a claim would,
// four-eyes and rendez-vous included, for every task of the case.
func TestMayPerform(t *testing.T) {
	bob, carol := Actor{UserID: "bob"}, Actor{UserID: "carol"}
	x := startTeam(t, "foureyes", fourEyesTeam())
	for _, s := range []taskStep{{as: bob, cmd: "claim", task: "Task1"}, {as: bob, cmd: "claim", task: "Task2"}} {
		x.step(s)
	}
	for _, tt := range []struct {
		as   Actor
		task string
		want bool
	}{
		{bob, "Task1", true}, {bob, "Task3", false}, {carol, "Task3", true}, {carol, "Task2", false},
		{Actor{UserID: "zed"}, "Task1", false}, {wAlice, "Task3", true},
	} {
		id := x.item(tt.task).ID
		if got := MayPerform(x.def, x.c, tt.as)(id); got != tt.want {
			t.Errorf("%s may perform %s = %v, want %v", tt.as.UserID, tt.task, got, tt.want)
		}
		var c Case
		b, _ := json.Marshal(x.c)
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		_, err := Execute(x.def, &c, ClaimTask{TaskID: id}, tt.as, Env{Now: x.now, NewID: func() string { return "n" }})
		var ee *Error
		if claimable := err == nil || (errors.As(err, &ee) && ee.Kind == ErrNoEffect); claimable != tt.want {
			t.Errorf("%s claims %s: %v, but mayPerform is %v", tt.as.UserID, tt.task, err, tt.want)
		}
	}
	if MayPerform(x.def, x.c, bob)("nope") {
		t.Error("bob may perform a task that does not exist")
	}
}

// TestValidateTaskOutput checks the validate action: the access rules of
// saving, the default validation of completing, and that the case does
// not change.
func TestValidateTaskOutput(t *testing.T) {
	tests := []struct {
		name   string
		as     Actor
		output map[string]any
		err    ErrorKind
		msg    string
	}{
		{"valid", wErin, map[string]any{"Decision": map[string]any{"Approved": true}}, 0, ""},
		{"an owner may", wAlice, map[string]any{"Decision": map[string]any{"Approved": false}}, 0, ""},
		{"a required output is missing", wErin, nil, ErrInvalid,
			"Output for task Decide is invalid: [Task output parameter Decision does not have a value, but that is required in order to complete the task]"},
		{"a member without the role", wBob, map[string]any{"Decision": map[string]any{"Approved": true}}, ErrNotAllowed,
			"ValidateTaskOutput" + noPerm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := startTeam(t, "workflow", workflowTeam())
			before := x.c.Sequence
			x.step(taskStep{as: tt.as, cmd: "validate", task: "Decide", output: tt.output, err: tt.err, msg: tt.msg})
			if task := x.item("Decide").Task; x.c.Sequence != before || task.Assignee != "" {
				t.Errorf("validation changed the case: %+v", task)
			}
		})
	}
	x := startTeam(t, "workflow", workflowTeam())
	if err := ValidateTaskOutput(x.def, x.c, x.item("Decide").ID, map[string]any{"Decision": map[string]any{"Approved": "maybe"}}, wErin); err == nil {
		t.Error("a string passed for a boolean property")
	} else {
		t.Log(err)
	}
	// The same validation guards completion.
	x.step(taskStep{as: wErin, cmd: "complete", task: "Decide", msg: "Output for task Decide is invalid: [Task output parameter Decision does not have a value, but that is required in order to complete the task]"})
	x.step(taskStep{as: wErin, cmd: "complete", task: "Decide", output: map[string]any{"Decision": map[string]any{"Approved": true}}})
	if got := x.fileJSON(); got != `{"Decision":{"Approved":true}}` {
		t.Errorf("case file %s", got)
	}
}

func TestTaskValidator(t *testing.T) {
	x := startTeam(t, "workflow", workflowTeam())
	if v := TaskValidator(x.def, x.c, x.item("Decide").ID); v == nil || v.Name() != "DecisionValidator" {
		t.Errorf("validator of Decide = %v", v)
	}
	for _, id := range []string{x.item("Work").ID, "nope", "case-1"} {
		if v := TaskValidator(x.def, x.c, id); v != nil {
			t.Errorf("validator of %s = %v, want nil", id, v.Name())
		}
	}
}
