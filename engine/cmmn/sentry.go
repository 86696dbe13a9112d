package cmmn

// Transition is a plan item lifecycle transition, spelled as in CMMN and the
// reference engine's URLs.
type Transition string

// Plan item transitions.
const (
	Create          Transition = "create"
	Enable          Transition = "enable"
	Disable         Transition = "disable"
	Reenable        Transition = "reenable"
	Start           Transition = "start"
	ManualStart     Transition = "manualStart"
	Suspend         Transition = "suspend"
	Resume          Transition = "resume"
	Complete        Transition = "complete"
	Terminate       Transition = "terminate"
	Exit            Transition = "exit"
	Fault           Transition = "fault"
	Reactivate      Transition = "reactivate"
	Occur           Transition = "occur"
	Close           Transition = "close"
	ParentSuspend   Transition = "parentSuspend"
	ParentResume    Transition = "parentResume"
	ParentTerminate Transition = "parentTerminate"
)

// taskTransitions are the transitions of tasks and stages; eventTransitions
// those of milestones and event listeners. An on-part listening for a
// transition its source can never make is a modelling error.
var (
	taskTransitions = []Transition{Create, Enable, Disable, Reenable, Start, ManualStart, Suspend, Resume,
		Complete, Terminate, Exit, Fault, Reactivate, ParentSuspend, ParentResume}
	eventTransitions = []Transition{Create, Occur, Suspend, Resume, Terminate, ParentSuspend, ParentResume, ParentTerminate}
)

// CaseFileTransition is a case file item transition.
type CaseFileTransition string

// Case file item transitions.
const (
	FileCreate          CaseFileTransition = "create"
	FileUpdate          CaseFileTransition = "update"
	FileReplace         CaseFileTransition = "replace"
	FileDelete          CaseFileTransition = "delete"
	FileAddChild        CaseFileTransition = "addChild"
	FileRemoveChild     CaseFileTransition = "removeChild"
	FileAddReference    CaseFileTransition = "addReference"
	FileRemoveReference CaseFileTransition = "removeReference"
)

var fileTransitions = []CaseFileTransition{FileCreate, FileUpdate, FileReplace, FileDelete,
	FileAddChild, FileRemoveChild, FileAddReference, FileRemoveReference}

// CriterionKind says what a satisfied criterion does to its plan item.
type CriterionKind string

// Criterion kinds. Reactivate, suspend and resume criteria are extensions of
// the reference engine.
const (
	EntryCriterion      CriterionKind = "entryCriterion"
	ExitCriterion       CriterionKind = "exitCriterion"
	ReactivateCriterion CriterionKind = "reactivateCriterion"
	SuspendCriterion    CriterionKind = "suspendCriterion"
	ResumeCriterion     CriterionKind = "resumeCriterion"
)

// Criterion attaches a sentry to a plan item.
type Criterion struct {
	element
	kind      CriterionKind
	sentryRef string
	sentry    *Sentry
	item      *PlanItem
}

// Kind returns what the criterion does when satisfied.
func (c *Criterion) Kind() CriterionKind { return c.kind }

// Sentry returns the sentry that decides when the criterion is satisfied.
func (c *Criterion) Sentry() *Sentry { return c.sentry }

// PlanItem returns the plan item the criterion belongs to (the case plan
// for the case plan model's exit criteria).
func (c *Criterion) PlanItem() *PlanItem { return c.item }

// Sentry is a condition on events: it is satisfied when each of its on-parts
// has seen its event and its if-part holds.
type Sentry struct {
	element
	stage       *Stage
	planOnParts []*PlanItemOnPart
	fileOnParts []*CaseFileItemOnPart
	ifPart      *Expression
	criteria    []*Criterion
}

// Stage returns the stage declaring the sentry.
func (s *Sentry) Stage() *Stage { return s.stage }

// PlanItemOnParts returns the on-parts listening to plan items.
func (s *Sentry) PlanItemOnParts() []*PlanItemOnPart { return clip(s.planOnParts) }

// CaseFileItemOnParts returns the on-parts listening to case file items.
func (s *Sentry) CaseFileItemOnParts() []*CaseFileItemOnPart { return clip(s.fileOnParts) }

// IfPart returns the sentry's condition, or nil.
func (s *Sentry) IfPart() *Expression { return s.ifPart }

// Criteria returns the criteria that use the sentry.
func (s *Sentry) Criteria() []*Criterion { return clip(s.criteria) }

// PlanItemOnPart listens for a transition of a plan item.
type PlanItemOnPart struct {
	element
	sentry           *Sentry
	sourceRef        string
	source           *PlanItem
	event            Transition
	exitCriterionRef string
	exitCriterion    *Criterion
}

// Sentry returns the sentry the on-part belongs to.
func (o *PlanItemOnPart) Sentry() *Sentry { return o.sentry }

func (o *PlanItemOnPart) label() string {
	return o.describe("planItemOnPart") + " in " + o.sentry.describe("sentry")
}

// Source returns the plan item listened to.
func (o *PlanItemOnPart) Source() *PlanItem { return o.source }

// Event returns the transition listened for.
func (o *PlanItemOnPart) Event() Transition { return o.event }

// ExitCriterion returns, for an exit event, the exit criterion of the source
// that must have caused it; nil when any exit counts.
func (o *PlanItemOnPart) ExitCriterion() *Criterion { return o.exitCriterion }

// CaseFileItemOnPart listens for a transition of a case file item.
type CaseFileItemOnPart struct {
	element
	sentry    *Sentry
	sourceRef string
	source    *CaseFileItem
	event     CaseFileTransition
}

// Sentry returns the sentry the on-part belongs to.
func (o *CaseFileItemOnPart) Sentry() *Sentry { return o.sentry }

func (o *CaseFileItemOnPart) label() string {
	return o.describe("caseFileItemOnPart") + " in " + o.sentry.describe("sentry")
}

// Source returns the case file item listened to.
func (o *CaseFileItemOnPart) Source() *CaseFileItem { return o.source }

// Event returns the transition listened for.
func (o *CaseFileItemOnPart) Event() CaseFileTransition { return o.event }
