package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// forest runs a tree of cases in memory, applying effects as service does
// in its transaction: each effect becomes a command on the case it names.
type forest struct {
	t     *testing.T
	defs  *cmmn.Definitions
	cases map[string]*Case
	now   time.Time
	n     int
	// failStart makes the start of sub cases of this definition fail, as
	// a start whose input does not fit would.
	failStart string
	// calls collects the process calls asked for, as the outbox would.
	calls []CallProcess
}

func newForest(t *testing.T) *forest {
	t.Helper()
	data, err := os.ReadFile("../testdata/cases/subcases.xml")
	if err != nil {
		t.Fatal(err)
	}
	defs, err := cmmn.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return &forest{t: t, defs: defs, cases: map[string]*Case{}, now: t0}
}

func (f *forest) env() Env {
	f.now = f.now.Add(time.Second)
	return Env{Now: f.now, NewID: func() string { f.n++; return fmt.Sprintf("pi-%d", f.n) }}
}

var (
	claimOwner   = Member{ID: "alice", Type: UserMember, IsOwner: true, CaseRoles: []string{"Handler", "Manager"}}
	claimManager = Member{ID: "mia", Type: UserMember, CaseRoles: []string{"Manager"}}
)

// start starts a claim and settles its effects.
func (f *forest) start(inputs map[string]any) *Case {
	f.t.Helper()
	c, out, err := StartWithEffects(f.defs.Main(), StartCase{ID: "claim", Tenant: "world", Inputs: inputs,
		Team: Team{Members: []Member{claimOwner, claimManager}}}, alice, f.env())
	if err != nil {
		f.t.Fatal(err)
	}
	f.cases[c.ID] = c
	f.settle(out.Effects)
	return c
}

// do runs cmd on case id and settles its effects.
func (f *forest) do(id string, cmd Command) {
	f.t.Helper()
	if err := f.try(id, cmd); err != nil {
		f.t.Fatalf("%T on %s: %v", cmd, id, err)
	}
}

func (f *forest) try(id string, cmd Command) error {
	c := f.cases[id]
	if c == nil {
		f.t.Fatalf("no case %s", id)
	}
	out, err := ExecuteWithEffects(f.def(c), c, cmd, alice, f.env())
	if err != nil {
		return err
	}
	checkEvents(f.t, c, out.Events)
	f.settle(out.Effects)
	return nil
}

func (f *forest) def(c *Case) *cmmn.Case { return f.defs.Case(c.DefinitionID) }

func (f *forest) settle(effects []Effect) {
	f.t.Helper()
	for len(effects) > 0 {
		e := effects[0]
		effects = effects[1:]
		var (
			out Outcome
			err error
		)
		switch e := e.(type) {
		case StartSubCase:
			if e.DefinitionID == f.failStart {
				out, err = f.run(e.ParentID, SubCaseChanged{TaskID: e.TaskID, State: Failed, NotStarted: true})
				break
			}
			var c *Case
			c, out, err = StartWithEffects(f.defs.Case(e.DefinitionID), StartCase{ID: e.TaskID, Tenant: e.Tenant, Inputs: e.Inputs,
				Team: e.Team, ParentID: e.ParentID, RootID: e.RootID, Depth: e.Depth}, alice, f.env())
			if err == nil {
				f.cases[c.ID] = c
			}
		case SubCaseOrder:
			out, err = f.run(e.CaseID, CaseTaskChanged{Transition: e.Transition})
		case ParentReport:
			out, err = f.run(e.ParentID, SubCaseChanged{TaskID: e.TaskID, State: e.State, Output: e.Output})
		case CallProcess:
			f.calls = append(f.calls, e)
			continue
		}
		var ee *Error
		if errors.As(err, &ee) && ee.Kind == ErrNoEffect {
			continue
		}
		if err != nil {
			f.t.Fatalf("effect %T %+v: %v", e, e, err)
		}
		effects = append(effects, out.Effects...)
	}
}

func (f *forest) run(id string, cmd Command) (Outcome, error) {
	c := f.cases[id]
	if c == nil {
		f.t.Fatalf("effect on missing case %s", id)
	}
	out, err := ExecuteWithEffects(f.def(c), c, cmd, alice, f.env())
	if err == nil {
		checkEvents(f.t, c, out.Events)
	}
	return out, err
}

// item returns the newest plan item called name in case id.
func (f *forest) item(id, name string) *PlanItem {
	f.t.Helper()
	c := f.cases[id]
	if c == nil {
		f.t.Fatalf("no case %s", id)
	}
	for i := len(c.PlanItems) - 1; i >= 0; i-- {
		if c.PlanItems[i].Name == name {
			return c.PlanItems[i]
		}
	}
	f.t.Fatalf("no plan item %q in %s", name, id)
	return nil
}

func (f *forest) want(id, name string, s State) {
	f.t.Helper()
	if got := f.item(id, name).State; got != s {
		f.t.Errorf("%s in %s is %s, want %s", name, id, got, s)
	}
}

func (f *forest) wantCase(id string, s State) {
	f.t.Helper()
	if got := f.cases[id].State(); got != s {
		f.t.Errorf("case %s is %s, want %s", id, got, s)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var claimInput = map[string]any{"Claim": map[string]any{"item": "bike", "amount": 300}}

func TestSubCasesStartWithMappedInputAndDerivedTeam(t *testing.T) {
	f := newForest(t)
	f.start(claimInput)
	assess := f.item("claim", "Assess")
	if assess.State != Active || assess.SubCaseID != assess.ID {
		t.Fatalf("Assess is %s with sub case %q", assess.State, assess.SubCaseID)
	}
	sub := f.cases[assess.ID]
	if sub == nil {
		t.Fatalf("no sub case %s", assess.ID)
	}
	if sub.ParentID != "claim" || sub.RootID != "claim" || sub.Depth != 1 || sub.Name != "Assess" {
		t.Errorf("sub case parent %q root %q depth %d name %q", sub.ParentID, sub.RootID, sub.Depth, sub.Name)
	}
	if got := jsonOf(t, sub.File["Claim"]); got != `{"amount":300,"item":"bike"}` {
		t.Errorf("sub case Claim = %s", got)
	}
	// The team keeps its members, with the roles the sub case defines.
	if got := jsonOf(t, sub.Team.Members); got != `[{"id":"alice","type":"user","caseRoles":["Handler"],"isOwner":true},{"id":"mia","type":"user","caseRoles":[],"isOwner":false}]` {
		t.Errorf("derived team = %s", got)
	}
	// Sub case of the sub case: the transformation picked the item.
	inspect := f.item(sub.ID, "Inspect")
	leaf := f.cases[inspect.ID]
	if leaf == nil || leaf.RootID != "claim" || leaf.ParentID != sub.ID || leaf.Depth != 2 {
		t.Fatalf("inspection case %+v", leaf)
	}
	if got := jsonOf(t, leaf.File["Item"]); got != `"bike"` {
		t.Errorf("inspection Item = %s", got)
	}
	// The non-blocking task completed as its sub case started.
	f.want("claim", "Notify", Completed)
	notify := f.item("claim", "Notify")
	f.wantCase(notify.ID, Active)
}

func TestSubCaseChainOutputFlowsToRoot(t *testing.T) {
	f := newForest(t)
	f.start(claimInput)
	sub := f.item("claim", "Assess").ID
	leaf := f.item(sub, "Inspect").ID
	f.do(leaf, CompleteHumanTask{PlanItemID: f.item(leaf, "Look at item").ID,
		Output: map[string]any{"Report": map[string]any{"inspector": "ian"}}})
	f.wantCase(leaf, Completed)
	f.want(sub, "Inspect", Completed)
	if got := jsonOf(t, f.cases[sub].File["Report"]); got != `{"inspector":"ian"}` {
		t.Errorf("assessment Report = %s", got)
	}
	f.want(sub, "Decide", Active)
	f.wantCase("claim", Active)
	f.do(sub, CompleteHumanTask{PlanItemID: f.item(sub, "Decide").ID,
		Output: map[string]any{"Report": map[string]any{"verdict": "pay"}}})
	f.wantCase(sub, Completed)
	f.want("claim", "Assess", Completed)
	if got := jsonOf(t, f.cases["claim"].File["Report"]); got != `{"inspector":"ian","verdict":"pay"}` {
		t.Errorf("claim Report = %s", got)
	}
	f.wantCase("claim", Completed)
	if got := jsonOf(t, CaseOutput(f.def(f.cases["claim"]), f.cases["claim"])); got != `{"Report":{"inspector":"ian","verdict":"pay"}}` {
		t.Errorf("claim output = %s", got)
	}
}

func TestCaseTaskTerminateEndsSubCaseTree(t *testing.T) {
	f := newForest(t)
	f.start(claimInput)
	sub := f.item("claim", "Assess").ID
	leaf := f.item(sub, "Inspect").ID
	f.do("claim", MakeTransition{PlanItem: sub, Transition: Terminate})
	f.want("claim", "Assess", Terminated)
	f.wantCase(sub, Terminated)
	f.wantCase(leaf, Terminated)
	f.want(leaf, "Look at item", Terminated)
}

func TestSubCaseTerminatedTerminatesTask(t *testing.T) {
	f := newForest(t)
	f.start(claimInput)
	sub := f.item("claim", "Assess").ID
	f.do(sub, MakeTransition{PlanItem: sub, Transition: Terminate})
	f.want("claim", "Assess", Terminated)
	f.wantCase(f.item(sub, "Inspect").ID, Terminated)
}

func TestCaseTaskSuspendResume(t *testing.T) {
	f := newForest(t)
	f.start(claimInput)
	sub := f.item("claim", "Assess").ID
	leaf := f.item(sub, "Inspect").ID
	f.do("claim", MakeTransition{PlanItem: sub, Transition: Suspend})
	f.want("claim", "Assess", Suspended)
	f.wantCase(sub, Suspended)
	f.wantCase(leaf, Suspended)
	f.want(leaf, "Look at item", Suspended)
	f.do("claim", MakeTransition{PlanItem: sub, Transition: Resume})
	f.want("claim", "Assess", Active)
	f.wantCase(sub, Active)
	f.wantCase(leaf, Active)
	f.want(leaf, "Look at item", Active)
	// Suspending the whole claim reaches the sub cases through the task.
	f.do("claim", MakeTransition{PlanItem: "claim", Transition: Suspend})
	f.wantCase(sub, Suspended)
	f.do("claim", MakeTransition{PlanItem: "claim", Transition: Reactivate})
	f.wantCase(sub, Active)
	// A suspended task that exits ends its suspended sub case too.
	f.do("claim", MakeTransition{PlanItem: sub, Transition: Suspend})
	f.do("claim", MakeTransition{PlanItem: "claim", Transition: Terminate})
	f.want("claim", "Assess", Terminated)
	f.wantCase(sub, Terminated)
	f.wantCase(leaf, Terminated)
}

func TestSubCaseFailReactivate(t *testing.T) {
	f := newForest(t)
	f.start(claimInput)
	sub := f.item("claim", "Assess").ID
	f.do(sub, MakeTransition{PlanItem: sub, Transition: Fault})
	f.want("claim", "Assess", Failed)
	if f.cases["claim"].Failures != 1 {
		t.Errorf("claim failures = %d", f.cases["claim"].Failures)
	}
	f.do("claim", MakeTransition{PlanItem: sub, Transition: Reactivate})
	f.want("claim", "Assess", Active)
	f.wantCase(sub, Active)
	// And it still completes with its output afterwards.
	leaf := f.item(sub, "Inspect").ID
	f.do(leaf, CompleteHumanTask{PlanItemID: f.item(leaf, "Look at item").ID, Output: map[string]any{"Report": map[string]any{"inspector": "ian"}}})
	f.do(sub, CompleteHumanTask{PlanItemID: f.item(sub, "Decide").ID, Output: map[string]any{"Report": map[string]any{"verdict": "no"}}})
	f.wantCase("claim", Completed)
}

func TestSubCaseThatCannotStartFailsTaskAndRetries(t *testing.T) {
	f := newForest(t)
	f.failStart = "assess.case"
	f.start(claimInput)
	assess := f.item("claim", "Assess")
	if assess.State != Failed || assess.SubCaseID != "" {
		t.Fatalf("Assess is %s with sub case %q", assess.State, assess.SubCaseID)
	}
	f.failStart = ""
	f.do("claim", MakeTransition{PlanItem: assess.ID, Transition: Reactivate})
	f.want("claim", "Assess", Active)
	if f.cases[assess.ID] == nil {
		t.Fatal("reactivating the task did not start its sub case")
	}
}

func TestSubCaseOutputThatDoesNotFitFailsTask(t *testing.T) {
	f := newForest(t)
	f.start(claimInput)
	sub := f.item("claim", "Assess").ID
	f.do("claim", SubCaseChanged{TaskID: sub, State: Completed, Output: map[string]any{"Report": map[string]any{"verdict": map[string]any{"a": 1}}}})
	f.want("claim", "Assess", Failed)
}

func TestReportsThatChangeNothing(t *testing.T) {
	f := newForest(t)
	f.start(claimInput)
	notify := f.item("claim", "Notify").ID
	// A non-blocking task ignores its sub case's completion.
	err := f.try("claim", SubCaseChanged{TaskID: notify, State: Completed})
	if e := asError(t, err); e.Kind != ErrNoEffect {
		t.Errorf("completion of a non-blocking task's sub case: %v", e)
	}
	if e := asError(t, f.try("claim", SubCaseChanged{TaskID: "nope", State: Completed})); e.Kind != ErrNotFound {
		t.Errorf("report for an unknown task: %v", e)
	}
	if e := asError(t, f.try(notify, CaseTaskChanged{Transition: Complete})); e.Kind != ErrInvalid {
		t.Errorf("order to complete: %v", e)
	}
}

func TestSubCaseDepthIsBounded(t *testing.T) {
	f := newForest(t)
	c, _, err := StartWithEffects(f.defs.Case("assess.case"), StartCase{ID: "deep", Tenant: "world", ParentID: "p", RootID: "r",
		Depth: MaxCaseDepth, Team: Team{Members: []Member{claimOwner}}}, alice, f.env())
	if err == nil {
		t.Fatalf("a case at depth %d started a sub case: %+v", MaxCaseDepth, c.PlanItems)
	}
	if e := asError(t, err); e.Kind != ErrInvalid || !e.TooDeep || !strings.Contains(e.Msg, "nest at most") {
		t.Errorf("error = %v", e)
	}
}

// A consent group in the parent's team joins the sub case with its
// mappings, each keeping only the case roles the sub case defines.
func TestDerivedTeamKeepsGroupMappings(t *testing.T) {
	f := newForest(t)
	parent := Team{Members: []Member{claimOwner, NewGroupMember("inspectors", []GroupMapping{
		{GroupRole: "clerk", CaseRoles: []string{"Handler", "Manager"}},
		{GroupRole: "chief", IsOwner: true, CaseRoles: []string{"Manager"}},
	})}}
	got := jsonOf(t, derivedTeam(parent, f.defs.Case("assess.case")).Members[1])
	want := `{"id":"inspectors","type":"group","caseRoles":["Handler"],"isOwner":true,"mappings":[` +
		`{"groupRole":"clerk","isOwner":false,"caseRoles":["Handler"]},{"groupRole":"chief","isOwner":true,"caseRoles":[]}]}`
	if got != want {
		t.Errorf("derived group member =\n %s\nwant\n %s", got, want)
	}
	if len(parent.Members[1].Mappings[0].CaseRoles) != 2 {
		t.Error("deriving the sub case's team changed the parent's")
	}
}
