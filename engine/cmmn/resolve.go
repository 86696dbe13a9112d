package cmmn

import "slices"

// resolve turns every reference into a pointer, so that the engine never
// looks up an id while a case runs, and reports references that lead
// nowhere.
func (b *builder) resolve(d *Definitions) {
	for _, c := range d.cases {
		b.resolveCaseFile(c)
		b.resolvePlanItems(c)
		b.resolveSentries(c)
		for _, def := range c.definitions {
			b.resolveDefinition(c, def)
		}
		for _, t := range c.tables {
			if len(t.roleRefs)+len(t.ruleRefs) > 0 {
				label := t.describe("planningTable")
				t.roles = b.roles(c, t.roleRefs, label, "authorizedRoleRefs")
				t.applicability = b.applicabilityRules(c, t.ruleRefs, label)
			}
		}
		for _, x := range c.expressions {
			if x.contextRef != "" {
				x.context = b.fileItem(c, x.contextRef, x.owner, "contextRef")
			}
		}
	}
}

func (b *builder) resolveCaseFile(c *Case) {
	types := c.defs.typeByID
	for _, f := range c.fileItems {
		if f.definitionRef == "" {
			continue // the reference engine accepts untyped items
		}
		if f.definition = types[f.definitionRef]; f.definition == nil {
			b.casef(c, "%s: definitionRef %q does not refer to a caseFileItemDefinition", f.describe("caseFileItem"), f.definitionRef)
		}
	}
	for _, p := range c.inputs {
		b.bind(c, p)
	}
	for _, p := range c.outputs {
		b.bind(c, p)
	}
}

func (b *builder) bind(c *Case, p *Parameter) {
	if p.bindingRef != "" {
		f, ok := lookup[*CaseFileItem](c, p.bindingRef)
		if !ok {
			b.casef(c, "%s: bindingRef %q does not refer to a caseFileItem", p.label(), p.bindingRef)
		}
		p.binding = f
	}
}

func (b *builder) fileItem(c *Case, ref, owner, attr string) *CaseFileItem {
	f, ok := lookup[*CaseFileItem](c, ref)
	if !ok {
		b.casef(c, "%s: %s %q does not refer to a caseFileItem", owner, attr, ref)
	}
	return f
}

func (b *builder) resolvePlanItems(c *Case) {
	for _, p := range append([]*PlanItem{c.plan}, c.planItems...) {
		if p != c.plan {
			def, ok := lookup[PlanItemDefinition](c, p.definitionRef)
			if !ok || def.Type() == TypeCasePlan {
				if p.definitionRef == "" {
					b.casef(c, "The attribute definitionRef is missing from the element %s", p.xmlText())
				} else {
					b.casef(c, "Plan item %s refers to a definition named %s, but that definition is not found", p.name, p.definitionRef)
				}
				def = &Milestone{definitionBase: definitionBase{c: c, typ: TypeMilestone}} // keeps later checks quiet
			}
			p.definition = def
			def.base().usedBy = append(def.base().usedBy, p)
			if p.name == "" {
				p.name = def.Name()
			}
		}
		// A plan item's own itemControl replaces its definition's default.
		if p.control != nil {
			p.rules = *p.control
		} else if dc := p.definition.base().control; dc != nil {
			p.rules = *dc
		}
		for _, list := range [][]*Criterion{p.entry, p.exit, p.reactivate, p.suspend, p.resume} {
			for _, cr := range list {
				s, ok := lookup[*Sentry](c, cr.sentryRef)
				if !ok {
					b.casef(c, "%s of %s: sentryRef %q does not refer to a sentry", cr.describe(string(cr.kind)), p.describe(), cr.sentryRef)
					continue
				}
				cr.sentry = s
				s.criteria = append(s.criteria, cr)
			}
		}
		if len(p.roleRefs)+len(p.ruleRefs) > 0 {
			p.roles = b.roles(c, p.roleRefs, p.describe(), "authorizedRoleRefs")
			p.applicability = b.applicabilityRules(c, p.ruleRefs, p.describe())
		}
		p.fourEyes = b.humanTaskItems(c, p, p.fourEyesRefs, "four_eyes")
		p.rendezVous = b.humanTaskItems(c, p, p.rvRefs, "rendez_vous")
	}
}

func (b *builder) roles(c *Case, refs []string, owner, attr string) []*Role {
	var roles []*Role
	for _, ref := range refs {
		r, ok := lookup[*Role](c, ref)
		if !ok {
			b.casef(c, "%s: %s %q does not refer to a case role", owner, attr, ref)
			continue
		}
		roles = append(roles, r)
	}
	return roles
}

func (b *builder) applicabilityRules(c *Case, refs []string, owner string) []*Rule {
	var rules []*Rule
	for _, ref := range refs {
		r, ok := lookup[*Rule](c, ref)
		if !ok {
			b.casef(c, "%s: applicabilityRuleRefs %q does not refer to an applicabilityRule", owner, ref)
			continue
		}
		rules = append(rules, r)
	}
	return rules
}

// humanTaskItems resolves four-eyes and rendez-vous references, which name
// other human task plan items of the case.
func (b *builder) humanTaskItems(c *Case, p *PlanItem, refs []string, what string) []*PlanItem {
	var items []*PlanItem
	for _, ref := range refs {
		o, ok := lookup[*PlanItem](c, ref)
		switch {
		case !ok:
			b.casef(c, "%s: %s taskRef %q does not refer to a plan item", p.describe(), what, ref)
		case o == p:
			b.casef(c, "%s: %s refers to the task itself", p.describe(), what)
		default:
			items = append(items, o)
		}
	}
	return items
}

func (b *builder) resolveSentries(c *Case) {
	for _, s := range c.sentries {
		for _, o := range s.planOnParts {
			src, ok := lookup[*PlanItem](c, o.sourceRef)
			if !ok {
				kind := EntryCriterion
				if len(s.criteria) > 0 {
					kind = s.criteria[0].kind
				}
				b.casef(c, "A plan item with name '%s' is referenced from %s %s, but it does not exist in the case plan model", o.sourceRef, kind, s.id)
			} else {
				o.source = src
				src.listeners = append(src.listeners, o)
			}
			if o.exitCriterionRef != "" {
				cr, ok := lookup[*Criterion](c, o.exitCriterionRef)
				switch {
				case !ok || cr.kind != ExitCriterion:
					b.casef(c, "%s: exitCriterionRef %q does not refer to an exitCriterion", o.label(), o.exitCriterionRef)
				case o.source != nil && cr.item != o.source:
					b.casef(c, "%s: exitCriterionRef %q is an exit criterion of %s, not of the source %s", o.label(), o.exitCriterionRef, cr.item.describe(), o.source.describe())
				default:
					o.exitCriterion = cr
				}
			}
			b.checkEvent(c, o)
		}
		for _, o := range s.fileOnParts {
			if f, ok := lookup[*CaseFileItem](c, o.sourceRef); ok {
				o.source = f
				f.listeners = append(f.listeners, o)
			} else {
				b.casef(c, "%s: sourceRef %q does not refer to a caseFileItem", o.label(), o.sourceRef)
			}
			switch {
			case o.event == "":
				b.casef(c, "%s has no standardEvent", o.label())
			case !slices.Contains(fileTransitions, o.event):
				b.casef(c, "%s: standardEvent %q is not a case file item transition (create, update, replace, delete, addChild, removeChild, addReference, removeReference)", o.label(), o.event)
			}
		}
	}
}

// checkEvent reports an on-part whose event its source can never make, such
// as "occur" on a task: the sentry would wait forever.
func (b *builder) checkEvent(c *Case, o *PlanItemOnPart) {
	if o.event == "" {
		b.casef(c, "%s has no standardEvent", o.label())
		return
	}
	allowed := taskTransitions
	if o.source != nil {
		switch t := o.source.Type(); {
		case t.IsEvent():
			allowed = eventTransitions
		case t == TypeCasePlan:
			allowed = append(slices.Clip(taskTransitions), Close)
		}
	}
	if !slices.Contains(taskTransitions, o.event) && !slices.Contains(eventTransitions, o.event) {
		b.casef(c, "%s: standardEvent %q is not a plan item transition", o.label(), o.event)
		return
	}
	if o.source != nil && !slices.Contains(allowed, o.event) {
		b.casef(c, "%s: standardEvent %q never happens to %s, which is a %s", o.label(), o.event, o.source.describe(), kindOf(o.source.Type()))
	}
}

func (b *builder) resolveDefinition(c *Case, def PlanItemDefinition) {
	label := def.base().label // built only when a problem is reported
	switch d := def.(type) {
	case *HumanTask:
		b.bindTask(c, &d.task)
		if d.performerRef != "" {
			if r := b.roles(c, []string{d.performerRef}, label(), "performerRef"); len(r) == 1 {
				d.performer = r[0]
			}
		}
		w := d.workflow
		if w.validatorRef != "" {
			if w.validator = c.defs.processByID[w.validatorRef]; w.validator == nil {
				b.casef(c, "%s: validatorRef %q does not refer to a process", label(), w.validatorRef)
			}
		}
		b.mappings(c, &d.task, label, w.inputs, w.outputs, "the task's workflow implementation")
	case *CaseTask:
		b.bindTask(c, &d.task)
		if d.subCase = c.defs.caseByID[d.caseRef]; d.subCase == nil {
			b.casef(c, "%s: caseRef %q does not refer to a case in this document", label(), d.caseRef)
			return
		}
		b.mappings(c, &d.task, label, d.subCase.inputs, d.subCase.outputs, caseLabel(d.subCase))
	case *ProcessTask:
		b.bindTask(c, &d.task)
		if d.process = c.defs.processByID[d.processRef]; d.process == nil {
			b.casef(c, "%s: processRef %q does not refer to a process", label(), d.processRef)
			return
		}
		b.mappings(c, &d.task, label, d.process.inputs, d.process.outputs, describe("process", d.process.id, d.process.name))
	case *UserEvent:
		if len(d.roleRefs) > 0 {
			d.roles = b.roles(c, d.roleRefs, label(), "authorizedRoleRefs")
		}
	case *TimerEvent:
		if d.triggerRef != "" {
			if src, ok := lookup[*PlanItem](c, d.triggerRef); ok {
				d.trigger = src
			} else {
				b.casef(c, "%s: planItemStartTrigger sourceRef %q does not refer to a plan item", label(), d.triggerRef)
			}
		}
	}
}

func (b *builder) bindTask(c *Case, t *task) {
	for _, p := range t.inputs {
		b.bind(c, p)
	}
	for _, p := range t.outputs {
		b.bind(c, p)
	}
}

// mappings sorts a task's parameter mappings into input mappings (task
// input to implementation input) and output mappings (implementation output
// to task output), reporting any that fit neither.
func (b *builder) mappings(c *Case, t *task, label func() string, implIn, implOut []*Parameter, impl string) {
	if len(t.mappings) == 0 {
		return
	}
	taskIn, taskOut := paramsByID(t.inputs), paramsByID(t.outputs)
	in, out := paramsByID(implIn), paramsByID(implOut)
	for _, m := range t.mappings {
		mlabel := func() string { return m.label(label()) }
		if src := taskIn[m.sourceRef]; src != nil {
			m.source = src
			if m.target = in[m.targetRef]; m.target == nil {
				b.casef(c, "%s: targetRef %q does not refer to an input of %s", mlabel(), m.targetRef, impl)
				continue
			}
			t.inputMappings = append(t.inputMappings, m)
			continue
		}
		if src := out[m.sourceRef]; src != nil {
			m.source = src
			if m.target = taskOut[m.targetRef]; m.target == nil {
				b.casef(c, "%s: targetRef %q does not refer to an output parameter of the task", mlabel(), m.targetRef)
				continue
			}
			t.outputMappings = append(t.outputMappings, m)
			continue
		}
		b.casef(c, "%s: sourceRef %q refers neither to an input parameter of the task nor to an output of %s", mlabel(), m.sourceRef, impl)
	}
}

// paramsByID indexes parameters; the first of a repeated id wins, and
// parameters without id cannot be mapped.
func paramsByID(list []*Parameter) map[string]*Parameter {
	m := make(map[string]*Parameter, len(list))
	for _, p := range list {
		if _, dup := m[p.id]; !dup && p.id != "" {
			m[p.id] = p
		}
	}
	return m
}
