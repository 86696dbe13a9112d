package cmmn

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// dump renders the resolved graph as text: every element with its
// resolved references, so that a golden file shows what the engine will
// see, and two parses can be compared.
func dump(d *Definitions) string {
	var w dumper
	for _, t := range d.CaseFileItemDefinitions() {
		w.line(0, "type %s %q %s", t.ID(), t.Name(), t.DefinitionType())
		for _, p := range t.Properties() {
			w.line(1, "property %q %s businessIdentifier=%v", p.Name(), p.Type(), p.IsBusinessIdentifier())
		}
	}
	for _, p := range d.Processes() {
		w.line(0, "process %s %q class=%q impl=%v", p.ID(), p.Name(), p.Class(), p.Implementation() != nil)
		w.params(1, "input", p.Inputs())
		w.params(1, "output", p.Outputs())
	}
	for _, c := range d.Cases() {
		w.caseDef(c)
	}
	return w.String()
}

type dumper struct{ strings.Builder }

func (w *dumper) line(depth int, format string, args ...any) {
	w.WriteString(strings.Repeat("  ", depth))
	fmt.Fprintf(w, format, args...)
	w.WriteString("\n")
}

// id returns x's id, or "-" for a nil pointer.
func id[T interface {
	comparable
	ID() string
}](x T) string {
	var zero T
	if x == zero {
		return "-"
	}
	return x.ID()
}

func (w *dumper) params(depth int, kind string, ps []*Parameter) {
	for _, p := range ps {
		b := "-"
		if p.Binding() != nil {
			b = p.Binding().Path()
		}
		w.line(depth, "%s %s %q binding=%s refinement=%q required=%v", kind, p.ID(), p.Name(), b, p.BindingRefinement(), p.Required())
	}
}

func (w *dumper) expr(depth int, label string, x *Expression) {
	if x == nil {
		return
	}
	ctx := "-"
	if x.Context() != nil {
		ctx = x.Context().Path()
	}
	w.line(depth, "%s [%s] %q context=%s compiled=%v", label, x.Language(), x.Body(), ctx, x.Compiled() != nil)
}

func (w *dumper) rule(depth int, label string, r *Rule) {
	if r == nil {
		return
	}
	w.line(depth, "%s %s %q", label, r.ID(), r.Name())
	w.expr(depth+1, "condition", r.Condition())
}

func (w *dumper) caseDef(c *Case) {
	w.line(0, "case %s %q language=%s doc=%q startModel=%v", c.ID(), c.Name(), c.ExpressionLanguage(), c.Documentation(), c.StartCaseModel() != "")
	for _, r := range c.Roles() {
		w.line(1, "role %s %q doc=%q", r.ID(), r.Name(), r.Documentation())
	}
	for _, f := range c.CaseFileItems() {
		var on []string
		for _, o := range f.Listeners() {
			on = append(on, o.Sentry().ID()+":"+string(o.Event()))
		}
		w.line(1, "file %s %s %s type=%s array=%v listeners=%v", f.Path(), f.ID(), f.Multiplicity(), id(f.Definition()), f.IsArray(), on)
	}
	w.params(1, "case input", c.Inputs())
	w.params(1, "case output", c.Outputs())
	w.item(1, c.Plan())
	for _, s := range c.Sentries() {
		var crit []string
		for _, cr := range s.Criteria() {
			crit = append(crit, fmt.Sprintf("%s(%s)", cr.Kind(), cr.PlanItem().ID()))
		}
		w.line(1, "sentry %s %q stage=%s criteria=%v", s.ID(), s.Name(), s.Stage().ID(), crit)
		for _, o := range s.PlanItemOnParts() {
			w.line(2, "on plan item %s %s exitCriterion=%s", o.Source().ID(), o.Event(), id(o.ExitCriterion()))
		}
		for _, o := range s.CaseFileItemOnParts() {
			w.line(2, "on file %s %s", o.Source().Path(), o.Event())
		}
		w.expr(2, "if", s.IfPart())
	}
}

func (w *dumper) item(depth int, p *PlanItem) {
	def := p.Definition()
	parent := "-"
	if p.Parent() != nil {
		parent = p.Parent().ID()
	}
	w.line(depth, "%s %s %q def=%s parent=%s discretionary=%v doc=%q", p.Type(), p.ID(), p.Name(), def.ID(), parent, p.IsDiscretionary(), p.Documentation())
	for _, cr := range [][]*Criterion{p.EntryCriteria(), p.ExitCriteria(), p.ReactivateCriteria(), p.SuspendCriteria(), p.ResumeCriteria()} {
		for _, c := range cr {
			w.line(depth+1, "%s %s sentry=%s", c.Kind(), c.ID(), id(c.Sentry()))
		}
	}
	w.rule(depth+1, "repetition", p.RepetitionRule())
	w.rule(depth+1, "required", p.RequiredRule())
	w.rule(depth+1, "manualActivation", p.ManualActivationRule())
	for _, r := range p.AuthorizedRoles() {
		w.line(depth+1, "authorized %s", r.Name())
	}
	for _, r := range p.ApplicabilityRules() {
		w.line(depth+1, "applicability %s", r.ID())
	}
	for _, o := range p.FourEyes() {
		w.line(depth+1, "fourEyes %s", o.ID())
	}
	for _, o := range p.RendezVous() {
		w.line(depth+1, "rendezVous %s", o.ID())
	}
	for _, o := range p.Listeners() {
		w.line(depth+1, "heard by %s:%s", o.Sentry().ID(), o.Event())
	}
	w.definition(depth+1, def, p)
}

func (w *dumper) definition(depth int, def PlanItemDefinition, p *PlanItem) {
	switch d := def.(type) {
	case *Stage:
		w.line(depth, "stage autoComplete=%v sentries=%d", d.AutoComplete(), len(d.Sentries()))
		for _, it := range d.Items() {
			w.item(depth+1, it)
		}
		w.table(depth+1, d.PlanningTable())
	case *HumanTask:
		w.task(depth, &d.task)
		w.line(depth, "performer=%s", id(d.Performer()))
		wf := d.Workflow()
		w.line(depth, "workflow %q class=%q ref=%q doc=%q validator=%s taskModel=%d substitutions=%d", wf.Name(), wf.Class(), wf.HumanTaskRef(), wf.Documentation(), id(wf.Validator()), len(wf.TaskModel()), substitutions(wf))
		w.params(depth+1, "in", wf.Inputs())
		w.params(depth+1, "out", wf.Outputs())
		w.expr(depth+1, "assignment", wf.Assignment())
		w.expr(depth+1, "duedate", wf.DueDate())
		w.table(depth+1, d.PlanningTable())
	case *CaseTask:
		w.task(depth, &d.task)
		w.line(depth, "subCase=%s", d.SubCase().ID())
	case *ProcessTask:
		w.task(depth, &d.task)
		w.line(depth, "process=%s", d.Process().ID())
	case *UserEvent:
		for _, r := range d.AuthorizedRoles() {
			w.line(depth, "authorized %s", r.Name())
		}
	case *TimerEvent:
		dur, ok := d.Duration()
		src, on := d.StartTrigger()
		w.line(depth, "timer duration=%v(%v) trigger=%s:%s", dur, ok, id(src), on)
		w.expr(depth+1, "expression", d.TimerExpression())
	}
}

func substitutions(wf *Workflow) int {
	if wf.TaskModelTemplate() == nil {
		return 0
	}
	return len(wf.TaskModelTemplate().Exprs())
}

func (w *dumper) task(depth int, t *task) {
	w.line(depth, "blocking=%v", t.IsBlocking())
	w.params(depth+1, "input", t.Inputs())
	w.params(depth+1, "output", t.Outputs())
	for _, m := range append(t.InputMappings(), t.OutputMappings()...) {
		w.line(depth+1, "mapping %s %s -> %s", m.ID(), m.Source().ID(), m.Target().ID())
		w.expr(depth+2, "transformation", m.Transformation())
	}
}

func (w *dumper) table(depth int, t *PlanningTable) {
	if t == nil {
		return
	}
	var roles []string
	for _, r := range t.AuthorizedRoles() {
		roles = append(roles, r.Name())
	}
	w.line(depth, "planningTable %s roles=%v applicability=%d", t.ID(), roles, len(t.ApplicabilityRules()))
	for _, r := range t.Rules() {
		w.rule(depth+1, "rule", r)
	}
	for _, it := range t.Items() {
		w.item(depth+1, it)
	}
	for _, n := range t.Tables() {
		w.table(depth+1, n)
	}
}

// TestGolden compares the graph of the larger model with its golden
// description; run with -update after an intended change.
func TestGolden(t *testing.T) {
	for _, name := range []string{"claims", "sentries", "planning"} {
		t.Run(name, func(t *testing.T) {
			d := mustParseFile(t, name+".xml")
			got := dump(d)
			golden := filepath.Join(testdata, name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("graph of %s.xml differs from %s:\n%s", name, golden, diffLines(string(want), got))
			}
		})
	}
}

// diffLines shows the first differing lines, enough to see what changed.
func diffLines(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant: %s\ngot:  %s", i+1, w, g)
		}
	}
	return ""
}
