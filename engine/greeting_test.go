package engine

import (
	"slices"
	"strings"
	"testing"
	"time"
)

var greeting = map[string]any{"Greeting": map[string]any{"Message": "Hello", "To": "bob", "From": "alice"}}

// TestGreeting runs the hello-world model from start to completion: the
// first task is assigned by expression, its output goes into the case
// file, its completion starts the second task, and the case completes.
func TestGreeting(t *testing.T) {
	x := start(t, "greeting", greeting)
	x.want(map[string]State{"Greeting": Active, "Answer greeting": Active, "Read answer": Available})

	answer := x.item("Answer greeting")
	task := answer.Task
	if task == nil {
		t.Fatal("Answer greeting has no task after activation")
	}
	if task.State != Assigned || task.Assignee != "bob" || task.Owner != "bob" || task.Role != "Receiver" {
		t.Errorf("task workflow = %+v, want assigned to bob with role Receiver", task)
	}
	if want := t0.Add(48 * time.Hour); task.DueDate == nil || !task.DueDate.Equal(want) {
		t.Errorf("due date = %v, want %v", task.DueDate, want)
	}
	if got := task.Input["Greeting"].(map[string]any)["To"]; got != "bob" {
		t.Errorf("task input = %v", task.Input)
	}
	if want := `{"title": "Answer alice", "task": "Answer greeting"}`; task.TaskModel != want {
		t.Errorf("task model = %s, want %s", task.TaskModel, want)
	}
	if i := slices.IndexFunc(x.c.Team.Members, func(m Member) bool { return m.ID == "bob" }); i < 0 {
		t.Errorf("bob was not added to the team: %+v", x.c.Team)
	} else if m := x.c.Team.Members[i]; m.Origin != "IDP" || !slices.Equal(m.CaseRoles, []string{"Receiver"}) {
		t.Errorf("bob's membership = %+v", m)
	}
	wantTypes := []string{"CaseDefinitionApplied", "CaseFileItemTransitioned", "PlanItemCreated", "PlanItemTransitioned",
		"PlanItemCreated", "PlanItemTransitioned", "RepetitionRuleEvaluated", "RequiredRuleEvaluated",
		"PlanItemCreated", "PlanItemTransitioned", "RepetitionRuleEvaluated", "RequiredRuleEvaluated", "PlanItemTransitioned",
		"HumanTaskActivated", "CaseTeamMemberSet", "HumanTaskAssigned", "HumanTaskOwnerChanged", "HumanTaskDueDateFilled", "CaseModified"}
	if got := eventTypesOf(x.events); !slices.Equal(got, wantTypes) {
		t.Errorf("start events:\n got %v\nwant %v", got, wantTypes)
	}
	ids := BusinessIdentifiers(x.def, x.c)
	if want := []Identifier{{"Message", "Hello"}, {"To", "bob"}}; !slices.Equal(ids, want) {
		t.Errorf("identifiers = %v, want %v", ids, want)
	}

	x.do(CompleteHumanTask{PlanItemID: answer.ID, Output: map[string]any{
		"Answer": map[string]any{"Text": "Hi", "Date": "2024-05-07", "Pleased": true}}}, bob)
	x.want(map[string]State{"Answer greeting": Completed, "Read answer": Active, "Greeting": Active})
	if got, want := transitions(x.events), []string{"Answer greeting:Complete", "Read answer:Start"}; !slices.Equal(got, want) {
		t.Errorf("transitions = %v, want %v", got, want)
	}
	if got, want := fileEvents(x.events), []string{"Answer:create"}; !slices.Equal(got, want) {
		t.Errorf("file events = %v, want %v", got, want)
	}
	// The case file changes before the task completes (§4.2).
	types := eventTypesOf(x.events)
	if slices.Index(types, "CaseFileItemTransitioned") > slices.Index(types, "HumanTaskCompleted") {
		t.Errorf("output mapped after completion: %v", types)
	}
	read := x.item("Read answer").Task
	if read.Assignee != "alice" || read.Input["Answer"].(map[string]any)["Text"] != "Hi" {
		t.Errorf("read task = %+v", read)
	}
	if answer.Task.State != TaskCompleted || answer.Task.Output["Answer"] == nil {
		t.Errorf("completed task workflow = %+v", answer.Task)
	}
	if len(x.c.Team.Members) != 2 {
		t.Errorf("alice owns the case and needs no membership for her task: %+v", x.c.Team)
	}

	x.do(MakeTransition{PlanItem: "Read answer", Transition: Complete}, alice)
	x.want(map[string]State{"Read answer": Completed, "Greeting": Completed})
	if x.c.State() != Completed {
		t.Errorf("case state = %s", x.c.State())
	}
	if got := x.fileJSON(); !strings.Contains(got, `"Answer":{"Date":"2024-05-07","Pleased":true,"Text":"Hi"}`) {
		t.Errorf("case file = %s", got)
	}
}
