package cmmn

import "strings"

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
		label := p.describe()
		if p.id == "" {
			b.casef(c, "%s has no id", label)
		}
		if p.name == "" {
			b.casef(c, "%s has no name, and neither has its definition", label)
		}
		for _, o := range append(p.FourEyes(), p.RendezVous()...) {
			if p.Type() != TypeHumanTask || o.Type() != TypeHumanTask {
				b.casef(c, "%s: four_eyes and rendez_vous may only relate human tasks, and %s is a %s", label,
					o.describe(), kindOf(o.Type()))
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
func (b *builder) recursion(d *Definitions) {
	a := &autoStart{memo: map[*PlanItem]int{}}
	type edge struct {
		task *PlanItem
		to   *Case
	}
	edges := map[*Case][]edge{}
	for _, c := range d.cases {
		for _, p := range c.planItems {
			ct, ok := p.definition.(*CaseTask)
			if ok && ct.subCase != nil && a.item(p) {
				edges[c] = append(edges[c], edge{p, ct.subCase})
			}
		}
	}
	// path finds a chain of automatic starts from one case to another.
	path := func(from, to *Case) []*Case {
		prev := map[*Case]*Case{from: nil}
		queue := []*Case{from}
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			if x == to {
				var chain []*Case
				for ; x != nil; x = prev[x] {
					chain = append([]*Case{x}, chain...)
				}
				return chain
			}
			for _, e := range edges[x] {
				if _, seen := prev[e.to]; !seen {
					prev[e.to] = x
					queue = append(queue, e.to)
				}
			}
		}
		return nil
	}
	for _, c := range d.cases {
		for _, e := range edges[c] {
			back := path(e.to, c)
			if back == nil {
				continue
			}
			ids := []string{c.id}
			for _, x := range back {
				ids = append(ids, x.id)
			}
			chain := strings.Join(ids, " → ")
			if e.to == c {
				b.casef(c, "%s is a case task that starts its own case again as soon as it can, without waiting for a user (%s); such a recursive definition would start sub cases without end",
					e.task.describe(), chain)
			} else {
				b.casef(c, "%s is a case task that starts case %q, which starts this case again without waiting for a user (%s); such a recursive definition would start sub cases without end",
					e.task.describe(), e.to.name, chain)
			}
		}
	}
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
