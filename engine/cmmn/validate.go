package cmmn

import (
	"fmt"
	"slices"
	"strings"
)

// validate checks what resolution cannot: required names and ids, the
// shape of four-eyes references, stages that contain themselves and cases
// that start themselves.
func (b *builder) validate(d *Definitions) {
	for _, c := range d.cases {
		b.validateCase(c)
	}
	b.recursion(d)
}

func (b *builder) validateCase(c *Case) {
	if c.id == "" {
		b.problemf("%s has no id", describe("case", "", c.name))
	}
	for _, p := range c.planItems {
		if p.id == "" {
			b.casef(c, "%s has no id", p.describe())
		}
		if p.name == "" {
			what := "plan item"
			if p.IsDiscretionary() {
				what = "discretionary item"
			}
			b.casef(c, "The %s with id %s must have a name", what, p.id)
		}
		if len(p.fourEyes)+len(p.rendezVous) == 0 {
			continue
		}
		if p.Type() != TypeHumanTask {
			b.casef(c, "%s is a %s; four_eyes and rendez_vous apply to human tasks only", p.describe(), kindOf(p.Type()))
			continue
		}
		for _, o := range append(p.FourEyes(), p.RendezVous()...) {
			if o.Type() != TypeHumanTask {
				b.casef(c, "%s: four_eyes and rendez_vous may only refer to human tasks, and %s is a %s", p.describe(), o.describe(), kindOf(o.Type()))
			}
		}
	}
	for _, def := range c.definitions {
		if def.ID() == "" {
			b.casef(c, "%s has no id", def.base().describe(def.base().kind()))
		}
	}
	for _, s := range c.sentries {
		if s.id == "" {
			b.casef(c, "a sentry in %s has no id", s.stage.describe(s.stage.kind()))
		}
	}
	for _, f := range c.fileItems {
		if f.id == "" {
			b.casef(c, "%s has no id", f.describe("caseFileItem"))
		}
	}
	b.stageCycles(c)
}

// stageCycles reports a stage that contains itself, directly or through
// nested stages: instantiating it would never end.
func (b *builder) stageCycles(c *Case) {
	const (
		white = iota
		grey
		black
	)
	color := map[*Stage]int{}
	var visit func(s *Stage)
	visit = func(s *Stage) {
		color[s] = grey
		for _, p := range s.items {
			inner := p.Stage()
			if inner == nil {
				continue
			}
			switch color[inner] {
			case grey:
				b.casef(c, "%s contains itself through %s; stages cannot be nested recursively",
					inner.describe(inner.kind()), p.describe())
			case white:
				visit(inner)
			}
		}
		color[s] = black
	}
	visit(c.PlanModel())
	for _, def := range c.definitions {
		if s, ok := def.(*Stage); ok && color[s] == white {
			visit(s)
		}
	}
}

// recursion reports case tasks through which a case starts itself, directly
// or through other cases of the document, without anything a user has to
// do in between. The reference engine rejects these (its issue #340): such
// a case spawns sub cases without end. A recursion that waits for a human
// task, a user event or planning is a legitimate model and is accepted.
//
// Cases are the nodes of a graph whose edges are automatic case tasks; an
// edge is on a cycle when both ends are in one strongly connected component.
func (b *builder) recursion(d *Definitions) {
	a := &autoStart{memo: map[*PlanItem]int{}}
	g := caseGraph{edges: map[*Case][]caseEdge{}}
	for _, c := range d.cases {
		for _, p := range c.planItems {
			ct, ok := p.definition.(*CaseTask)
			if ok && ct.subCase != nil && a.item(p) {
				g.edges[c] = append(g.edges[c], caseEdge{p, ct.subCase})
			}
		}
	}
	comp := g.components(d.cases)
	detailed := 0
	for _, c := range d.cases {
		for _, e := range g.edges[c] {
			if comp[e.to] != comp[c] {
				continue
			}
			// Spelling out the chain costs a search; a few examples suffice.
			chain := ""
			if detailed < 5 {
				detailed++
				chain = " (" + chainText(append([]*Case{c}, g.path(e.to, c)...)) + ")"
			}
			if e.to == c {
				b.casef(c, "CaseTask '%s' leads to infinite recursion, because\n %s", e.task.name, strings.Join(a.links(e.task), "\n and "))
			} else {
				b.casef(c, "%s is a case task that starts case %q, which starts this case again without waiting for a user%s; such a recursive definition would start sub cases without end",
					e.task.describe(), e.to.name, chain)
			}
		}
	}
}

// chainText shows a chain of cases by id, shortened in the middle when long.
func chainText(chain []*Case) string {
	var ids []string
	for i, x := range chain {
		if len(chain) > 8 && i == 4 {
			ids = append(ids, fmt.Sprintf("… %d more …", len(chain)-6))
		}
		if len(chain) <= 8 || i < 4 || i >= len(chain)-2 {
			ids = append(ids, x.id)
		}
	}
	return strings.Join(ids, " → ")
}

type caseEdge struct {
	task *PlanItem
	to   *Case
}

type caseGraph struct {
	edges map[*Case][]caseEdge
}

// components numbers the strongly connected components (Tarjan).
func (g caseGraph) components(cases []*Case) map[*Case]int {
	index, low := map[*Case]int{}, map[*Case]int{}
	onStack := map[*Case]bool{}
	comp := map[*Case]int{}
	var stack []*Case
	next, n := 0, 0
	var visit func(v *Case)
	visit = func(v *Case) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, e := range g.edges[v] {
			if _, seen := index[e.to]; !seen {
				visit(e.to)
				low[v] = min(low[v], low[e.to])
			} else if onStack[e.to] {
				low[v] = min(low[v], index[e.to])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = n
				if w == v {
					break
				}
			}
			n++
		}
	}
	for _, c := range cases {
		if _, seen := index[c]; !seen {
			visit(c)
		}
	}
	return comp
}

// path returns the cases on a shortest chain of automatic starts from one
// case to another, both included.
func (g caseGraph) path(from, to *Case) []*Case {
	prev := map[*Case]*Case{from: nil}
	queue := []*Case{from}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if x == to {
			var chain []*Case
			for ; x != nil; x = prev[x] {
				chain = append(chain, x)
			}
			slices.Reverse(chain)
			return chain
		}
		for _, e := range g.edges[x] {
			if _, seen := prev[e.to]; !seen {
				prev[e.to] = x
				queue = append(queue, e.to)
			}
		}
	}
	return nil
}

// autoStart decides whether a plan item can become active without a user
// doing anything: no planning, no manual activation, no human task or user
// event to wait for. It errs on the side of "yes" where the outcome depends
// on data (if-parts, case file events, conditional rules).
type autoStart struct {
	memo map[*PlanItem]int
}

const (
	unknown = iota
	visiting
	yes
	no
)

func (a *autoStart) item(p *PlanItem) bool {
	switch a.memo[p] {
	case visiting:
		return false // waiting on itself: it never starts this way
	case yes:
		return true
	case no:
		return false
	}
	a.memo[p] = visiting
	ok := a.compute(p)
	a.memo[p] = no
	if ok {
		a.memo[p] = yes
	}
	return ok
}

// links explains, the reference engine's way, why p starts as soon as its
// case does: a link per item from p up through its stages, each with its
// reason, ending with the case plan.
func (a *autoStart) links(p *PlanItem) []string {
	var out []string
	for x := p; x != nil; {
		if x == x.c.plan {
			return append(out, x.name+" always starts immediately")
		}
		out = append(out, fmt.Sprintf("%s['%s'] %s", x.Type(), x.name, a.reason(x)))
		var next *PlanItem
		if x.parent != nil {
			for _, u := range x.parent.usedBy {
				if a.item(u) {
					next = u
					break
				}
			}
		}
		x = next
	}
	return out
}

// reason says why an item that starts without a user does so.
func (a *autoStart) reason(p *PlanItem) string {
	if len(p.entry) == 0 {
		return "does not have entry criteria"
	}
	for _, cr := range p.entry {
		s := cr.sentry
		if s == nil || !a.sentry(s) {
			continue
		}
		if len(s.fileOnParts) > 0 {
			return "depends on a case file item that may get created immediately through a case input parameter"
		}
		for _, o := range s.planOnParts {
			switch o.source.Type() {
			case TypeMilestone:
				return "depends on a milestone that occurs immediately"
			case TypeTimerEvent:
				return "depends on a timer that will not be canceled"
			default:
				return fmt.Sprintf("depends on %s['%s'] that starts immediately", o.source.Type(), o.source.name)
			}
		}
		return "has an entry criterion with only an if part expression"
	}
	return "does not have entry criteria"
}

func (a *autoStart) compute(p *PlanItem) bool {
	if p == p.c.plan {
		return true
	}
	if p.IsDiscretionary() {
		return false
	}
	if r := p.rules.manualActivation; r != nil && r.condition == nil {
		return false
	}
	if !a.stage(p.parent) {
		return false
	}
	if len(p.entry) == 0 {
		return true
	}
	for _, cr := range p.entry {
		if cr.sentry != nil && a.sentry(cr.sentry) {
			return true
		}
	}
	return false
}

func (a *autoStart) stage(s *Stage) bool {
	if s == nil {
		return false
	}
	for _, u := range s.usedBy {
		if a.item(u) {
			return true
		}
	}
	return false
}

// sentry: every plan item on-part must fire without a user; case file
// on-parts and the if-part depend on data only.
func (a *autoStart) sentry(s *Sentry) bool {
	for _, o := range s.planOnParts {
		if o.source == nil || !a.event(o.source, o.event) {
			return false
		}
	}
	return true
}

func (a *autoStart) event(p *PlanItem, ev Transition) bool {
	switch t := p.Type(); ev {
	case Create:
		return !p.IsDiscretionary() && (p == p.c.plan || a.stage(p.parent))
	case Start, Occur:
		return t != TypeUserEvent && a.item(p)
	case Complete, Fault:
		return t != TypeUserEvent && t != TypeHumanTask && a.item(p)
	}
	return false
}
