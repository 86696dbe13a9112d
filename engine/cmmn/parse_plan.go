package cmmn

import (
	"strings"

	"github.com/casegraph/casegraph/engine/expr"
)

// casePlan reads the casePlanModel: a stage, used by the synthetic plan
// item that stands for the case plan at run time.
func (b *builder) casePlan(c *Case, n *Node) {
	s := &Stage{definitionBase: definitionBase{element: elem(n), c: c, typ: TypeCasePlan}}
	s.autoComplete = boolAttr(n, "autoComplete", false)
	if s.name == "" {
		if n.Attr("id") != "" || len(n.children) > 0 {
			// A case without a casePlanModel has its own message.
			b.casef(c, "The CasePlan with id %s must have a name", s.id)
		}
		s.name = c.name
	}
	b.add(c, s.id, s)
	pi := &PlanItem{element: s.element, c: c, definition: s}
	s.usedBy = []*PlanItem{pi}
	c.plan = pi
	for _, cn := range n.children {
		if cn.name == "exitCriterion" {
			pi.exit = append(pi.exit, b.criterion(c, cn, ExitCriterion, pi))
		}
	}
	for _, ref := range refList(n.Attr("exitCriteriaRefs")) {
		pi.exit = append(pi.exit, &Criterion{kind: ExitCriterion, sentryRef: ref, item: pi})
	}
	b.fillStage(c, n, s)
}

// fillStage reads the contents of a stage or the case plan model.
func (b *builder) fillStage(c *Case, n *Node, s *Stage) {
	for _, cn := range n.children {
		switch cn.name {
		case "planItem":
			s.items = append(s.items, b.planItem(c, cn, s, nil))
		case "sentry":
			s.sentries = append(s.sentries, b.sentry(c, cn, s))
		case "planningTable":
			if s.table != nil {
				b.casef(c, "%s has more than one planningTable", s.describe(s.kind()))
				continue
			}
			s.table = b.planningTable(c, cn, s, nil, nil)
		case "humanTask", "caseTask", "processTask", "stage", "milestone", "userEvent", "timerEvent":
			b.definition(c, cn)
		case "task", "decisionTask", "eventListener", "planFragment":
			b.casef(c, "%s: plain <%s> elements are not supported; use a humanTask, caseTask, processTask, userEvent or timerEvent",
				describe(cn.name, cn.Attr("id"), cn.Attr("name")), cn.name)
		}
	}
}

var definitionTypes = map[string]PlanItemType{
	"stage": TypeStage, "humanTask": TypeHumanTask, "caseTask": TypeCaseTask, "processTask": TypeProcessTask,
	"milestone": TypeMilestone, "userEvent": TypeUserEvent, "timerEvent": TypeTimerEvent,
}

// definition reads a plan item definition of any kind.
func (b *builder) definition(c *Case, n *Node) PlanItemDefinition {
	base := definitionBase{element: elem(n), c: c, typ: definitionTypes[n.name]}
	if base.name == "" {
		b.casef(c, "The %s with id %s must have a name", base.typ, base.id)
	}
	if dc := n.Child("defaultControl"); dc != nil {
		base.control = b.itemControl(c, dc, base.describe(n.name))
	}
	var def PlanItemDefinition
	switch n.name {
	case "stage":
		s := &Stage{definitionBase: base, autoComplete: boolAttr(n, "autoComplete", false)}
		def = s
		b.add(c, base.id, def)
		c.definitions = append(c.definitions, def)
		b.fillStage(c, n, s)
		return def
	case "humanTask":
		def = b.humanTask(c, n, base)
	case "caseTask":
		t := &CaseTask{task: b.task(c, n, base), caseRef: n.Attr("caseRef")}
		def = t
	case "processTask":
		def = &ProcessTask{task: b.task(c, n, base), processRef: n.Attr("processRef")}
	case "milestone":
		def = &Milestone{definitionBase: base}
	case "userEvent":
		def = &UserEvent{definitionBase: base, roleRefs: refList(n.Attr("authorizedRoleRefs"))}
	case "timerEvent":
		def = b.timer(c, n, base)
	}
	b.add(c, base.id, def)
	c.definitions = append(c.definitions, def)
	return def
}

func (b *builder) timer(c *Case, n *Node, base definitionBase) *TimerEvent {
	t := &TimerEvent{definitionBase: base}
	label := base.describe("timerEvent")
	xn := n.Child("timerExpression")
	if xn == nil {
		b.casef(c, "%s has no timerExpression", label)
		t.timer = &Expression{owner: label, language: c.language}
	} else {
		body := xn.ChildText("body")
		if body == "" {
			body = strings.TrimSpace(xn.text)
		}
		// A literal ISO-8601 duration would also parse as a SpEL identifier
		// (PT2S); it is what the modeller means, so it is read as one.
		if d, err := expr.ParseDuration(body); err == nil {
			t.duration, t.hasDuration = d, true
			t.timer = &Expression{id: xn.Attr("id"), owner: label, language: c.language, body: body}
			c.expressions = append(c.expressions, t.timer)
		} else {
			t.timer = b.expression(c, xn, "timerExpression of "+label)
		}
	}
	if tr := n.Child("planItemStartTrigger"); tr != nil {
		t.triggerRef = tr.Attr("sourceRef")
		t.triggerOn = Transition(tr.ChildText("standardEvent"))
	}
	return t
}

// planItem reads a plan item or, with a table, a discretionary item.
func (b *builder) planItem(c *Case, n *Node, parent *Stage, table *PlanningTable) *PlanItem {
	p := &PlanItem{element: elem(n), c: c, definitionRef: n.Attr("definitionRef"), parent: parent, table: table}
	b.add(c, p.id, p)
	c.planItems = append(c.planItems, p)
	if p.id != "" && c.planItemByID[p.id] == nil {
		c.planItemByID[p.id] = p
	}
	for _, cn := range n.children {
		switch cn.name {
		case "entryCriterion":
			p.entry = append(p.entry, b.criterion(c, cn, EntryCriterion, p))
		case "exitCriterion":
			p.exit = append(p.exit, b.criterion(c, cn, ExitCriterion, p))
		case "itemControl":
			p.control = b.itemControl(c, cn, p.describe())
		}
	}
	// CMMN 1.0 referred to sentries from attributes.
	for _, ref := range refList(n.Attr("entryCriteriaRefs")) {
		p.entry = append(p.entry, &Criterion{kind: EntryCriterion, sentryRef: ref, item: p})
	}
	for _, ref := range refList(n.Attr("exitCriteriaRefs")) {
		p.exit = append(p.exit, &Criterion{kind: ExitCriterion, sentryRef: ref, item: p})
	}
	for _, cn := range extensions(n, "reactivateCriterion") {
		p.reactivate = append(p.reactivate, b.criterion(c, cn, ReactivateCriterion, p))
	}
	for _, cn := range extensions(n, "suspendCriterion") {
		p.suspend = append(p.suspend, b.criterion(c, cn, SuspendCriterion, p))
	}
	for _, cn := range extensions(n, "resumeCriterion") {
		p.resume = append(p.resume, b.criterion(c, cn, ResumeCriterion, p))
	}
	for _, cn := range extensions(n, "four_eyes") {
		p.fourEyesRefs = append(p.fourEyesRefs, taskRefs(cn)...)
	}
	for _, cn := range extensions(n, "rendez_vous") {
		p.rvRefs = append(p.rvRefs, taskRefs(cn)...)
	}
	p.roleRefs = refList(n.Attr("authorizedRoleRefs"))
	p.ruleRefs = refList(n.Attr("applicabilityRuleRefs"))
	return p
}

func taskRefs(n *Node) []string {
	var refs []string
	for _, t := range n.children {
		if t.name == "task" {
			refs = append(refs, t.Attr("taskRef"))
		}
	}
	return refs
}

func (b *builder) criterion(c *Case, n *Node, kind CriterionKind, item *PlanItem) *Criterion {
	cr := &Criterion{element: elem(n), kind: kind, sentryRef: n.Attr("sentryRef"), item: item}
	b.add(c, cr.id, cr)
	return cr
}

func (b *builder) sentry(c *Case, n *Node, stage *Stage) *Sentry {
	s := &Sentry{element: elem(n), stage: stage}
	b.add(c, s.id, s)
	c.sentries = append(c.sentries, s)
	for _, cn := range n.children {
		switch cn.name {
		case "planItemOnPart":
			ref := cn.Attr("exitCriterionRef")
			if ref == "" {
				ref = cn.Attr("sentryRef") // CMMN 1.0 spelling
			}
			s.planOnParts = append(s.planOnParts, &PlanItemOnPart{
				element: elem(cn), sentry: s, sourceRef: cn.Attr("sourceRef"),
				event: Transition(cn.ChildText("standardEvent")), exitCriterionRef: ref,
			})
		case "caseFileItemOnPart":
			s.fileOnParts = append(s.fileOnParts, &CaseFileItemOnPart{
				element: elem(cn), sentry: s, sourceRef: cn.Attr("sourceRef"),
				event: CaseFileTransition(cn.ChildText("standardEvent")),
			})
		case "ifPart":
			if s.ifPart != nil {
				b.casef(c, "%s has more than one ifPart", s.describe("sentry"))
				continue
			}
			cond := cn.Child("condition")
			if cond == nil {
				b.casef(c, "%s has an ifPart without condition", s.describe("sentry"))
				continue
			}
			s.ifPart = b.expression(c, cond, "ifPart of "+s.describe("sentry"))
			s.ifPart.contextRef = cn.Attr("contextRef")
		}
	}
	return s
}

// planningTable reads a table of a stage or a human task, with its nested
// tables, discretionary items and applicability rules.
func (b *builder) planningTable(c *Case, n *Node, stage *Stage, ht *HumanTask, parent *PlanningTable) *PlanningTable {
	t := &PlanningTable{
		element: elem(n), stage: stage, humanTask: ht, parent: parent,
		roleRefs: refList(n.Attr("authorizedRoleRefs")), ruleRefs: refList(n.Attr("applicabilityRuleRefs")),
	}
	b.add(c, t.id, t)
	c.tables = append(c.tables, t)
	for _, cn := range n.children {
		switch cn.name {
		case "discretionaryItem":
			t.items = append(t.items, b.planItem(c, cn, stage, t))
		case "planningTable":
			t.tables = append(t.tables, b.planningTable(c, cn, stage, ht, t))
		case "applicabilityRule":
			r := b.rule(c, cn, t.describe("planningTable"))
			t.rules = append(t.rules, r)
			b.add(c, r.id, r)
		}
	}
	return t
}
