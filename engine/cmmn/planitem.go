package cmmn

import (
	"fmt"
	"strings"
	"time"

	"github.com/casegraph/casegraph/engine/expr"
)

// PlanItemType is the kind of a plan item, spelled as in the reference
// engine's JSON.
type PlanItemType string

// Plan item types.
const (
	TypeCasePlan    PlanItemType = "CasePlan"
	TypeStage       PlanItemType = "Stage"
	TypeHumanTask   PlanItemType = "HumanTask"
	TypeCaseTask    PlanItemType = "CaseTask"
	TypeProcessTask PlanItemType = "ProcessTask"
	TypeMilestone   PlanItemType = "Milestone"
	TypeUserEvent   PlanItemType = "UserEvent"
	TypeTimerEvent  PlanItemType = "TimerEvent"
)

// IsTask reports whether the type is a human, case or process task.
func (t PlanItemType) IsTask() bool {
	return t == TypeHumanTask || t == TypeCaseTask || t == TypeProcessTask
}

// IsEvent reports whether the type follows the event and milestone
// lifecycle (create, occur) rather than the task and stage one.
func (t PlanItemType) IsEvent() bool {
	return t == TypeMilestone || t == TypeUserEvent || t == TypeTimerEvent
}

// PlanItemDefinition is what a plan item instantiates: a *Stage,
// *HumanTask, *CaseTask, *ProcessTask, *Milestone, *UserEvent or
// *TimerEvent.
type PlanItemDefinition interface {
	ID() string
	Name() string
	Documentation() string
	DocumentationFormat() string
	// Type returns the plan item type the definition gives its items.
	Type() PlanItemType
	// Case returns the case declaring the definition.
	Case() *Case
	// UsedBy returns the plan items and discretionary items using the
	// definition.
	UsedBy() []*PlanItem
	base() *definitionBase
}

// definitionBase is embedded by every plan item definition.
type definitionBase struct {
	element
	c       *Case
	typ     PlanItemType
	control *itemControl // defaultControl, may be nil
	usedBy  []*PlanItem
}

// Type returns the plan item type the definition gives its items.
func (b *definitionBase) Type() PlanItemType { return b.typ }

// Case returns the case declaring the definition.
func (b *definitionBase) Case() *Case { return b.c }

// UsedBy returns the plan items and discretionary items using the
// definition, in document order.
func (b *definitionBase) UsedBy() []*PlanItem { return clip(b.usedBy) }

func (b *definitionBase) base() *definitionBase { return b }
func (b *definitionBase) kind() string          { return kindOf(b.typ) }
func (b *definitionBase) label() string         { return b.describe(b.kind()) }

// kindOf returns the XML element name of a type, for messages.
func kindOf(t PlanItemType) string {
	if t == TypeCasePlan {
		return "casePlanModel"
	}
	s := string(t)
	return strings.ToLower(s[:1]) + s[1:]
}

// itemControl holds the rules of a plan item or a definition's default.
type itemControl struct {
	repetition, required, manualActivation *Rule
}

// Stage is a stage definition, including the case plan model: it holds plan
// items, sentries and a planning table.
type Stage struct {
	definitionBase
	autoComplete bool
	items        []*PlanItem
	sentries     []*Sentry
	table        *PlanningTable
}

// AutoComplete reports whether the stage completes when its required items
// are done, rather than when all are.
func (s *Stage) AutoComplete() bool { return s.autoComplete }

// Items returns the stage's plan items (not its discretionary items) in
// document order.
func (s *Stage) Items() []*PlanItem { return clip(s.items) }

// Item returns the stage's plan item with the given name, or nil.
func (s *Stage) Item(name string) *PlanItem { return byName(s.items, name) }

// Sentries returns the sentries declared in the stage.
func (s *Stage) Sentries() []*Sentry { return clip(s.sentries) }

// PlanningTable returns the stage's planning table, or nil.
func (s *Stage) PlanningTable() *PlanningTable { return s.table }

// DiscretionaryItems returns the items that can be planned into the stage:
// those of its planning table, nested tables included. Items offered by a
// human task's table are found on the task.
func (s *Stage) DiscretionaryItems() []*PlanItem {
	if s.table == nil {
		return nil
	}
	return s.table.AllItems()
}

// IsCasePlan reports whether the stage is the case plan model.
func (s *Stage) IsCasePlan() bool { return s.typ == TypeCasePlan }

// Milestone is a milestone definition.
type Milestone struct{ definitionBase }

// UserEvent is a user event listener definition.
type UserEvent struct {
	definitionBase
	roleRefs []string
	roles    []*Role
}

// AuthorizedRoles returns the roles that may raise the event; empty means
// any team member.
func (u *UserEvent) AuthorizedRoles() []*Role { return clip(u.roles) }

// TimerEvent is a timer event listener definition.
type TimerEvent struct {
	definitionBase
	timer       *Expression
	duration    expr.Duration
	hasDuration bool
	triggerRef  string
	trigger     *PlanItem
	triggerOn   Transition
}

// TimerExpression returns the timer expression as written.
func (t *TimerEvent) TimerExpression() *Expression { return t.timer }

// Duration returns the timer's duration when the expression is a literal
// ISO-8601 duration (PT2S, P2DT10S), which the engine then needs not
// evaluate.
func (t *TimerEvent) Duration() (expr.Duration, bool) { return t.duration, t.hasDuration }

// StartTrigger returns the plan item and transition that start the timer
// (planItemStartTrigger with a sourceRef); nil when the timer starts as soon
// as it is available.
func (t *TimerEvent) StartTrigger() (*PlanItem, Transition) { return t.trigger, t.triggerOn }

// Due computes when a timer started at start occurs. A literal duration is
// added to start; an expression may yield a duration, an instant, or a
// string holding either.
func (t *TimerEvent) Due(env expr.Env, start time.Time) (time.Time, error) {
	if t.hasDuration {
		return t.duration.AddTo(start), nil
	}
	v, err := t.timer.Eval(env)
	if err != nil {
		return time.Time{}, err
	}
	switch x := v.(type) {
	case time.Time:
		return x, nil
	case expr.Duration:
		return x.AddTo(start), nil
	case string:
		if d, err := expr.ParseDuration(x); err == nil {
			return d.AddTo(start), nil
		}
		if at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(x)); err == nil {
			return at, nil
		}
		return time.Time{}, fmt.Errorf("timer %q: %q is neither an ISO-8601 duration nor an instant", t.name, x)
	}
	return time.Time{}, fmt.Errorf("timer %q: expression yields %T, not a duration or an instant", t.name, v)
}

// PlanItem is a plan item or a discretionary item: the use of a definition
// in a stage (or a planning table) with its criteria and rules.
type PlanItem struct {
	element
	c             *Case
	definitionRef string
	definition    PlanItemDefinition
	parent        *Stage
	table         *PlanningTable
	control       *itemControl // the plan item's own, before inheritance

	entry, exit, reactivate, suspend, resume []*Criterion

	rules itemControl // effective rules

	roleRefs, ruleRefs   []string
	roles                []*Role
	applicability        []*Rule
	fourEyesRefs, rvRefs []string
	fourEyes, rendezVous []*PlanItem
	listeners            []*PlanItemOnPart
}

// Case returns the case the item belongs to.
func (p *PlanItem) Case() *Case { return p.c }

// Type returns the item's type: its definition's, or [TypeCasePlan].
func (p *PlanItem) Type() PlanItemType {
	if p.c != nil && p == p.c.plan {
		return TypeCasePlan
	}
	return p.definition.Type()
}

// Definition returns what the item instantiates. Use a type switch for the
// concrete definition.
func (p *PlanItem) Definition() PlanItemDefinition { return p.definition }

// Stage returns the definition as a stage, or nil when it is not one.
func (p *PlanItem) Stage() *Stage {
	s, _ := p.definition.(*Stage)
	return s
}

// Parent returns the stage holding the item; nil for the case plan and for
// discretionary items of a human task's planning table, which are planned
// into the stage of the task that offers them.
func (p *PlanItem) Parent() *Stage { return p.parent }

// IsDiscretionary reports whether the item must be planned before it exists.
func (p *PlanItem) IsDiscretionary() bool { return p.table != nil }

// PlanningTable returns the table offering a discretionary item, or nil.
func (p *PlanItem) PlanningTable() *PlanningTable { return p.table }

// EntryCriteria returns the criteria that start the item; none means it
// starts when its stage does.
func (p *PlanItem) EntryCriteria() []*Criterion { return clip(p.entry) }

// ExitCriteria returns the criteria that terminate the item.
func (p *PlanItem) ExitCriteria() []*Criterion { return clip(p.exit) }

// ReactivateCriteria returns the cafienne reactivate criteria, which restart
// a failed item.
func (p *PlanItem) ReactivateCriteria() []*Criterion { return clip(p.reactivate) }

// SuspendCriteria returns the cafienne suspend criteria.
func (p *PlanItem) SuspendCriteria() []*Criterion { return clip(p.suspend) }

// ResumeCriteria returns the cafienne resume criteria.
func (p *PlanItem) ResumeCriteria() []*Criterion { return clip(p.resume) }

// RepetitionRule returns the effective repetition rule, or nil. The plan
// item's itemControl, when present, replaces the definition's
// defaultControl as a whole.
func (p *PlanItem) RepetitionRule() *Rule { return p.rules.repetition }

// RequiredRule returns the effective required rule, or nil.
func (p *PlanItem) RequiredRule() *Rule { return p.rules.required }

// ManualActivationRule returns the effective manual activation rule, or nil.
func (p *PlanItem) ManualActivationRule() *Rule { return p.rules.manualActivation }

// AuthorizedRoles returns the roles that may plan a discretionary item;
// empty means any team member.
func (p *PlanItem) AuthorizedRoles() []*Role { return clip(p.roles) }

// ApplicabilityRules returns the rules deciding whether a discretionary item
// can be planned now; all must hold.
func (p *PlanItem) ApplicabilityRules() []*Rule { return clip(p.applicability) }

// FourEyes returns the tasks that must not be performed by the same user as
// this one (cafienne four_eyes).
func (p *PlanItem) FourEyes() []*PlanItem { return clip(p.fourEyes) }

// RendezVous returns the tasks that must be performed by the same user as
// this one (cafienne rendez_vous).
func (p *PlanItem) RendezVous() []*PlanItem { return clip(p.rendezVous) }

// Listeners returns the on-parts of sentries that listen to this item's
// transitions.
func (p *PlanItem) Listeners() []*PlanItemOnPart { return clip(p.listeners) }

// xmlText renders the plan item's element for messages that show it.
func (p *PlanItem) xmlText() string {
	kind := "planItem"
	if p.IsDiscretionary() {
		kind = "discretionaryItem"
	}
	out := "<" + kind
	if p.id != "" {
		out += fmt.Sprintf(" id=%q", p.id)
	}
	if p.name != "" {
		out += fmt.Sprintf(" name=%q", p.name)
	}
	return out + "/>"
}

func (p *PlanItem) describe() string {
	if p.c != nil && p == p.c.plan {
		return p.element.describe("casePlanModel")
	}
	if p.IsDiscretionary() {
		return p.element.describe("discretionaryItem")
	}
	return p.element.describe("planItem")
}
