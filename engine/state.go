package engine

import (
	"slices"
	"time"
)

// State is a CMMN state of a plan item or case file item.
type State string

// CMMN states.
const (
	Null       State = "Null"
	Available  State = "Available"
	Enabled    State = "Enabled"
	Disabled   State = "Disabled"
	Active     State = "Active"
	Suspended  State = "Suspended"
	Completed  State = "Completed"
	Terminated State = "Terminated"
	Failed     State = "Failed"
	Closed     State = "Closed"
	Discarded  State = "Discarded" // case file items only
)

// Transition is a CMMN transition, spelled as the reference engine's enum
// constants (its JSON "transition" field).
type Transition string

// CMMN transitions.
const (
	Create          Transition = "Create"
	Enable          Transition = "Enable"
	Disable         Transition = "Disable"
	Reenable        Transition = "Reenable"
	StartTransition Transition = "Start" // Start names the function that starts a case
	ManualStart     Transition = "ManualStart"
	Suspend         Transition = "Suspend"
	Resume          Transition = "Resume"
	Complete        Transition = "Complete"
	Terminate       Transition = "Terminate"
	Exit            Transition = "Exit"
	Fault           Transition = "Fault"
	Reactivate      Transition = "Reactivate"
	Occur           Transition = "Occur"
	Close           Transition = "Close"
	ParentSuspend   Transition = "ParentSuspend"
	ParentResume    Transition = "ParentResume"
	ParentTerminate Transition = "ParentTerminate"
)

// TaskState is the workflow state of a human task, apart from its CMMN
// state.
type TaskState string

// Human task workflow states.
const (
	Unassigned     TaskState = "Unassigned"
	Assigned       TaskState = "Assigned"
	Delegated      TaskState = "Delegated"
	TaskSuspended  TaskState = "Suspended"
	TaskCompleted  TaskState = "Completed"
	TaskTerminated TaskState = "Terminated"
)

// Case is the whole state of a case instance. It marshals to JSON, which is
// how service stores it; everything the engine needs to continue a case is
// in it, so a restarted server continues every case where it was.
type Case struct {
	ID     string `json:"id"`
	Tenant string `json:"tenant"`
	// Name is the case definition's name.
	Name string `json:"name"`
	// DefinitionID is the id of the <case> the instance runs.
	DefinitionID string `json:"definitionId"`
	ParentID     string `json:"parentId,omitempty"`
	RootID       string `json:"rootId"`
	// Depth is the number of cases above this one (0 at the top); it
	// bounds how deep case tasks may nest.
	Depth int  `json:"depth,omitempty"`
	Debug bool `json:"debug,omitempty"`

	CreatedOn    time.Time `json:"createdOn"`
	CreatedBy    string    `json:"createdBy"`
	LastModified time.Time `json:"lastModified"`
	ModifiedBy   string    `json:"modifiedBy"`

	// PlanItems in creation order; PlanItems[0] is the case plan.
	PlanItems []*PlanItem `json:"planItems"`
	// File is the case file: a JSON object keyed by top-level item names.
	File map[string]any `json:"file"`
	// FileStates holds the CMMN state of each case file item instance by
	// path, e.g. "Application" or "Order/Lines[1]".
	FileStates map[string]State `json:"fileStates,omitempty"`
	// FileTransitions holds, by definition path ("Order/Lines"), the last
	// transition of any instance of that case file item that sentries
	// have seen: a case file item on-part is satisfied while it matches.
	FileTransitions map[string]string `json:"fileTransitions,omitempty"`
	// FileCurrent holds, by instance path of an array item, the index of
	// its "current" element: the one changed last. Task parameters bound
	// to the array without an index read and write that element.
	FileCurrent map[string]int `json:"fileCurrent,omitempty"`
	Team        Team           `json:"team"`

	// Failures counts plan items in state Failed.
	Failures int `json:"failures,omitempty"`
	// Sequence is the number of events the case has produced so far.
	Sequence int64 `json:"sequence"`
}

// State returns the case's state: the case plan's.
func (c *Case) State() State {
	if len(c.PlanItems) == 0 {
		return Null
	}
	return c.PlanItems[0].State
}

// PlanItem returns the plan item with id, or nil.
func (c *Case) PlanItem(id string) *PlanItem {
	for _, p := range c.PlanItems {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// PlanItem is one instance of a plan item (or planned discretionary item)
// of the definition.
type PlanItem struct {
	ID string `json:"id"`
	// DefinitionID is the id of the <planItem> or <discretionaryItem>.
	DefinitionID string `json:"definitionId"`
	Name         string `json:"name"`
	// Type is one of CasePlan, Stage, HumanTask, CaseTask, ProcessTask,
	// Milestone, UserEvent, TimerEvent.
	Type string `json:"type"`
	// StageID is the id of the parent stage's plan item, "" for the case
	// plan.
	StageID        string     `json:"stageId"`
	Index          int        `json:"index"`
	State          State      `json:"state"`
	HistoryState   State      `json:"historyState"`
	LastTransition Transition `json:"transition"`
	Required       bool       `json:"required"`
	Repeating      bool       `json:"repeating"`
	Discretionary  bool       `json:"discretionary,omitempty"`
	CreatedOn      time.Time  `json:"createdOn"`
	LastModified   time.Time  `json:"lastModified"`
	ModifiedBy     string     `json:"modifiedBy"`
	// Seq is the event number (see Case.Sequence) of the last transition
	// that sentries have seen; it orders the transitions of the instances
	// of a repeating item, for on-parts listening to all of them.
	Seq int64 `json:"seq,omitempty"`
	// ExitCriterion is the id of the exit criterion that made the item
	// exit, for on-parts with an exitCriterionRef; "" otherwise.
	ExitCriterion string `json:"exitCriterion,omitempty"`
	// TimerDue is when a timer event occurs, set once its timer started.
	TimerDue *time.Time `json:"timerDue,omitempty"`
	// Task is the workflow of a human task, set once it became Active.
	Task *HumanTask `json:"task,omitempty"`
	// SubCaseID is the id of the case a case task started ("" before it
	// started one); it is the plan item's own id, as in the reference
	// engine.
	SubCaseID string `json:"subCaseId,omitempty"`
	// Process is what a process task did, set once it became Active.
	Process *ProcessRun `json:"process,omitempty"`
}

// HumanTask is the workflow state of a human task plan item.
type HumanTask struct {
	// Role is the performer case role, "" when anyone in the team may
	// perform it.
	Role     string     `json:"role"`
	State    TaskState  `json:"state"`
	Assignee string     `json:"assignee,omitempty"`
	Owner    string     `json:"owner,omitempty"`
	DueDate  *time.Time `json:"dueDate,omitempty"`
	// Input is the mapped input at activation, by parameter name.
	Input map[string]any `json:"input"`
	// Output is the last saved or completed output.
	Output map[string]any `json:"output"`
	// TaskModel is the definition's task-model, with ${…} substituted.
	TaskModel   string    `json:"taskModel,omitempty"`
	ActivatedOn time.Time `json:"activatedOn"`
	CreatedBy   string    `json:"createdBy"`
	// LastModified and ModifiedBy are the task's own last change: any
	// workflow command or transition of the task. Zero in snapshots
	// written before tasks kept them; Modified then answers the plan
	// item's, which was the task's until then.
	LastModified time.Time `json:"lastModified,omitzero"`
	ModifiedBy   string    `json:"modifiedBy,omitempty"`
	// Documentation is the plan item's documentation text (else its
	// definition's), shown with the task as the reference engine does.
	Documentation string `json:"documentation,omitempty"`
}

// Modified is when and by whom the task of plan item p last changed.
func (t *HumanTask) Modified(p *PlanItem) (time.Time, string) {
	if t.LastModified.IsZero() {
		return p.LastModified, p.ModifiedBy
	}
	return t.LastModified, t.ModifiedBy
}

// MemberType tells a user member from a tenant-role member and a
// consent-group member.
type MemberType string

// Member types.
const (
	UserMember  MemberType = "user"
	RoleMember  MemberType = "role"
	GroupMember MemberType = "group"
)

// Team is the case team: who may see and act in the case.
type Team struct {
	Members []Member `json:"members"`
}

// Member is one membership of the team: a tenant user, a tenant role or a
// consent group.
//
// A group member's own rights are in its Mappings; its CaseRoles and
// IsOwner summarize them (every case role some mapping grants; whether
// some mapping makes owners), so that whatever asks "who holds role R" or
// "does the team keep an owner" reads every member alike. NewGroupMember
// keeps the summary right.
type Member struct {
	ID        string     `json:"id"`
	Type      MemberType `json:"type"`
	CaseRoles []string   `json:"caseRoles"`
	IsOwner   bool       `json:"isOwner"`
	// Origin of a user member: Tenant, Platform or IDP.
	Origin string `json:"origin,omitempty"`
	// Mappings of a group member, in the order given.
	Mappings []GroupMapping `json:"mappings,omitempty"`
}

// GroupMapping gives the members of a consent group who hold GroupRole
// (every member when it is "", and the group's owners always) the case
// roles CaseRoles, and case ownership when IsOwner.
type GroupMapping struct {
	GroupRole string   `json:"groupRole"`
	IsOwner   bool     `json:"isOwner"`
	CaseRoles []string `json:"caseRoles"`
}

// NewGroupMember is the team member for consent group id with mappings.
func NewGroupMember(id string, mappings []GroupMapping) Member {
	m := Member{ID: id, Type: GroupMember, CaseRoles: []string{}, Mappings: make([]GroupMapping, len(mappings))}
	seen := map[string]bool{}
	for i, mp := range mappings {
		mp.CaseRoles = slices.Clone(mp.CaseRoles)
		if mp.CaseRoles == nil {
			mp.CaseRoles = []string{}
		}
		m.Mappings[i] = mp
		m.IsOwner = m.IsOwner || mp.IsOwner
		for _, r := range mp.CaseRoles {
			if !seen[r] {
				seen[r] = true
				m.CaseRoles = append(m.CaseRoles, r)
			}
		}
	}
	slices.Sort(m.CaseRoles)
	return m
}
