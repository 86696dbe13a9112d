package engine

import (
	"slices"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// The human-task workflow (§2.5). Errors start with the reference
// engine's command class names, which its clients match on.
const (
	cmdClaim    = "ClaimTask"
	cmdAssign   = "AssignTask"
	cmdDelegate = "DelegateTask"
	cmdRevoke   = "RevokeTask"
	cmdComplete = "CompleteHumanTask"
	cmdSave     = "SaveHumanTaskOutput"
	cmdValidate = "ValidateTaskOutput"
)

// taskAccess finds the human task id and checks what every workflow
// command needs: the task is alive, and the actor holds its performer
// role (owners manage every role) or is its current assignee.
func (r *run) taskAccess(cmd, id string) (*PlanItem, error) {
	p := r.item(id)
	if p == nil || p.Type != string(cmmn.TypeHumanTask) {
		return nil, errorf(ErrNotFound, "A task with id '%s' cannot be found.", id)
	}
	switch p.State {
	case Active, Suspended, Failed, Enabled, Disabled:
	default:
		return nil, stateErrorf("%s cannot be done because task %s (%s) is in state %s", cmd, p.Name, p.ID, p.State)
	}
	if !r.actor.HasRole(r.taskRole(p)) && !r.isAssignee(p) {
		return nil, noPermission(cmd, p)
	}
	return p, nil
}

func noPermission(cmd string, p *PlanItem) error {
	return errorf(ErrNotAllowed, "%s[%s]: You do not have permission to perform this operation", cmd, p.ID)
}

// taskRole returns the performer role of a task: the one it was activated
// with, or the definition's before activation.
func (r *run) taskRole(p *PlanItem) string {
	if p.Task != nil {
		return p.Task.Role
	}
	if h := r.humanTaskDef(p); h != nil && h.Performer() != nil {
		return h.Performer().Name()
	}
	return ""
}

func (r *run) isAssignee(p *PlanItem) bool {
	return p.Task != nil && p.Task.Assignee != "" && p.Task.Assignee == r.actor.UserID
}

// workflowActive checks that the task is in a workflow state in which it
// can be worked on. A task not yet activated has no workflow: its state is
// Null, as in the reference engine.
func workflowActive(cmd string, p *PlanItem) error {
	state := TaskState("Null")
	if p.Task != nil {
		state = p.Task.State
	}
	switch state {
	case Unassigned, Assigned, Delegated:
		return nil
	}
	return stateErrorf("%s[%s]: Cannot be done because the task is not Active but %s", cmd, p.ID, state)
}

// manageTask checks a claim, assignment or delegation: beyond access,
// these need the performer role; being the assignee is not enough, so a
// delegate without the role cannot pass the task on.
func (r *run) manageTask(cmd, id string) (*PlanItem, error) {
	p, err := r.taskAccess(cmd, id)
	if err != nil {
		return nil, err
	}
	if !r.actor.HasRole(r.taskRole(p)) {
		return nil, noPermission(cmd, p)
	}
	return p, workflowActive(cmd, p)
}

// performTask checks a completion, a save or a validation of output: the
// task must be Active, and the four-eyes and rendez-vous rules must let
// the actor work on it.
func (r *run) performTask(cmd, id string) (*PlanItem, error) {
	p, err := r.taskAccess(cmd, id)
	if err != nil {
		return nil, err
	}
	if err := workflowActive(cmd, p); err != nil {
		return nil, err
	}
	if p.State != Active {
		return nil, stateErrorf("%s cannot be done because task %s (%s) is in state %s", cmd, p.Name, p.ID, p.State)
	}
	return p, r.pairing(cmd, p, r.actor.UserID)
}

// claimTask runs ClaimTask. A task assigned or delegated to someone else
// may be claimed too (reference issue #440).
func (r *run) claimTask(cmd ClaimTask) error {
	p, err := r.manageTask(cmdClaim, cmd.TaskID)
	if err != nil {
		return err
	}
	if t := p.Task; t.State == Assigned && t.Assignee == r.actor.UserID {
		return errorf(ErrNoEffect, "%s[%s]: The task is already assigned to you", cmdClaim, p.ID)
	}
	if err := r.pairing(cmdClaim, p, r.actor.UserID); err != nil {
		return err
	}
	r.claim(p, r.actor.UserID)
	return nil
}

// claim makes user the task's assignee and owner.
func (r *run) claim(p *PlanItem, user string) {
	t := p.Task
	t.Assignee, t.State = user, Assigned
	old := t.Owner
	t.Owner = user
	r.taskEvent(p, HumanTaskClaimed{TaskID: p.ID, Assignee: user, Owner: user, State: t.State})
	r.ownerChanged(p, old)
}

// ownerChanged records a new owner of the task, if it is new.
func (r *run) ownerChanged(p *PlanItem, old string) {
	if p.Task.Owner != old {
		r.taskEvent(p, HumanTaskOwnerChanged{TaskID: p.ID, Owner: p.Task.Owner})
	}
}

// assignTask runs AssignTask. A member who is not an owner may only assign
// to a user member who can perform the task; an owner may assign to any
// user, who then joins the team with the performer role.
func (r *run) assignTask(cmd AssignTask) error {
	p, err := r.manageTask(cmdAssign, cmd.TaskID)
	if err != nil {
		return err
	}
	to := cmd.Assignee
	if to == "" {
		return errorf(ErrInvalid, "%s[%s]: The assignee is missing", cmdAssign, p.ID)
	}
	t := p.Task
	if t.State == Assigned && t.Assignee == to && t.Owner == to {
		return errorf(ErrNoEffect, "%s[%s]: The task is already assigned to %s", cmdAssign, p.ID, to)
	}
	if !r.actor.IsOwner {
		m := r.userMember(to)
		if m == nil {
			return errorf(ErrInvalid, "%s[%s]: There is no case team member with id '%s'", cmdAssign, p.ID, to)
		}
		if t.Role != "" && !m.IsOwner && !slices.Contains(m.CaseRoles, t.Role) {
			return errorf(ErrNotAllowed, "%s[%s]: The case team member with id '%s' does not have the case role %s", cmdAssign, p.ID, to, t.Role)
		}
	}
	if err := r.pairing(cmdAssign, p, to); err != nil {
		return err
	}
	if r.actor.IsOwner {
		r.addToTeam(to, t.Role, "")
	}
	old := t.Owner
	t.Assignee, t.Owner, t.State = to, to, Assigned
	r.taskEvent(p, HumanTaskAssigned{TaskID: p.ID, Assignee: to, Owner: to, State: t.State})
	r.ownerChanged(p, old)
	return nil
}

// delegateTask runs DelegateTask. The delegate must be a user member,
// unless an owner delegates: then the delegate joins the team without
// roles (reference issue #438), as delegating lends the task, not the
// role.
func (r *run) delegateTask(cmd DelegateTask) error {
	p, err := r.manageTask(cmdDelegate, cmd.TaskID)
	if err != nil {
		return err
	}
	to := cmd.Assignee
	if to == "" {
		return errorf(ErrInvalid, "%s[%s]: The delegate is missing", cmdDelegate, p.ID)
	}
	t := p.Task
	if t.State == Delegated && t.Assignee == to {
		return errorf(ErrNoEffect, "%s[%s]: The task is already delegated to %s", cmdDelegate, p.ID, to)
	}
	m := r.userMember(to)
	if m == nil && !r.actor.IsOwner {
		return errorf(ErrInvalid, "%s[%s]: There is no case team member with id '%s'", cmdDelegate, p.ID, to)
	}
	if err := r.pairing(cmdDelegate, p, to); err != nil {
		return err
	}
	if m == nil {
		r.addToTeam(to, "", "")
	}
	old := t.Owner
	if t.Owner == "" {
		// An unassigned task is lent by the one delegating it, who gets
		// it back on revoke.
		t.Owner = r.actor.UserID
	}
	t.Assignee, t.State = to, Delegated
	r.taskEvent(p, HumanTaskDelegated{TaskID: p.ID, Assignee: to, Owner: t.Owner, State: t.State})
	r.ownerChanged(p, old)
	return nil
}

// revokeTask runs RevokeTask: a delegated task goes back to its owner, an
// assigned one to nobody. The assignee may revoke without the role.
func (r *run) revokeTask(cmd RevokeTask) error {
	p, err := r.taskAccess(cmdRevoke, cmd.TaskID)
	if err != nil {
		return err
	}
	if err := workflowActive(cmdRevoke, p); err != nil {
		return err
	}
	t := p.Task
	old := t.Owner
	switch t.State {
	case Unassigned:
		return errorf(ErrNoEffect, "%s[%s]: The task is not assigned to anyone", cmdRevoke, p.ID)
	case Delegated:
		t.Assignee = t.Owner
		t.State = workflowState(t)
	default:
		t.Assignee, t.Owner, t.State = "", "", Unassigned
	}
	r.taskEvent(p, HumanTaskRevoked{TaskID: p.ID, Assignee: t.Assignee, Owner: t.Owner, State: t.State})
	r.ownerChanged(p, old)
	return nil
}

// saveTaskOutput runs SaveTaskOutput: the output is kept on the task, as
// it is, until the task completes; only completion validates it.
func (r *run) saveTaskOutput(cmd SaveTaskOutput) error {
	p, err := r.performTask(cmdSave, cmd.TaskID)
	if err != nil {
		return err
	}
	norm, err := normalize(cmd.Output, 0)
	if err != nil {
		return errorf(ErrInvalid, "Output for task %s is invalid: [%v]", p.Name, err)
	}
	out, _ := norm.(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	p.Task.Output = out
	r.taskEvent(p, HumanTaskOutputSaved{TaskID: p.ID, Output: canonicalMap(out)})
	return nil
}

// userMember returns the user membership of id, or nil.
func (r *run) userMember(id string) *Member {
	for i, m := range r.c.Team.Members {
		if m.Type == UserMember && m.ID == id {
			return &r.c.Team.Members[i]
		}
	}
	return nil
}

// MayPerform returns the predicate telling whether actor may work on a
// human task of c now, by task id: it holds the task's performer role
// (owners manage every role) or is its assignee, and the four-eyes and
// rendez-vous rules let it. It is the check ClaimTask and
// CompleteHumanTask make, so the mayPerform field of the task lists tells
// what a claim would answer. The predicate reads c as it was when
// MayPerform was called; build one per case and ask it for every task.
func MayPerform(def *cmmn.Case, c *Case, actor Actor) func(taskID string) bool {
	if def == nil || c == nil {
		return func(string) bool { return false }
	}
	r := newRun(def, c, actor, Env{Now: c.LastModified})
	return func(taskID string) bool {
		p := r.item(taskID)
		if p == nil || p.Type != string(cmmn.TypeHumanTask) {
			return false
		}
		if !r.actor.HasRole(r.taskRole(p)) && !r.isAssignee(p) {
			return false
		}
		return r.pairing(cmdClaim, p, actor.UserID) == nil
	}
}

// ValidateTaskOutput checks output for the task taskID of c as completing
// it would, without changing c: the actor's right to work on the task
// (performer role or assignee; four-eyes and rendez-vous), that the task
// is Active, and the default validation (JSON, required output
// parameters, value types). It returns nil or an *Error; a task's
// validator service (see TaskValidator) is for the caller to run.
// Expressions in output mappings see the case's last modification as now.
func ValidateTaskOutput(def *cmmn.Case, c *Case, taskID string, output map[string]any, actor Actor) error {
	if def == nil || c == nil {
		return errorf(ErrInvalid, "The case has no definition")
	}
	r := newRun(def, c, actor, Env{Now: c.LastModified})
	p, err := r.performTask(cmdValidate, taskID)
	if err != nil {
		return err
	}
	h := r.humanTaskDef(p)
	if h == nil {
		return errorf(ErrInvalid, "The definition of task %s is missing", p.Name)
	}
	if _, _, err := r.checkOutput(p, h, output); err != nil {
		return err
	}
	return nil
}

// TaskValidator returns the process that validates the output of task
// taskID of c (the workflow's validatorRef), or nil when it has none.
func TaskValidator(def *cmmn.Case, c *Case, taskID string) *cmmn.Process {
	if def == nil || c == nil {
		return nil
	}
	p := c.PlanItem(taskID)
	if p == nil {
		return nil
	}
	item := def.PlanItem(p.DefinitionID)
	if item == nil {
		return nil
	}
	if h, ok := item.Definition().(*cmmn.HumanTask); ok {
		return h.Workflow().Validator()
	}
	return nil
}
