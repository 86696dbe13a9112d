package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// These tests run the reference engine's own test models through Start and
// Execute, and check what the CMMN specification and the reference engine's
// test suite expect of them. The models are not part of this repository:
// CASEGRAPH_CONFORMANCE_MODELS names their folder (CI sets it), and without
// it the tests skip. constructs_test.go pins the same constructs on the
// project's own models.

// conformanceModels returns the folder of the outside corpus of models, or
// skips the test saying how to run it.
func conformanceModels(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CASEGRAPH_CONFORMANCE_MODELS")
	if dir == "" {
		t.Skip("set CASEGRAPH_CONFORMANCE_MODELS=<folder of the reference engine's CMMN models> to run this conformance test")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("CASEGRAPH_CONFORMANCE_MODELS: %v", err)
	}
	return dir
}

// sharedModel parses a model of the conformance corpus.
func sharedModel(t *testing.T, name string) *cmmn.Case {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(conformanceModels(t), name))
	if err != nil {
		t.Fatal(err)
	}
	defs, err := cmmn.Parse(data)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return defs.Main()
}

// startShared starts a case of a shared model by alice, the owner; team
// is added to her.
func startShared(t *testing.T, name string, inputs map[string]any, team ...Member) *tc {
	t.Helper()
	x := &tc{t: t, def: sharedModel(t, name), now: t0}
	members := append([]Member{{ID: "alice", Type: UserMember, IsOwner: true, CaseRoles: []string{}}}, team...)
	c, events, err := Start(x.def, StartCase{ID: "case-1", Tenant: "world", Inputs: inputs,
		Team: Team{Members: members}}, alice, x.env())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	x.c, x.events = c, events
	checkEvents(t, c, events)
	return x
}

func TestReferenceHelloWorld(t *testing.T) {
	x := startShared(t, "helloworld.xml", map[string]any{"Greeting": map[string]any{"Message": "hi", "To": "bob", "From": "alice"}})
	x.want(map[string]State{"HelloWorld": Active, "Receive Greeting and Send response": Active, "Read response": Available})
	task := x.item("Receive Greeting and Send response")
	if task.Task == nil || task.Task.Assignee != "bob" || task.Task.State != Assigned {
		t.Fatalf("task 1 should be assigned to Greeting.To: %+v", task.Task)
	}
	if task.Task.DueDate == nil {
		t.Errorf("task 1 has no due date")
	}
	if g, _ := task.Task.Input["Greeting"].(map[string]any); g["Message"] != "hi" {
		t.Errorf("task 1 input %v", task.Task.Input)
	}
	// Bad output types are refused.
	if e := x.fail(CompleteHumanTask{PlanItemID: task.ID, Output: map[string]any{"Response": map[string]any{"Date": "not a date"}}}, alice); e.Kind != ErrInvalid {
		t.Errorf("bad output: %v", e)
	}
	x.do(CompleteHumanTask{PlanItemID: task.ID, Output: map[string]any{"Response": map[string]any{"Message": "hello", "SomeBoolean": true}}}, alice)
	x.want(map[string]State{"Receive Greeting and Send response": Completed, "Read response": Active, "HelloWorld": Active})
	read := x.item("Read response")
	if r, _ := read.Task.Input["Response"].(map[string]any); r["Message"] != "hello" {
		t.Errorf("task 2 input %v", read.Task.Input)
	}
	x.do(CompleteHumanTask{PlanItemID: read.ID}, alice)
	x.want(map[string]State{"HelloWorld": Completed})
}

func TestReferenceEventListener(t *testing.T) {
	emp := Actor{UserID: "emp", Roles: []string{"Employee"}}
	x := startShared(t, "eventlistener.xml", nil, Member{ID: "emp", Type: UserMember, CaseRoles: []string{"Employee"}},
		Member{ID: "carol", Type: UserMember, CaseRoles: []string{}})
	x.want(map[string]State{"T1": Available, "PlainUserEvent": Available, "PlainTask": Active, "Repeater": Active,
		"EmployeeUserEvent": Available, "M1": Available})
	if e := x.fail(MakeTransition{PlanItem: "EmployeeUserEvent", Transition: Occur}, carol); e.Kind != ErrNotAllowed {
		t.Errorf("carol raising EmployeeUserEvent: %v", e)
	}
	x.do(MakeTransition{PlanItem: "EmployeeUserEvent", Transition: Occur}, emp)
	if got := x.items("Repeater"); len(got) != 2 || got[0].State != Completed || got[1].State != Active || got[1].Index != 1 {
		t.Errorf("Repeater should complete and repeat: %s", x.summary())
	}
	if got := x.items("M1"); len(got) != 2 || got[0].State != Completed || got[1].State != Available {
		t.Errorf("M1: %s", x.summary())
	}
	x.do(MakeTransition{PlanItem: "PlainUserEvent", Transition: Occur}, carol)
	x.want(map[string]State{"PlainUserEvent": Completed, "T1": Active})
	x.do(CompleteHumanTask{PlanItemID: x.item("PlainTask").ID}, carol)
	if got := x.items("PlainTask"); len(got) != 2 || got[1].State != Active {
		t.Errorf("PlainTask should repeat: %s", x.summary())
	}
	// The case plan does not complete on its own: autoComplete is false
	// and the user event is gone, but tasks are active.
	x.want(map[string]State{"eventlistener": Active})
}

func TestReferencePlanning(t *testing.T) {
	emp := Actor{UserID: "emp", Roles: []string{"Employee"}}
	mgr := Actor{UserID: "mgr", Roles: []string{"Manager"}}
	x := startShared(t, "planning.xml", nil, Member{ID: "emp", Type: UserMember, CaseRoles: []string{"Employee"}},
		Member{ID: "mgr", Type: UserMember, CaseRoles: []string{"Manager"}}, Member{ID: "carol", Type: UserMember, CaseRoles: []string{}})
	x.want(map[string]State{"T1": Active, "T2": Active, "T3": Available, "Stage": Available})
	names := func(as Actor) map[string]string {
		out := map[string]string{}
		for _, d := range DiscretionaryItems(x.def, x.c, as) {
			out[d.Name+"@"+d.ParentName] = d.DefinitionID
		}
		return out
	}
	// T2 is active, so T4 applies; Opnieuw T1 always. T4 needs Employee or
	// Manager; the Opnieuw T1 of T2's table needs Employee.
	if got := names(emp); len(got) != 3 {
		t.Errorf("emp may plan %v", got)
	}
	if got := names(mgr); len(got) != 2 || got["T4@planning"] == "" || got["Opnieuw T1@planning"] == "" {
		t.Errorf("mgr may plan %v", got)
	}
	if got := names(carol); len(got) != 1 || got["Opnieuw T1@planning"] == "" {
		t.Errorf("carol may plan %v", got)
	}
	if e := x.fail(PlanDiscretionaryItem{ParentID: x.c.ID, DefinitionID: "cm_csQA1_10", Name: "T4"}, carol); e.Kind != ErrInvalid ||
		e.Msg != "No authorization available to plan a discretionary item named 'T4'" {
		t.Errorf("carol planning T4: %v", e)
	}
	x.do(PlanDiscretionaryItem{ParentID: x.c.ID, DefinitionID: "cm_csQA1_10", Name: "T4"}, mgr)
	x.want(map[string]State{"T4": Active})
	x.do(CompleteHumanTask{PlanItemID: x.item("T2").ID}, alice)
	// The table's rule "isValid" is declared but no item refers to it
	// (applicabilityRuleRefs), so it does not apply (CMMN 1.1 §6.2.6).
	if got := names(mgr); len(got) != 2 {
		t.Errorf("after T2 mgr may plan %v", got)
	}
	x.do(CompleteHumanTask{PlanItemID: x.item("T1").ID}, alice)
	x.want(map[string]State{"T3": Active})
	x.do(CompleteHumanTask{PlanItemID: x.item("T3").ID}, alice)
	x.want(map[string]State{"Stage": Active})
	// The stage without autoComplete waits for its discretionary item.
	if e := x.fail(PlanDiscretionaryItem{ParentID: x.item("Stage").ID, DefinitionID: "cm_csQA1_27", Name: "T5"}, emp); e.Kind != ErrInvalid {
		t.Errorf("emp planning T5: %v", e)
	}
	x.do(PlanDiscretionaryItem{ParentID: x.item("Stage").ID, DefinitionID: "cm_csQA1_27", Name: "T5"}, mgr)
	x.do(CompleteHumanTask{PlanItemID: x.item("T5").ID}, alice)
	// The stage without autoComplete does not complete while T5 can
	// still be planned; a user completes it.
	x.want(map[string]State{"Stage": Active})
	x.do(MakeTransition{PlanItem: "Stage", Transition: Complete}, alice)
	x.do(CompleteHumanTask{PlanItemID: x.item("T4").ID}, alice)
	x.want(map[string]State{"Stage": Completed, "T4": Active, "planning": Active})
}

func TestReferenceCaseFileMultiplicity(t *testing.T) {
	x := startShared(t, "casefile.xml", nil)
	x.do(ChangeCaseFile{Op: FileCreate, Path: "RootCaseFileItem", Value: map[string]any{"RootProperty1": "a"}}, alice)
	tests := []struct {
		name string
		cmd  ChangeCaseFile
		msg  string
	}{
		{"second value of an ExactlyOne item", ChangeCaseFile{Op: FileCreate, Path: "RootCaseFileItem", Value: map[string]any{"RootProperty1": "b"}},
			"CreateCaseFileItem[RootCaseFileItem] cannot be done because item is in state Available"},
		// Lists on single items and list elements are accepted as they
		// are since issue 13 (addendum §1, §3); TestCaseFile pins that.
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e := x.fail(tt.cmd, alice); e.Kind != ErrInvalid || e.Msg != tt.msg {
				t.Errorf("got %d %q\nwant %q", e.Kind, e.Msg, tt.msg)
			}
		})
	}
	// Arrays take lists: one element per entry.
	x.do(ChangeCaseFile{Op: FileCreate, Path: "RootCaseFileItem/ChildArray", Value: []any{map[string]any{"ChildName": "1"}, map[string]any{"ChildName": "2"}}}, alice)
	x.do(ChangeCaseFile{Op: FileCreate, Path: "RootCaseFileItem/ChildArray", Value: map[string]any{"ChildName": "3"}}, alice)
	if got := x.fileJSON(); got != `{"RootCaseFileItem":{"ChildArray":[{"ChildName":"1"},{"ChildName":"2"},{"ChildName":"3"}],"RootProperty1":"a"}}` {
		t.Errorf("case file %s", got)
	}
}

// An if-part whose contextRef names a nested array item sees that item by
// its name: GetDetails starts once IdentifierList/DetailsKey has content.
func TestReferenceIfPartContextRef(t *testing.T) {
	x := startShared(t, "getlist_getdetails.xml", nil)
	x.want(map[string]State{"GetList": Available, "GetDetails": Available})
	x.do(ChangeCaseFile{Op: FileCreate, Path: "IdentifierList", Value: map[string]any{}}, alice)
	x.want(map[string]State{"GetDetails": Available})
	x.do(ChangeCaseFile{Op: FileCreate, Path: "IdentifierList/DetailsKey", Value: []any{map[string]any{"id": "1"}, map[string]any{"id": "2"}}}, alice)
	// Each new key starts (or repeats) GetDetails: one call per key.
	if got := x.items("GetDetails"); len(got) != 2 || got[0].State != Active || got[1].State != Active {
		t.Errorf("GetDetails should run per key: %s", x.summary())
	}
}

// The output parameters of a case read its bound case file items.
func TestReferenceCaseOutput(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(conformanceModels(t), "subcasewitharrayoutput.xml"))
	if err != nil {
		t.Fatal(err)
	}
	defs, err := cmmn.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	def := defs.Case("simpleinoutcase.case")
	x := &tc{t: t, def: def, now: t0}
	c, _, err := Start(def, StartCase{ID: "sub-1", Team: Team{Members: []Member{{ID: "alice", Type: UserMember, IsOwner: true}}}}, alice, x.env())
	if err != nil {
		t.Fatal(err)
	}
	x.c = c
	if got := CaseOutput(def, c); len(got) != 1 || got["out"] != nil {
		t.Errorf("output before: %v", got)
	}
	x.do(ChangeCaseFile{Op: FileCreate, Path: "out", Value: []any{"a", "b"}}, alice)
	got := CaseOutput(def, x.c)
	if list, _ := got["out"].([]any); len(list) != 2 || list[0] != "a" {
		t.Errorf("output after: %v", got)
	}
}

// The cafienne suspend and resume criteria suspend a stage with what it
// holds, and resume it to where it was.
func TestReferenceSuspendResume(t *testing.T) {
	x := startShared(t, "suspendresume.xml", nil)
	x.want(map[string]State{"Stage": Active, "Task in Stage": Active, "Milestone": Available, "After 5 seconds": Available})
	x.do(MakeTransition{PlanItem: "Suspend Stage Event", Transition: Occur}, alice)
	x.want(map[string]State{"Stage": Suspended, "Task in Stage": Suspended, "After 5 seconds": Suspended})
	if got := x.items("suspender"); len(got) != 2 || got[0].State != Completed || got[1].State != Active {
		t.Errorf("suspender should complete and repeat: %s", x.summary())
	}
	if x.item("Task in Stage").Task.State != TaskSuspended {
		t.Errorf("task workflow %s", x.item("Task in Stage").Task.State)
	}
	x.do(MakeTransition{PlanItem: "Resume Stage Event", Transition: Occur}, alice)
	x.want(map[string]State{"Stage": Active, "Task in Stage": Active, "After 5 seconds": Available, "Milestone": Available})
	x.do(FireTimer{PlanItemID: x.item("After 5 seconds").ID}, alice)
	x.want(map[string]State{"Milestone": Completed})
}
