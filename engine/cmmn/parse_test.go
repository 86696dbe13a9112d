package cmmn

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/casegraph/casegraph/engine/expr"
)

// testdata holds the repository's own models.
const testdata = "../../testdata/cmmn"

func mustParseFile(t testing.TB, name string) *Definitions {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return d
}

func problemsOf(t *testing.T, err error) []string {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v (%T), want *ValidationError", err, err)
	}
	return ve.Problems
}

// check compares a value and reports the expression that produced it.
func check[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func names[T interface{ Name() string }](list []T) []string {
	out := []string{}
	for _, x := range list {
		out = append(out, x.Name())
	}
	return out
}

func ids[T interface{ ID() string }](list []T) []string {
	out := []string{}
	for _, x := range list {
		out = append(out, x.ID())
	}
	return out
}

func checkList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

var clock = time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)

func TestParseModels(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, d *Definitions)
	}{
		{"minimal.xml", checkMinimal},
		{"casefile.xml", checkCaseFile},
		{"sentries.xml", checkSentries},
		{"itemcontrol.xml", checkItemControl},
		{"humantask.xml", checkHumanTask},
		{"planning.xml", checkPlanning},
		{"events.xml", checkEvents},
		{"subcase.xml", checkSubCase},
		{"roles_legacy.xml", checkLegacy},
		{"claims.xml", checkClaims},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			tt.check(t, mustParseFile(t, tt.file))
		})
	}
}

func checkMinimal(t *testing.T, d *Definitions) {
	c := d.Main()
	check(t, "Main().ID()", c.ID(), "minimal.case")
	check(t, "Case(id)", d.Case("minimal.case"), c)
	check(t, "Case(unknown)", d.Case("nope"), (*Case)(nil))
	check(t, "Name()", c.Name(), "Minimal")
	check(t, "Documentation()", c.Documentation(), "A case with a single task")
	check(t, "ExpressionLanguage()", c.ExpressionLanguage(), "spel")
	check(t, "Plan().Type()", c.Plan().Type(), TypeCasePlan)
	check(t, "Plan().Name()", c.Plan().Name(), "Minimal") // falls back to the case name
	check(t, "Plan().Definition()", c.Plan().Definition(), PlanItemDefinition(c.PlanModel()))
	check(t, "PlanModel().AutoComplete()", c.PlanModel().AutoComplete(), true)
	check(t, "PlanModel().IsCasePlan()", c.PlanModel().IsCasePlan(), true)
	items := c.PlanModel().Items()
	if len(items) != 1 {
		t.Fatalf("Items() = %d, want 1", len(items))
	}
	review := items[0]
	check(t, "item Type()", review.Type(), TypeHumanTask)
	check(t, "item Name()", review.Name(), "Review") // the plan item's own name wins
	check(t, "item Parent()", review.Parent(), c.PlanModel())
	check(t, "item by id", c.PlanItem("pi_review"), review)
	check(t, "item by name", c.PlanModel().Item("Review"), review)
	ht := review.Definition().(*HumanTask)
	check(t, "definition Name()", ht.Name(), "Review task")
	check(t, "IsBlocking()", ht.IsBlocking(), true)
	check(t, "Performer()", ht.Performer(), c.Role("Clerk"))
	check(t, "Role ID", c.Role("Clerk").ID(), "role_clerk")
	check(t, "UsedBy()", ht.UsedBy()[0], review)
	checkList(t, "Roles()", names(c.Roles()), []string{"Clerk"})
	check(t, "Workflow() is empty, not nil", ht.Workflow() != nil && ht.Workflow().TaskModelTemplate() == nil, true)
}

func checkCaseFile(t *testing.T, d *Definitions) {
	c := d.Main()
	order := d.CaseFileItemDefinition("order.type")
	check(t, "DefinitionType()", order.DefinitionType(), "http://www.omg.org/spec/CMMN/DefinitionType/XSDElement")
	check(t, "default DefinitionType()", d.CaseFileItemDefinition("line.type").DefinitionType(), "http://www.omg.org/spec/CMMN/DefinitionType/Unspecified")
	var types []string
	for _, p := range order.Properties() {
		types = append(types, string(p.Type()))
	}
	checkList(t, "property types", types, []string{"string", "boolean", "integer", "float", "double", "decimal",
		"date", "time", "dateTime", "duration", "QName", "anyURI", "Unspecified", "Unspecified"})
	check(t, "IsBusinessIdentifier(Number)", order.Property("Number").IsBusinessIdentifier(), true)
	check(t, "IsBusinessIdentifier(Paid)", order.Property("Paid").IsBusinessIdentifier(), false)
	checkList(t, "BusinessIdentifiers()", names(order.BusinessIdentifiers()), []string{"Number"})

	checkList(t, "CaseFile()", names(c.CaseFile()), []string{"Order", "Free", "Default"})
	var paths []string
	for _, f := range c.CaseFileItems() {
		paths = append(paths, f.Path())
	}
	checkList(t, "CaseFileItems() paths", paths, []string{"Order", "Order/Lines", "Order/Lines/Notes", "Order/Invoice", "Free", "Default"})
	notes := c.CaseFileItem("Order/Lines/Notes")
	check(t, "Notes.Parent().Parent()", notes.Parent().Parent(), c.CaseFileItem("Order"))
	check(t, "Notes.Multiplicity()", notes.Multiplicity(), ZeroOrMore)
	check(t, "Lines.IsArray()", c.CaseFileItem("Order/Lines").IsArray(), true)
	check(t, "Lines.Multiplicity()", c.CaseFileItem("Order/Lines").Multiplicity(), OneOrMore)
	check(t, "Invoice.Multiplicity()", c.CaseFileItem("Order/Invoice").Multiplicity(), ZeroOrOne)
	check(t, "Invoice.IsArray()", c.CaseFileItem("Order/Invoice").IsArray(), false)
	check(t, "Default.Multiplicity()", c.CaseFileItem("Default").Multiplicity(), Unspecified)
	check(t, "Free.Definition()", c.CaseFileItem("Free").Definition(), (*CaseFileItemDefinition)(nil))
	check(t, "Order.Definition()", c.CaseFileItem("Order").Definition(), order)
	check(t, "Order.Child()", c.CaseFileItem("Order").Child("Invoice"), c.CaseFileItem("Order/Invoice"))
	check(t, "Order documentation", c.CaseFileItem("Order").Documentation(), "The order being handled")
	check(t, "Invoice description", c.CaseFileItem("Order/Invoice").Documentation(), "Older description attribute")
	check(t, "Order documentation format", c.CaseFileItem("Order").DocumentationFormat(), "text/html")
	check(t, "Invoice description format", c.CaseFileItem("Order/Invoice").DocumentationFormat(), "text/plain")
	check(t, "CaseFileItem(bad path)", c.CaseFileItem("Order/Nope"), (*CaseFileItem)(nil))

	checkList(t, "Inputs()", names(c.Inputs()), []string{"Order", "Lines"})
	in := c.Input("Order")
	check(t, "Input.Binding()", in.Binding(), c.CaseFileItem("Order"))
	check(t, "Input binding property", in.Binding().Definition().Property("Quantity").Type(), PropertyInteger)
	check(t, "Input(Lines).BindingRefinement()", c.Input("Lines").BindingRefinement(), RefineReplace)
	check(t, "Outputs()[0].Binding()", c.Outputs()[0].Binding(), c.CaseFileItem("Order/Invoice"))
	ht := c.PlanItem("pi_fill").Definition().(*HumanTask)
	check(t, "task input refinement", ht.Inputs()[1].BindingRefinement(), RefineIndexed)
	check(t, "task input default refinement", ht.Inputs()[0].BindingRefinement(), RefineDefault)
	check(t, "task output refinement", ht.Outputs()[0].BindingRefinement(), RefineAdd)
	check(t, "unknown refinement kept", ht.Outputs()[1].BindingRefinement(), BindingRefinement("get"))
}

func checkSentries(t *testing.T, d *Definitions) {
	c := d.Main()
	exits := c.Plan().ExitCriteria()
	if len(exits) != 1 {
		t.Fatalf("case plan exit criteria = %d, want 1", len(exits))
	}
	check(t, "plan exit sentry", exits[0].Sentry().ID(), "s_close")
	check(t, "plan exit Kind()", exits[0].Kind(), ExitCriterion)
	check(t, "plan exit PlanItem()", exits[0].PlanItem(), c.Plan())

	a, b, cc := c.PlanItem("pi_a"), c.PlanItem("pi_b"), c.PlanItem("pi_c")
	after := b.EntryCriteria()[0].Sentry()
	check(t, "B entry sentry", after.ID(), "s_after_a")
	check(t, "sentry Name()", after.Name(), "After A")
	check(t, "sentry Stage()", after.Stage(), c.PlanModel())
	check(t, "ifPart body", after.IfPart().Body(), "Request.Status == 'ok' && case.file.Request != null")
	check(t, "ifPart Context()", after.IfPart().Context(), c.CaseFileItem("Request/Status"))
	on := after.PlanItemOnParts()[0]
	check(t, "on-part Source()", on.Source(), a)
	check(t, "on-part Event()", on.Event(), Complete)
	check(t, "on-part Sentry()", on.Sentry(), after)
	checkList(t, "A listeners", ids(a.Listeners()), []string{"op_a_complete", "op_a_exit"})
	exited := c.PlanItem("pi_d").EntryCriteria()[0].Sentry().PlanItemOnParts()[0]
	check(t, "ExitCriterion()", exited.ExitCriterion(), a.ExitCriteria()[0])
	check(t, "B reactivate", b.ReactivateCriteria()[0].Sentry().ID(), "s_retry")
	check(t, "B reactivate name", b.ReactivateCriteria()[0].Name(), "Retry")
	check(t, "B suspend", b.SuspendCriteria()[0].Sentry().ID(), "s_file")
	check(t, "B resume", b.ResumeCriteria()[0].Kind(), ResumeCriterion)
	checkList(t, "C entry sentries (CMMN 1.0 attribute)", []string{cc.EntryCriteria()[0].Sentry().ID(), cc.EntryCriteria()[1].Sentry().ID()}, []string{"s_after_a", "s_file"})
	var crit []string
	for _, cr := range after.Criteria() {
		crit = append(crit, cr.PlanItem().ID())
	}
	checkList(t, "s_after_a Criteria()", crit, []string{"pi_b", "pi_c"})

	var events []string
	for _, o := range c.CaseFileItem("Request/Status").Listeners() {
		events = append(events, string(o.Event()))
	}
	checkList(t, "Status listeners", events, []string{"create", "update", "replace"})
	events = nil
	for _, o := range c.CaseFileItem("Request").Listeners() {
		events = append(events, string(o.Event()))
	}
	checkList(t, "Request listeners", events, []string{"delete", "addChild", "removeChild", "addReference", "removeReference"})
	check(t, "file on-part Source()", c.CaseFileItem("Request").Listeners()[0].Source(), c.CaseFileItem("Request"))
	check(t, "Sentries()", len(c.Sentries()), 6)
}

func checkItemControl(t *testing.T, d *Definitions) {
	c := d.Main()
	own, inherit, override := c.PlanItem("pi_own"), c.PlanItem("pi_inherit"), c.PlanItem("pi_override")
	check(t, "own repetition", own.RepetitionRule().Condition().Body(), "task.index < 3")
	check(t, "own required condition", own.RequiredRule().Condition(), (*Expression)(nil))
	check(t, "own manual activation", own.ManualActivationRule().Name(), "AskFirst")
	env := expr.Vars{"task": map[string]any{"index": 2}}
	if ok, err := own.RepetitionRule().Holds(env); !ok || err != nil {
		t.Errorf("own repetition Holds = %v, %v; want true", ok, err)
	}
	if ok, err := own.RequiredRule().Holds(nil); !ok || err != nil {
		t.Errorf("rule without condition Holds = %v, %v; want true", ok, err)
	}
	check(t, "inherited repetition", inherit.RepetitionRule().ID(), "rep_default")
	check(t, "inherited required", inherit.RequiredRule().ID(), "req_default")
	if ok, err := inherit.RequiredRule().Holds(nil); ok || err != nil {
		t.Errorf("inherited required Holds = %v, %v; want false", ok, err)
	}
	check(t, "inherited manual activation", inherit.ManualActivationRule(), (*Rule)(nil))
	if ok, err := inherit.ManualActivationRule().Holds(nil); ok || err != nil {
		t.Errorf("absent rule Holds = %v, %v; want false", ok, err)
	}
	check(t, "override replaces the default control: repetition", override.RepetitionRule(), (*Rule)(nil))
	check(t, "override replaces the default control: required", override.RequiredRule(), (*Rule)(nil))
	check(t, "override manual activation", override.ManualActivationRule().ID(), "man_override")
	check(t, "IsBlocking() false", own.Definition().(*HumanTask).IsBlocking(), false)

	outer := c.PlanModel().Item("Outer")
	check(t, "outer repetition", outer.RepetitionRule().Condition().Body(), "stage.index lt 5")
	inner := outer.Stage().Item("Inner")
	leaf := inner.Stage().Item("Leaf")
	check(t, "leaf Type()", leaf.Type(), TypeMilestone)
	check(t, "leaf Parent()", leaf.Parent(), inner.Stage())
	check(t, "inner Parent()", inner.Parent(), outer.Stage())
	check(t, "outer AutoComplete()", outer.Stage().AutoComplete(), true)
	check(t, "inner AutoComplete()", inner.Stage().AutoComplete(), false)
	check(t, "outer UsedBy()", outer.Stage().UsedBy()[0], outer)
	check(t, "PlanItemDefinitions()", len(c.PlanItemDefinitions()), 5)
}

func checkHumanTask(t *testing.T, d *Definitions) {
	c := d.Main()
	assess := c.PlanItem("pi_assess")
	ht := assess.Definition().(*HumanTask)
	check(t, "Performer()", ht.Performer().Name(), "Assessor")
	w := ht.Workflow()
	check(t, "workflow Name()", w.Name(), "AssessForm")
	check(t, "workflow Class()", w.Class(), "org.cafienne.cmmn.definition.task.WorkflowTaskDefinition")
	check(t, "HumanTaskRef()", w.HumanTaskRef(), "assess.humantask")
	check(t, "workflow Documentation()", w.Documentation(), "Form to assess a claim")
	checkList(t, "workflow Inputs()", names(w.Inputs()), []string{"Claim", "Title"})
	checkList(t, "workflow Outputs()", names(w.Outputs()), []string{"Decision"})
	check(t, "Validator()", w.Validator(), d.Process("p_validate"))
	check(t, "required output", ht.Outputs()[0].Required(), true)

	in := ht.InputMappings()
	if len(in) != 2 || len(ht.OutputMappings()) != 1 {
		t.Fatalf("mappings = %d in, %d out; want 2, 1", len(in), len(ht.OutputMappings()))
	}
	check(t, "input mapping Source()", in[0].Source(), ht.Inputs()[0])
	check(t, "input mapping Target()", in[0].Target(), w.Inputs()[0])
	check(t, "copy mapping Transformation()", in[0].Transformation(), (*Expression)(nil))
	out := ht.OutputMappings()[0]
	check(t, "output mapping Source()", out.Source(), w.Outputs()[0])
	check(t, "output mapping Target()", out.Target(), ht.Outputs()[0])

	env := expr.Vars{
		"now":      clock,
		"Claim":    map[string]any{"Claimant": "Ann", "Amount": 12.5, "Deadline": "2024-06-01"},
		"Decision": map[string]any{},
	}
	title, err := in[1].Transformation().Eval(env)
	if err != nil {
		t.Fatal(err)
	}
	env["Title"] = title
	if !reflect.DeepEqual(title, map[string]any{"title": "Ann asks 12.5", "type": "string"}) {
		t.Errorf("title transformation = %v", title)
	}
	decision, err := out.Transformation().Eval(env)
	if err != nil || !reflect.DeepEqual(decision, map[string]any{"Approved": false}) {
		t.Errorf("output transformation = %v, %v", decision, err)
	}
	form, err := w.TaskModelTemplate().Render(env)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "rendered task model", form, `{"schema": {"title": "Claim of Ann", "type": "object", "properties": {"Title": {"title":"Ann asks 12.5","type":"string"}}}}`)
	check(t, "TaskModel() unrendered", strings.Contains(w.TaskModel(), "${Claim.Claimant}"), true)
	who, err := w.Assignment().Eval(env)
	check(t, "Assignment()", who, any("Ann"))
	check(t, "Assignment error", err, nil)
	check(t, "Assignment().Context()", w.Assignment().Context(), c.CaseFileItem("Claim"))
	due, err := w.DueDate().Eval(env)
	check(t, "DueDate()", due, any(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)))
	check(t, "DueDate error", err, nil)

	approve := c.PlanItem("pi_approve").Definition().(*HumanTask)
	due, err = approve.Workflow().DueDate().Eval(env)
	check(t, "approve DueDate()", due, any(clock.Add(48*time.Hour)))
	check(t, "approve DueDate error", err, nil)
	check(t, "FourEyes()", assess.FourEyes()[0], c.PlanItem("pi_approve"))
	check(t, "RendezVous()", assess.RendezVous()[0], c.PlanItem("pi_report"))
	check(t, "mutual FourEyes()", c.PlanItem("pi_approve").FourEyes()[0], assess)
	check(t, "role documentation", c.Role("Manager").Documentation(), "Signs off decisions")
}

func checkPlanning(t *testing.T, d *Definitions) {
	c := d.Main()
	table := c.PlanModel().PlanningTable()
	checkList(t, "table Items()", ids(table.Items()), []string{"di_extra"})
	checkList(t, "table AllItems()", ids(table.AllItems()), []string{"di_extra", "di_deep"})
	checkList(t, "DiscretionaryItems()", ids(c.PlanModel().DiscretionaryItems()), []string{"di_extra", "di_deep"})
	checkList(t, "table AuthorizedRoles()", names(table.AuthorizedRoles()), []string{"Lead"})
	checkList(t, "table Rules()", ids(table.Rules()), []string{"rule_always", "rule_when_active"})
	check(t, "table Stage()", table.Stage(), c.PlanModel())
	nested := table.Tables()[0]
	check(t, "nested Parent()", nested.Parent(), table)
	checkList(t, "nested ApplicabilityRules()", ids(nested.ApplicabilityRules()), []string{"rule_always"})

	extra := c.PlanItem("di_extra")
	check(t, "IsDiscretionary()", extra.IsDiscretionary(), true)
	check(t, "PlanningTable()", extra.PlanningTable(), table)
	check(t, "discretionary Parent()", extra.Parent(), c.PlanModel())
	checkList(t, "AuthorizedRoles()", names(extra.AuthorizedRoles()), []string{"Lead", "Member"})
	checkList(t, "ApplicabilityRules()", ids(extra.ApplicabilityRules()), []string{"rule_always", "rule_when_active"})
	check(t, "discretionary repetition", extra.RepetitionRule() != nil, true)
	env := expr.Vars{"discretionaryItem": map[string]any{"name": "Other"}, "stage": map[string]any{"Work": map[string]any{"state": "Active"}}}
	if ok, err := extra.ApplicabilityRules()[1].Holds(env); !ok || err != nil {
		t.Errorf("applicability rule Holds = %v, %v; want true", ok, err)
	}
	work := c.PlanItem("pi_work").Definition().(*HumanTask)
	check(t, "task table HumanTask()", work.PlanningTable().HumanTask(), work)
	check(t, "task table Stage()", work.PlanningTable().Stage(), (*Stage)(nil))
	followUp := work.PlanningTable().Items()[0]
	check(t, "task-table item Parent()", followUp.Parent(), (*Stage)(nil))
	checkList(t, "UsedBy()", ids(work.UsedBy()), []string{"pi_work", "pi_step"})
	phase := c.PlanItem("pi_phase").Stage()
	sub := phase.DiscretionaryItems()[0]
	check(t, "discretionary stage Type()", sub.Type(), TypeStage)
	check(t, "discretionary stage Parent()", sub.Parent(), phase)
	check(t, "Stage.Items() excludes discretionary", len(phase.Items()), 1)
}

func checkEvents(t *testing.T, d *Definitions) {
	c := d.Main()
	goEvent := c.PlanItem("pi_go")
	check(t, "user event Type()", goEvent.Type(), TypeUserEvent)
	check(t, "IsEvent()", goEvent.Type().IsEvent(), true)
	checkList(t, "user event AuthorizedRoles()", names(goEvent.Definition().(*UserEvent).AuthorizedRoles()), []string{"Boss", "Deputy"})
	soon := c.PlanItem("pi_soon").Definition().(*TimerEvent)
	dur, ok := soon.Duration()
	check(t, "literal Duration()", dur, expr.Duration{Time: 2 * time.Second})
	check(t, "literal duration ok", ok, true)
	check(t, "TimerExpression().Body()", soon.TimerExpression().Body(), "PT2S")
	due, err := soon.Due(nil, clock)
	check(t, "Due(literal)", due, clock.Add(2*time.Second))
	check(t, "Due error", err, nil)
	src, on := soon.StartTrigger()
	check(t, "empty start trigger", src, (*PlanItem)(nil))
	check(t, "empty start trigger event", on, Transition(""))

	later := c.PlanItem("pi_later").Definition().(*TimerEvent)
	src, on = later.StartTrigger()
	check(t, "StartTrigger() source", src, goEvent)
	check(t, "StartTrigger() event", on, Occur)
	due, _ = later.Due(nil, clock)
	check(t, "Due(P1DT2H)", due, clock.Add(26*time.Hour))

	data := c.PlanItem("pi_data").Definition().(*TimerEvent)
	_, ok = data.Duration()
	check(t, "expression timer has no literal duration", ok, false)
	env := expr.Vars{"now": clock, "case": map[string]any{"file": map[string]any{"Delay": map[string]any{"value": "PT5M"}}}}
	due, err = data.Due(env, clock)
	check(t, "Due(expression)", due, clock.Add(5*time.Minute))
	check(t, "Due(expression) error", err, nil)
	env["case"] = map[string]any{"file": map[string]any{"Delay": map[string]any{"value": "soon"}}}
	if _, err := data.Due(env, clock); err == nil || !strings.Contains(err.Error(), "neither an ISO-8601 duration nor an instant") {
		t.Errorf("Due(bad value) error = %v", err)
	}
	now := c.PlanItem("pi_now").Definition().(*TimerEvent)
	due, err = now.Due(env, clock.Add(time.Hour))
	check(t, "Due(instant)", due, clock)
	check(t, "Due(instant) error", err, nil)
	check(t, "required milestone", c.PlanItem("pi_done").RequiredRule() != nil, true)
	check(t, "PlanModel().AutoComplete()", c.PlanModel().AutoComplete(), false)
}

func checkSubCase(t *testing.T, d *Definitions) {
	parent, child := d.Main(), d.Case("child.case")
	check(t, "Main()", parent.ID(), "parent.case")
	checkList(t, "Cases()", ids(d.Cases()), []string{"parent.case", "child.case"})
	ct := parent.PlanItem("pi_child").Definition().(*CaseTask)
	check(t, "SubCase()", ct.SubCase(), child)
	check(t, "case task input mapping target", ct.InputMappings()[0].Target(), child.Input("Data"))
	check(t, "case task output mapping source", ct.OutputMappings()[0].Source(), child.Outputs()[0])
	check(t, "case task output mapping target", ct.OutputMappings()[0].Target(), ct.Outputs()[0])
	res, err := ct.InputMappings()[0].Transformation().Eval(expr.Vars{"Data": map[string]any{"text": "hi"}})
	if err != nil || !reflect.DeepEqual(res, map[string]any{"text": "hi!"}) {
		t.Errorf("case task transformation = %v, %v", res, err)
	}
	pt := parent.PlanItem("pi_call").Definition().(*ProcessTask)
	check(t, "IsBlocking()", pt.IsBlocking(), false)
	p := pt.Process()
	check(t, "Process()", p, d.Process("proc_http"))
	check(t, "Process Class()", p.Class(), "org.cafienne.processtask.implementation.http.HTTPCallDefinition")
	check(t, "Implementation url", p.Implementation().ChildText("url"), "http://localhost:${port}/data")
	check(t, "Implementation attr", p.Implementation().Attr("async"), "false")
	check(t, "Implementation header", p.Implementation().Child("http-headers").Children()[0].Attr("name"), "Accept")
	check(t, "ImplementationType()", p.ImplementationType(), "http://www.omg.org/spec/CMMN/ProcessType/Unspecified")
	check(t, "process mapping target", pt.InputMappings()[0].Target(), p.Inputs()[0])
	json := pt.OutputMappings()[0].Transformation()
	check(t, "json Language()", json.Language(), "json")
	check(t, "json Compiled()", json.Compiled(), (*expr.Expr)(nil))
	if _, err := json.Eval(nil); err == nil {
		t.Error("Eval of a json transformation succeeded, want an error")
	}
	again := child.PlanItem("pi_again").Definition().(*CaseTask)
	check(t, "guarded recursion back to the parent", again.SubCase(), parent)
	check(t, "IsTask()", child.PlanItem("pi_again").Type().IsTask(), true)
}

func checkLegacy(t *testing.T, d *Definitions) {
	c := d.Main()
	checkList(t, "Roles()", names(c.Roles()), []string{"Owner", "Guest"})
	check(t, "role description", c.Role("Owner").Documentation(), "Runs the case")
	check(t, "case description", c.Documentation(), "Old style case")
	check(t, "plan exit from attribute", c.Plan().ExitCriteria()[0].Sentry().ID(), "s_stop")
	check(t, "item exit from attribute", c.PlanItem("pi_task").ExitCriteria()[0].Sentry().ID(), "s_stop")
	check(t, "performer", c.PlanItem("pi_task").Definition().(*HumanTask).Performer(), c.Role("Owner"))
	check(t, "plan name", c.Plan().Name(), "Legacy")
}

func checkClaims(t *testing.T, d *Definitions) {
	c := d.Main()
	check(t, "Name()", c.Name(), "Claims")
	check(t, "Documentation()", c.Documentation(), "Handle an insurance claim from intake to payment")
	checkList(t, "Roles()", names(c.Roles()), []string{"ClaimHandler", "Assessor", "Manager"})
	in := c.Input("Claim")
	var props []string
	for _, p := range in.Binding().Definition().Properties() {
		props = append(props, p.Name()+":"+string(p.Type()))
	}
	checkList(t, "input Claim properties", props, []string{"Number:string", "PolicyHolder:string", "Amount:double", "IncidentDate:date", "Description:string"})
	check(t, "StartCaseModel()", strings.HasPrefix(c.StartCaseModel(), `{"schema"`), true)
	check(t, "len(Expressions())", len(c.Expressions()), 19)
	for _, x := range c.Expressions() {
		if x.Compiled() == nil && x.Language() == "spel" {
			if _, ok := literalTimer(c, x); !ok {
				t.Errorf("expression %q is not compiled", x.Body())
			}
		}
	}
}

// literalTimer reports whether x is the expression of a timer that holds a
// literal duration, which needs no compilation.
func literalTimer(c *Case, x *Expression) (*TimerEvent, bool) {
	for _, def := range c.PlanItemDefinitions() {
		if tm, ok := def.(*TimerEvent); ok && tm.TimerExpression() == x {
			_, lit := tm.Duration()
			return tm, lit
		}
	}
	return nil, false
}

// TestAccessorsDoNotExposeStorage checks that appending to an accessor's
// result cannot change the definition another case is running on.
func TestAccessorsDoNotExposeStorage(t *testing.T) {
	d := mustParseFile(t, "claims.xml")
	items := d.Main().PlanItems()
	_ = append(items, &PlanItem{})
	if got := d.Main().PlanItems(); len(got) != len(items) || cap(got) != len(got) {
		t.Errorf("PlanItems() len %d cap %d after append, want %d", len(got), cap(got), len(items))
	}
}
