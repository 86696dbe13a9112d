package engine

import (
	"encoding/json"
	"fmt"
	"time"
)

// The payloads of the events the engine produces. Event.Type is the name
// of the payload's struct. Each payload carries what a read model or a
// history record needs, so that neither has to look at the case state.

// CaseDefinitionApplied starts every case's history: the case was created
// on a definition.
type CaseDefinitionApplied struct {
	CaseInstanceID string    `json:"caseInstanceId"`
	Tenant         string    `json:"tenant"`
	CaseName       string    `json:"caseName"`
	DefinitionID   string    `json:"definitionId"`
	ParentCaseID   string    `json:"parentCaseId"`
	RootCaseID     string    `json:"rootCaseId"`
	CreatedOn      time.Time `json:"createdOn"`
	CreatedBy      string    `json:"createdBy"`
}

// PlanItemCreated records a new plan item instance (state Null; its Create
// transition follows).
type PlanItemCreated struct {
	CaseInstanceID string    `json:"caseInstanceId"`
	PlanItemID     string    `json:"planItemId"`
	DefinitionID   string    `json:"definitionId"`
	Name           string    `json:"name"`
	Type           string    `json:"type"`
	StageID        string    `json:"stageId"`
	Index          int       `json:"index"`
	Required       bool      `json:"required"`
	Repeating      bool      `json:"repeating"`
	CreatedOn      time.Time `json:"createdOn"`
	CreatedBy      string    `json:"createdBy"`
	// Discretionary is set for a planned discretionary item and its
	// repetitions.
	Discretionary bool `json:"discretionary,omitempty"`
}

// PlanItemTransitioned records a lifecycle transition of a plan item, with
// everything a plan-item history record shows.
type PlanItemTransitioned struct {
	CaseInstanceID string     `json:"caseInstanceId"`
	PlanItemID     string     `json:"planItemId"`
	Name           string     `json:"name"`
	Type           string     `json:"type"`
	StageID        string     `json:"stageId"`
	Index          int        `json:"index"`
	CurrentState   State      `json:"currentState"`
	HistoryState   State      `json:"historyState"`
	Transition     Transition `json:"transition"`
	Repeating      bool       `json:"repeating"`
	Required       bool       `json:"required"`
	LastModified   time.Time  `json:"lastModified"`
	ModifiedBy     string     `json:"modifiedBy"`
}

// RepetitionRuleEvaluated records whether a new plan item repeats; it
// follows the item's Create transition, as in the reference engine, whose
// plan-item history shows it.
type RepetitionRuleEvaluated struct {
	CaseInstanceID string `json:"caseInstanceId"`
	PlanItemID     string `json:"planItemId"`
	Name           string `json:"name"`
	Type           string `json:"type"`
	Repeating      bool   `json:"isRepeating"`
}

// RequiredRuleEvaluated records whether a new plan item is required; it
// follows RepetitionRuleEvaluated.
type RequiredRuleEvaluated struct {
	CaseInstanceID string `json:"caseInstanceId"`
	PlanItemID     string `json:"planItemId"`
	Name           string `json:"name"`
	Type           string `json:"type"`
	Required       bool   `json:"isRequired"`
}

// CaseFileItemTransitioned records a change of a case file item instance.
// Transition is create, update, replace or delete; Value is the item's
// value afterwards (null after delete).
type CaseFileItemTransitioned struct {
	CaseInstanceID string `json:"caseInstanceId"`
	// Path is the instance path, e.g. "Order/Lines[1]".
	Path string `json:"path"`
	// Index is the element's position in its array, -1 for other items.
	Index      int    `json:"index"`
	Transition string `json:"transition"`
	State      State  `json:"state"`
	Value      any    `json:"value"`
}

// HumanTaskActivated records that a human task became Active for the first
// time: it now appears in task lists.
type HumanTaskActivated struct {
	CaseInstanceID string         `json:"caseInstanceId"`
	TaskID         string         `json:"taskId"`
	TaskName       string         `json:"taskName"`
	Role           string         `json:"role"`
	State          TaskState      `json:"taskState"`
	Input          map[string]any `json:"input"`
	TaskModel      string         `json:"taskModel"`
	DueDate        *time.Time     `json:"dueDate,omitempty"`
	Assignee       string         `json:"assignee,omitempty"`
	CreatedOn      time.Time      `json:"createdOn"`
	CreatedBy      string         `json:"createdBy"`
}

// HumanTaskDueDateFilled records the due date computed on activation.
type HumanTaskDueDateFilled struct {
	TaskID  string    `json:"taskId"`
	DueDate time.Time `json:"dueDate"`
}

// HumanTaskAssigned records an assignment by AssignTask or, on
// activation, by the task's assignment expression.
type HumanTaskAssigned struct {
	TaskID   string    `json:"taskId"`
	Assignee string    `json:"assignee"`
	Owner    string    `json:"owner"`
	State    TaskState `json:"taskState"`
}

// HumanTaskClaimed records that a user took a task: Assignee claimed it
// and is now its owner too.
type HumanTaskClaimed struct {
	TaskID   string    `json:"taskId"`
	Assignee string    `json:"assignee"`
	Owner    string    `json:"owner"`
	State    TaskState `json:"taskState"`
}

// HumanTaskDelegated records that a task was handed to Assignee; Owner
// keeps it and gets it back on revoke.
type HumanTaskDelegated struct {
	TaskID   string    `json:"taskId"`
	Assignee string    `json:"assignee"`
	Owner    string    `json:"owner"`
	State    TaskState `json:"taskState"`
}

// HumanTaskRevoked records that a task was taken back: a delegated task
// returns to its owner (Assignee is the owner again), an assigned one to
// nobody (Assignee and Owner are empty).
type HumanTaskRevoked struct {
	TaskID   string    `json:"taskId"`
	Assignee string    `json:"assignee"`
	Owner    string    `json:"owner"`
	State    TaskState `json:"taskState"`
}

// HumanTaskOwnerChanged records a new owner of a task ("" for none); it
// follows the claim, assignment or revocation that changed it.
type HumanTaskOwnerChanged struct {
	TaskID string `json:"taskId"`
	Owner  string `json:"owner"`
}

// HumanTaskOutputSaved records output stored on a task that is not
// completed yet.
type HumanTaskOutputSaved struct {
	TaskID string         `json:"taskId"`
	Output map[string]any `json:"output"`
}

// HumanTaskCompleted records the output a human task completed with.
type HumanTaskCompleted struct {
	TaskID string         `json:"taskId"`
	Output map[string]any `json:"output"`
	State  TaskState      `json:"taskState"`
}

// HumanTaskSuspended records that an active human task was suspended.
type HumanTaskSuspended struct {
	TaskID string    `json:"taskId"`
	State  TaskState `json:"taskState"`
}

// HumanTaskResumed records that a suspended human task is active again.
type HumanTaskResumed struct {
	TaskID string    `json:"taskId"`
	State  TaskState `json:"taskState"`
}

// HumanTaskTerminated records that an activated human task ended without
// completing.
type HumanTaskTerminated struct {
	TaskID string    `json:"taskId"`
	State  TaskState `json:"taskState"`
}

// TimerSet records when a timer event will occur.
type TimerSet struct {
	PlanItemID string    `json:"planItemId"`
	DueDate    time.Time `json:"dueDate"`
}

// CaseTeamMemberSet records a user added to the team, or given a role,
// by the engine itself: a dynamic task assignment, or an owner assigning
// or delegating a task to someone outside the team.
type CaseTeamMemberSet struct {
	Member Member `json:"member"`
}

// CaseModified ends every command's events.
type CaseModified struct {
	CaseInstanceID string    `json:"caseInstanceId"`
	State          State     `json:"state"`
	Failures       int       `json:"numFailures"`
	LastModified   time.Time `json:"lastModified"`
	ModifiedBy     string    `json:"modifiedBy"`
}

// CaseDefinitionMigrated records that the case moved to another
// definition (see Migrate); the events of the migration follow it.
type CaseDefinitionMigrated struct {
	CaseInstanceID       string `json:"caseInstanceId"`
	CaseName             string `json:"caseName"`
	DefinitionID         string `json:"definitionId"`
	PreviousCaseName     string `json:"previousCaseName"`
	PreviousDefinitionID string `json:"previousDefinitionId"`
}

// PlanItemMigrated records a plan item that kept its state across a
// migration, as it is now: its new definition id, name and stage, and its
// rules evaluated on the new definition.
type PlanItemMigrated struct {
	CaseInstanceID       string     `json:"caseInstanceId"`
	PlanItemID           string     `json:"planItemId"`
	DefinitionID         string     `json:"definitionId"`
	Name                 string     `json:"name"`
	Type                 string     `json:"type"`
	StageID              string     `json:"stageId"`
	Index                int        `json:"index"`
	CurrentState         State      `json:"currentState"`
	HistoryState         State      `json:"historyState"`
	Transition           Transition `json:"transition"`
	Required             bool       `json:"required"`
	Repeating            bool       `json:"repeating"`
	PreviousDefinitionID string     `json:"previousDefinitionId"`
	PreviousName         string     `json:"previousName"`
	PreviousStageID      string     `json:"previousStageId"`
}

// HumanTaskMigrated records a human task's workflow carried across a
// migration: its name and performer role as the new definition says.
type HumanTaskMigrated struct {
	TaskID   string    `json:"taskId"`
	TaskName string    `json:"taskName"`
	Role     string    `json:"role"`
	State    TaskState `json:"taskState"`
}

// CaseTeamSet records a replaced case team.
type CaseTeamSet struct {
	Team Team `json:"team"`
}

// CaseRolesDropped records case roles a migration took from the team
// because the new definition no longer declares them.
type CaseRolesDropped struct {
	CaseInstanceID string   `json:"caseInstanceId"`
	Roles          []string `json:"roles"`
}

// CaseFileItemDropped records that a migration removed a case file item,
// with every instance and value of it, because the new definition no
// longer declares it. Path is its definition path.
type CaseFileItemDropped struct {
	CaseInstanceID string `json:"caseInstanceId"`
	Path           string `json:"path"`
}

// eventTypes creates an empty payload by event type, for DecodeEvent.
// ProcessTaskCompleted records that a process task's work succeeded
// (StatusCode: the HTTP status, if any).
type ProcessTaskCompleted struct {
	CaseInstanceID string `json:"caseInstanceId"`
	PlanItemID     string `json:"planItemId"`
	Name           string `json:"name"`
	StatusCode     int    `json:"statusCode,omitempty"`
}

// ProcessTaskFailed records why a process task's work failed; the task's
// Fault transition follows when it was waiting for it.
type ProcessTaskFailed struct {
	CaseInstanceID string `json:"caseInstanceId"`
	PlanItemID     string `json:"planItemId"`
	Name           string `json:"name"`
	StatusCode     int    `json:"statusCode,omitempty"`
	Reason         string `json:"reason"`
}

var eventTypes = map[string]func() any{
	"ProcessTaskCompleted":     func() any { return new(ProcessTaskCompleted) },
	"ProcessTaskFailed":        func() any { return new(ProcessTaskFailed) },
	"CaseDefinitionApplied":    func() any { return new(CaseDefinitionApplied) },
	"PlanItemCreated":          func() any { return new(PlanItemCreated) },
	"PlanItemTransitioned":     func() any { return new(PlanItemTransitioned) },
	"RepetitionRuleEvaluated":  func() any { return new(RepetitionRuleEvaluated) },
	"RequiredRuleEvaluated":    func() any { return new(RequiredRuleEvaluated) },
	"CaseFileItemTransitioned": func() any { return new(CaseFileItemTransitioned) },
	"HumanTaskActivated":       func() any { return new(HumanTaskActivated) },
	"HumanTaskDueDateFilled":   func() any { return new(HumanTaskDueDateFilled) },
	"HumanTaskAssigned":        func() any { return new(HumanTaskAssigned) },
	"HumanTaskClaimed":         func() any { return new(HumanTaskClaimed) },
	"HumanTaskDelegated":       func() any { return new(HumanTaskDelegated) },
	"HumanTaskRevoked":         func() any { return new(HumanTaskRevoked) },
	"HumanTaskOwnerChanged":    func() any { return new(HumanTaskOwnerChanged) },
	"HumanTaskOutputSaved":     func() any { return new(HumanTaskOutputSaved) },
	"HumanTaskCompleted":       func() any { return new(HumanTaskCompleted) },
	"HumanTaskSuspended":       func() any { return new(HumanTaskSuspended) },
	"HumanTaskResumed":         func() any { return new(HumanTaskResumed) },
	"HumanTaskTerminated":      func() any { return new(HumanTaskTerminated) },
	"TimerSet":                 func() any { return new(TimerSet) },
	"CaseTeamMemberSet":        func() any { return new(CaseTeamMemberSet) },
	"CaseModified":             func() any { return new(CaseModified) },
	"CaseDefinitionMigrated":   func() any { return new(CaseDefinitionMigrated) },
	"PlanItemMigrated":         func() any { return new(PlanItemMigrated) },
	"HumanTaskMigrated":        func() any { return new(HumanTaskMigrated) },
	"CaseTeamSet":              func() any { return new(CaseTeamSet) },
	"CaseRolesDropped":         func() any { return new(CaseRolesDropped) },
	"CaseFileItemDropped":      func() any { return new(CaseFileItemDropped) },
}

// DecodeEvent turns a stored event back into an Event whose Payload is the
// struct value of its type, with JSON numbers in the case file's canonical
// form (see Case). An unknown type is an error.
func DecodeEvent(typ string, payload []byte) (Event, error) {
	mk, ok := eventTypes[typ]
	if !ok {
		return Event{}, fmt.Errorf("engine: unknown event type %q", typ)
	}
	p := mk()
	if err := json.Unmarshal(payload, p); err != nil {
		return Event{}, fmt.Errorf("engine: decode %s: %w", typ, err)
	}
	switch x := p.(type) {
	case *CaseFileItemTransitioned:
		x.Value = canonical(x.Value)
	case *HumanTaskActivated:
		x.Input = canonicalMap(x.Input)
	case *HumanTaskCompleted:
		x.Output = canonicalMap(x.Output)
	case *HumanTaskOutputSaved:
		x.Output = canonicalMap(x.Output)
	}
	return Event{Type: typ, Payload: derefPayload(p)}, nil
}

// derefPayload returns the struct a pointer made by eventTypes points to,
// so that decoded events look like produced ones.
func derefPayload(p any) any {
	switch x := p.(type) {
	case *CaseDefinitionApplied:
		return *x
	case *PlanItemCreated:
		return *x
	case *PlanItemTransitioned:
		return *x
	case *RepetitionRuleEvaluated:
		return *x
	case *RequiredRuleEvaluated:
		return *x
	case *CaseFileItemTransitioned:
		return *x
	case *HumanTaskActivated:
		return *x
	case *HumanTaskDueDateFilled:
		return *x
	case *HumanTaskAssigned:
		return *x
	case *HumanTaskClaimed:
		return *x
	case *HumanTaskDelegated:
		return *x
	case *HumanTaskRevoked:
		return *x
	case *HumanTaskOwnerChanged:
		return *x
	case *HumanTaskOutputSaved:
		return *x
	case *HumanTaskCompleted:
		return *x
	case *HumanTaskSuspended:
		return *x
	case *HumanTaskResumed:
		return *x
	case *HumanTaskTerminated:
		return *x
	case *TimerSet:
		return *x
	case *CaseTeamMemberSet:
		return *x
	case *CaseModified:
		return *x
	case *CaseDefinitionMigrated:
		return *x
	case *PlanItemMigrated:
		return *x
	case *HumanTaskMigrated:
		return *x
	case *CaseTeamSet:
		return *x
	case *CaseRolesDropped:
		return *x
	case *CaseFileItemDropped:
		return *x
	case *ProcessTaskCompleted:
		return *x
	case *ProcessTaskFailed:
		return *x
	}
	return p
}

// eventName returns the event type of a payload.
func eventName(p any) string {
	switch p.(type) {
	case CaseDefinitionApplied:
		return "CaseDefinitionApplied"
	case PlanItemCreated:
		return "PlanItemCreated"
	case PlanItemTransitioned:
		return "PlanItemTransitioned"
	case RepetitionRuleEvaluated:
		return "RepetitionRuleEvaluated"
	case RequiredRuleEvaluated:
		return "RequiredRuleEvaluated"
	case CaseFileItemTransitioned:
		return "CaseFileItemTransitioned"
	case HumanTaskActivated:
		return "HumanTaskActivated"
	case HumanTaskDueDateFilled:
		return "HumanTaskDueDateFilled"
	case HumanTaskAssigned:
		return "HumanTaskAssigned"
	case HumanTaskClaimed:
		return "HumanTaskClaimed"
	case HumanTaskDelegated:
		return "HumanTaskDelegated"
	case HumanTaskRevoked:
		return "HumanTaskRevoked"
	case HumanTaskOwnerChanged:
		return "HumanTaskOwnerChanged"
	case HumanTaskOutputSaved:
		return "HumanTaskOutputSaved"
	case HumanTaskCompleted:
		return "HumanTaskCompleted"
	case HumanTaskSuspended:
		return "HumanTaskSuspended"
	case HumanTaskResumed:
		return "HumanTaskResumed"
	case HumanTaskTerminated:
		return "HumanTaskTerminated"
	case TimerSet:
		return "TimerSet"
	case CaseTeamMemberSet:
		return "CaseTeamMemberSet"
	case CaseModified:
		return "CaseModified"
	case CaseDefinitionMigrated:
		return "CaseDefinitionMigrated"
	case PlanItemMigrated:
		return "PlanItemMigrated"
	case HumanTaskMigrated:
		return "HumanTaskMigrated"
	case CaseTeamSet:
		return "CaseTeamSet"
	case CaseRolesDropped:
		return "CaseRolesDropped"
	case CaseFileItemDropped:
		return "CaseFileItemDropped"
	case ProcessTaskCompleted:
		return "ProcessTaskCompleted"
	case ProcessTaskFailed:
		return "ProcessTaskFailed"
	}
	return fmt.Sprintf("%T", p)
}
