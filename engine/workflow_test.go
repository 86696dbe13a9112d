package engine

import (
	"slices"
	"strings"
	"testing"
)

// The members of the workflow tests' team: alice owns the case, bob and
// dave hold the Worker role, erin the Approver role, carol none.
var (
	wAlice = Actor{UserID: "alice", IsOwner: true}
	wBob   = Actor{UserID: "bob", Roles: []string{"Worker"}}
	wCarol = Actor{UserID: "carol"}
	wDave  = Actor{UserID: "dave", Roles: []string{"Worker"}}
	wErin  = Actor{UserID: "erin", Roles: []string{"Approver"}}
)

func workflowTeam() Team {
	return Team{Members: []Member{
		{ID: "alice", Type: UserMember, IsOwner: true, CaseRoles: []string{}},
		{ID: "bob", Type: UserMember, CaseRoles: []string{"Worker"}},
		{ID: "carol", Type: UserMember, CaseRoles: []string{}},
		{ID: "dave", Type: UserMember, CaseRoles: []string{"Worker"}},
		{ID: "erin", Type: UserMember, CaseRoles: []string{"Approver"}},
		{ID: "Workers", Type: RoleMember, CaseRoles: []string{"Worker"}},
	}}
}

// startTeam starts a case of model name, by alice, with team.
func startTeam(t testing.TB, name string, team Team) *tc {
	t.Helper()
	x := &tc{t: t, def: model(t, name), now: t0}
	c, events, err := Start(x.def, StartCase{ID: "case-1", Tenant: "world", Team: team}, wAlice, x.env())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	x.c, x.events = c, events
	checkEvents(t, c, events)
	return x
}

// taskStep is a workflow command on the newest task called task. Its
// expected error message may hold {id}, the task's id; an empty message
// means the step must succeed.
type taskStep struct {
	as     Actor
	id     string // the task's id, when not that of task
	cmd    string // claim, assign, delegate, revoke, complete, save, validate, or finish (MakeTransition complete)
	task   string
	to     string // assignee or delegate
	output map[string]any
	err    ErrorKind
	msg    string
}

func (x *tc) command(s taskStep) Command {
	x.t.Helper()
	id := x.taskID(s)
	switch s.cmd {
	case "claim":
		return ClaimTask{TaskID: id}
	case "assign":
		return AssignTask{TaskID: id, Assignee: s.to}
	case "delegate":
		return DelegateTask{TaskID: id, Assignee: s.to}
	case "revoke":
		return RevokeTask{TaskID: id}
	case "complete":
		return CompleteHumanTask{PlanItemID: id, Output: s.output}
	case "save":
		return SaveTaskOutput{TaskID: id, Output: s.output}
	case "finish":
		return MakeTransition{PlanItem: id, Transition: Complete}
	}
	x.t.Fatalf("unknown step %q", s.cmd)
	return nil
}

func (x *tc) taskID(s taskStep) string {
	x.t.Helper()
	if s.id != "" {
		return s.id
	}
	return x.item(s.task).ID
}

// step runs s and checks its outcome.
func (x *tc) step(s taskStep) {
	x.t.Helper()
	id := x.taskID(s)
	want := strings.ReplaceAll(s.msg, "{id}", id)
	if s.cmd == "validate" {
		err := ValidateTaskOutput(x.def, x.c, id, s.output, s.as)
		switch {
		case want == "" && err != nil:
			x.t.Errorf("%s validates %s: %v", s.as.UserID, s.task, err)
		case want != "":
			if e := asError(x.t, err); e.Kind != s.err || e.Msg != want {
				x.t.Errorf("%s validates %s: error %d %q, want %d %q", s.as.UserID, s.task, e.Kind, e.Msg, s.err, want)
			}
		}
		return
	}
	cmd := x.command(s)
	if want == "" {
		x.do(cmd, s.as)
		return
	}
	if e := x.fail(cmd, s.as); e.Kind != s.err || e.Msg != want {
		x.t.Errorf("%s %s %s: error %d %q, want %d %q", s.as.UserID, s.cmd, s.task, e.Kind, e.Msg, s.err, want)
	}
}

// outcome is what a task must look like after a workflow command.
type outcome struct {
	state           TaskState
	assignee, owner string
	events          []string // of the command
	output          bool     // whether the output was saved
	active          bool     // whether the plan item is still Active
}

// check checks the newest task called name and the last command's events.
func (x *tc) check(name string, want outcome) {
	x.t.Helper()
	p := x.item(name)
	task := p.Task
	if task.State != want.state || task.Assignee != want.assignee || task.Owner != want.owner {
		x.t.Errorf("task is %s to %q owned by %q, want %s to %q owned by %q", task.State, task.Assignee, task.Owner,
			want.state, want.assignee, want.owner)
	}
	if got := eventTypesOf(x.events); !slices.Equal(got, want.events) {
		x.t.Errorf("events %v, want %v", got, want.events)
	}
	if got := task.Output["note"] != nil; got != want.output {
		x.t.Errorf("output %v", task.Output)
	}
	if got := p.State == Active; got != want.active {
		x.t.Errorf("plan item is %s", p.State)
	}
}

const (
	noPerm   = "[{id}]: You do not have permission to perform this operation"
	claimed  = "HumanTaskClaimed"
	owner    = "HumanTaskOwnerChanged"
	modified = "CaseModified"
)

// Preparations of the task Work: unassigned as activated, claimed by bob,
// or claimed by bob and delegated to carol, who lacks the Worker role.
var (
	unassigned []taskStep
	byBob      = []taskStep{{as: wBob, cmd: "claim", task: "Work"}}
	toCarol    = []taskStep{{as: wBob, cmd: "claim", task: "Work"}, {as: wBob, cmd: "delegate", task: "Work", to: "carol"}}
)

// TestTaskWorkflow runs every workflow command on the task Work by a
// member without the role (carol), with it (bob, dave), an assignee
// without it (carol as delegate) and an owner (alice), in each workflow
// state; the first rows are the seed's table (§3).
func TestTaskWorkflow(t *testing.T) {
	out := map[string]any{"note": "half done"}
	tests := []struct {
		name string
		prep []taskStep
		step taskStep
		want *outcome // nil when the step fails
	}{
		// The seed's sequence.
		{"claim by a role holder", unassigned, taskStep{as: wBob, cmd: "claim"},
			&outcome{Assigned, "bob", "bob", []string{claimed, owner, modified}, false, true}},
		{"assign by a role holder", unassigned, taskStep{as: wBob, cmd: "assign", to: "dave"},
			&outcome{Assigned, "dave", "dave", []string{"HumanTaskAssigned", owner, modified}, false, true}},
		{"revoke by the assignee", byBob, taskStep{as: wBob, cmd: "revoke"},
			&outcome{Unassigned, "", "", []string{"HumanTaskRevoked", owner, modified}, false, true}},
		{"delegate by the assignee remembers the owner", byBob, taskStep{as: wBob, cmd: "delegate", to: "carol"},
			&outcome{Delegated, "carol", "bob", []string{"HumanTaskDelegated", modified}, false, true}},
		{"revoke by the delegate gives it back", toCarol, taskStep{as: wCarol, cmd: "revoke"},
			&outcome{Assigned, "bob", "bob", []string{"HumanTaskRevoked", modified}, false, true}},
		{"complete by the assignee", byBob, taskStep{as: wBob, cmd: "complete"},
			&outcome{TaskCompleted, "bob", "bob", []string{"PlanItemTransitioned", "HumanTaskCompleted", modified}, false, false}},
		{"save keeps the state", byBob, taskStep{as: wBob, cmd: "save", output: out},
			&outcome{Assigned, "bob", "bob", []string{"HumanTaskOutputSaved", modified}, true, true}},

		// claim
		{"claim needs the role", unassigned, taskStep{as: wCarol, cmd: "claim", err: ErrNotAllowed, msg: "ClaimTask" + noPerm}, nil},
		{"claim by a delegate without the role", toCarol, taskStep{as: wCarol, cmd: "claim", err: ErrNotAllowed, msg: "ClaimTask" + noPerm}, nil},
		{"claim of one's own task changes nothing", byBob, taskStep{as: wBob, cmd: "claim", err: ErrNoEffect,
			msg: "ClaimTask[{id}]: The task is already assigned to you"}, nil},
		{"claim of someone else's task", byBob, taskStep{as: wDave, cmd: "claim"},
			&outcome{Assigned, "dave", "dave", []string{claimed, owner, modified}, false, true}},
		{"claim by an owner", toCarol, taskStep{as: wAlice, cmd: "claim"},
			&outcome{Assigned, "alice", "alice", []string{claimed, owner, modified}, false, true}},
		{"claim of a task delegated to oneself", toCarol, taskStep{as: Actor{UserID: "carol", Roles: []string{"Worker"}}, cmd: "claim"},
			&outcome{Assigned, "carol", "carol", []string{claimed, owner, modified}, false, true}},

		// assign
		{"assign needs the role", unassigned, taskStep{as: wCarol, cmd: "assign", to: "bob", err: ErrNotAllowed, msg: "AssignTask" + noPerm}, nil},
		{"assign by a delegate without the role", toCarol, taskStep{as: wCarol, cmd: "assign", to: "dave", err: ErrNotAllowed, msg: "AssignTask" + noPerm}, nil},
		{"assign to a member without the role", unassigned, taskStep{as: wBob, cmd: "assign", to: "carol", err: ErrNotAllowed,
			msg: "AssignTask[{id}]: The case team member with id 'carol' does not have the case role Worker"}, nil},
		{"assign to a stranger", unassigned, taskStep{as: wBob, cmd: "assign", to: "zed", err: ErrInvalid,
			msg: "AssignTask[{id}]: There is no case team member with id 'zed'"}, nil},
		{"assign to a role membership", unassigned, taskStep{as: wBob, cmd: "assign", to: "Workers", err: ErrInvalid,
			msg: "AssignTask[{id}]: There is no case team member with id 'Workers'"}, nil},
		{"assign to an owner without the role", unassigned, taskStep{as: wBob, cmd: "assign", to: "alice"},
			&outcome{Assigned, "alice", "alice", []string{"HumanTaskAssigned", owner, modified}, false, true}},
		{"assign someone else's task", byBob, taskStep{as: wDave, cmd: "assign", to: "dave"},
			&outcome{Assigned, "dave", "dave", []string{"HumanTaskAssigned", owner, modified}, false, true}},
		{"assign to the assignee changes nothing", byBob, taskStep{as: wDave, cmd: "assign", to: "bob", err: ErrNoEffect,
			msg: "AssignTask[{id}]: The task is already assigned to bob"}, nil},
		{"assign without an assignee", unassigned, taskStep{as: wBob, cmd: "assign", err: ErrInvalid, msg: "AssignTask[{id}]: The assignee is missing"}, nil},
		{"owner assigns to a stranger", unassigned, taskStep{as: wAlice, cmd: "assign", to: "zed"},
			&outcome{Assigned, "zed", "zed", []string{"CaseTeamMemberSet", "HumanTaskAssigned", owner, modified}, false, true}},
		{"owner assigns to a member without the role", unassigned, taskStep{as: wAlice, cmd: "assign", to: "carol"},
			&outcome{Assigned, "carol", "carol", []string{"CaseTeamMemberSet", "HumanTaskAssigned", owner, modified}, false, true}},
		{"owner assigns to a role holder", unassigned, taskStep{as: wAlice, cmd: "assign", to: "dave"},
			&outcome{Assigned, "dave", "dave", []string{"HumanTaskAssigned", owner, modified}, false, true}},

		// delegate
		{"delegate needs the role", byBob, taskStep{as: wCarol, cmd: "delegate", to: "dave", err: ErrNotAllowed, msg: "DelegateTask" + noPerm}, nil},
		{"a delegate without the role cannot pass it on", toCarol, taskStep{as: wCarol, cmd: "delegate", to: "dave", err: ErrNotAllowed,
			msg: "DelegateTask" + noPerm}, nil},
		{"delegate to a stranger", byBob, taskStep{as: wBob, cmd: "delegate", to: "zed", err: ErrInvalid,
			msg: "DelegateTask[{id}]: There is no case team member with id 'zed'"}, nil},
		{"delegate without a delegate", byBob, taskStep{as: wBob, cmd: "delegate", err: ErrInvalid, msg: "DelegateTask[{id}]: The delegate is missing"}, nil},
		{"delegate twice to the same", toCarol, taskStep{as: wBob, cmd: "delegate", to: "carol", err: ErrNoEffect,
			msg: "DelegateTask[{id}]: The task is already delegated to carol"}, nil},
		{"delegate someone else's task", byBob, taskStep{as: wDave, cmd: "delegate", to: "erin"},
			&outcome{Delegated, "erin", "bob", []string{"HumanTaskDelegated", modified}, false, true}},
		{"re-delegate keeps the owner", toCarol, taskStep{as: wBob, cmd: "delegate", to: "dave"},
			&outcome{Delegated, "dave", "bob", []string{"HumanTaskDelegated", modified}, false, true}},
		{"delegate an unassigned task lends it from the delegator", unassigned, taskStep{as: wBob, cmd: "delegate", to: "carol"},
			&outcome{Delegated, "carol", "bob", []string{"HumanTaskDelegated", owner, modified}, false, true}},
		{"owner delegates to a stranger", byBob, taskStep{as: wAlice, cmd: "delegate", to: "zed"},
			&outcome{Delegated, "zed", "bob", []string{"CaseTeamMemberSet", "HumanTaskDelegated", modified}, false, true}},

		// revoke
		{"revoke needs the role or the task", byBob, taskStep{as: wCarol, cmd: "revoke", err: ErrNotAllowed, msg: "RevokeTask" + noPerm}, nil},
		{"revoke of an unassigned task changes nothing", unassigned, taskStep{as: wBob, cmd: "revoke", err: ErrNoEffect,
			msg: "RevokeTask[{id}]: The task is not assigned to anyone"}, nil},
		{"revoke by the owner of a delegated task", toCarol, taskStep{as: wBob, cmd: "revoke"},
			&outcome{Assigned, "bob", "bob", []string{"HumanTaskRevoked", modified}, false, true}},
		{"revoke someone else's task", byBob, taskStep{as: wDave, cmd: "revoke"},
			&outcome{Unassigned, "", "", []string{"HumanTaskRevoked", owner, modified}, false, true}},
		{"revoke by a case owner", byBob, taskStep{as: wAlice, cmd: "revoke"},
			&outcome{Unassigned, "", "", []string{"HumanTaskRevoked", owner, modified}, false, true}},

		// complete
		{"complete needs the role or the task", unassigned, taskStep{as: wCarol, cmd: "complete", err: ErrNotAllowed,
			msg: "CompleteHumanTask" + noPerm}, nil},
		{"complete an unassigned task claims it first", unassigned, taskStep{as: wBob, cmd: "complete"},
			&outcome{TaskCompleted, "bob", "bob", []string{claimed, owner, "PlanItemTransitioned", "HumanTaskCompleted", modified}, false, false}},
		{"complete by a delegate without the role", toCarol, taskStep{as: wCarol, cmd: "complete"},
			&outcome{TaskCompleted, "carol", "bob", []string{"PlanItemTransitioned", "HumanTaskCompleted", modified}, false, false}},
		{"complete someone else's task claims it", byBob, taskStep{as: wDave, cmd: "complete"},
			&outcome{TaskCompleted, "dave", "dave", []string{claimed, owner, "PlanItemTransitioned", "HumanTaskCompleted", modified}, false, false}},
		{"an owner completes someone else's task", toCarol, taskStep{as: wAlice, cmd: "complete"},
			&outcome{TaskCompleted, "alice", "alice", []string{claimed, owner, "PlanItemTransitioned", "HumanTaskCompleted", modified}, false, false}},
		{"complete through the plan claims too", unassigned, taskStep{as: wDave, cmd: "finish"},
			&outcome{TaskCompleted, "dave", "dave", []string{claimed, owner, "PlanItemTransitioned", "HumanTaskCompleted", modified}, false, false}},
		{"complete through the plan needs the role", unassigned, taskStep{as: wCarol, cmd: "finish", err: ErrInvalid,
			msg: "You do not have the permission to perform the task Work"}, nil},
		{"complete through the plan by a delegate", toCarol, taskStep{as: wCarol, cmd: "finish"},
			&outcome{TaskCompleted, "carol", "bob", []string{"PlanItemTransitioned", "HumanTaskCompleted", modified}, false, false}},

		// save
		{"save needs the role or the task", byBob, taskStep{as: wCarol, cmd: "save", output: out, err: ErrNotAllowed, msg: "SaveHumanTaskOutput" + noPerm}, nil},
		{"save on an unassigned task", unassigned, taskStep{as: wDave, cmd: "save", output: out},
			&outcome{Unassigned, "", "", []string{"HumanTaskOutputSaved", modified}, true, true}},
		{"save by a delegate without the role", toCarol, taskStep{as: wCarol, cmd: "save", output: out},
			&outcome{Delegated, "carol", "bob", []string{"HumanTaskOutputSaved", modified}, true, true}},
		{"save on someone else's task", byBob, taskStep{as: wAlice, cmd: "save", output: out},
			&outcome{Assigned, "bob", "bob", []string{"HumanTaskOutputSaved", modified}, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := startTeam(t, "workflow", workflowTeam())
			for _, s := range tt.prep {
				x.step(s)
			}
			s := tt.step
			s.task = "Work"
			x.step(s)
			if s.msg == "" {
				x.check("Work", *tt.want)
			}
		})
	}
}

// TestTaskStates checks the state preconditions: a task must be alive,
// and in workflow state Unassigned, Assigned or Delegated; completing and
// saving also need it Active.
func TestTaskStates(t *testing.T) {
	suspend := MakeTransition{PlanItem: "Work", Transition: Suspend}
	notActive := "[{id}]: Cannot be done because the task is not Active but "
	tests := []struct {
		name  string
		prep  []Command
		steps []taskStep
	}{
		{"suspended", []Command{suspend}, []taskStep{
			{as: wBob, cmd: "claim", msg: "ClaimTask" + notActive + "Suspended"},
			{as: wBob, cmd: "assign", to: "dave", msg: "AssignTask" + notActive + "Suspended"},
			{as: wBob, cmd: "delegate", to: "carol", msg: "DelegateTask" + notActive + "Suspended"},
			{as: wBob, cmd: "revoke", msg: "RevokeTask" + notActive + "Suspended"},
			{as: wBob, cmd: "complete", msg: "CompleteHumanTask" + notActive + "Suspended"},
			{as: wBob, cmd: "save", msg: "SaveHumanTaskOutput" + notActive + "Suspended"},
			{as: wBob, cmd: "validate", msg: "ValidateTaskOutput" + notActive + "Suspended"},
			{as: wCarol, cmd: "claim", err: ErrNotAllowed, msg: "ClaimTask" + noPerm},
		}},
		{"completed", []Command{CompleteHumanTask{PlanItemID: "Work"}}, []taskStep{
			{as: wBob, cmd: "claim", msg: "ClaimTask cannot be done because task Work ({id}) is in state Completed"},
			{as: wAlice, cmd: "assign", to: "dave", msg: "AssignTask cannot be done because task Work ({id}) is in state Completed"},
			{as: wBob, cmd: "delegate", to: "dave", msg: "DelegateTask cannot be done because task Work ({id}) is in state Completed"},
			{as: wBob, cmd: "revoke", msg: "RevokeTask cannot be done because task Work ({id}) is in state Completed"},
			{as: wBob, cmd: "complete", msg: "CompleteHumanTask cannot be done because task Work ({id}) is in state Completed"},
			{as: wBob, cmd: "save", msg: "SaveHumanTaskOutput cannot be done because task Work ({id}) is in state Completed"},
			{as: wBob, cmd: "validate", msg: "ValidateTaskOutput cannot be done because task Work ({id}) is in state Completed"},
		}},
		{"terminated", []Command{MakeTransition{PlanItem: "Work", Transition: Terminate}}, []taskStep{
			{as: wBob, cmd: "claim", msg: "ClaimTask cannot be done because task Work ({id}) is in state Terminated"},
			{as: wCarol, cmd: "claim", msg: "ClaimTask cannot be done because task Work ({id}) is in state Terminated"},
		}},
		{"failed tasks are alive but cannot complete", []Command{MakeTransition{PlanItem: "Work", Transition: Fault}}, []taskStep{
			{as: wBob, cmd: "claim"},
			{as: wBob, cmd: "complete", msg: "CompleteHumanTask cannot be done because task Work ({id}) is in state Failed"},
			{as: wBob, cmd: "save", msg: "SaveHumanTaskOutput cannot be done because task Work ({id}) is in state Failed"},
			{as: wBob, cmd: "revoke"},
		}},
		{"a task waiting for a manual start has no workflow yet", nil, []taskStep{
			{as: wBob, cmd: "claim", task: "Later", msg: "ClaimTask" + notActive + "Null"},
			{as: wBob, cmd: "complete", task: "Later", msg: "CompleteHumanTask" + notActive + "Null"},
			{as: wCarol, cmd: "claim", task: "Later", err: ErrNotAllowed, msg: "ClaimTask" + noPerm},
		}},
		{"unknown tasks", nil, []taskStep{
			{as: wBob, cmd: "claim", id: "nope", err: ErrNotFound, msg: "A task with id 'nope' cannot be found."},
			{as: wBob, cmd: "complete", id: "nope", err: ErrNotFound, msg: "A task with id 'nope' cannot be found."},
			{as: wBob, cmd: "validate", id: "nope", err: ErrNotFound, msg: "A task with id 'nope' cannot be found."},
			{as: wAlice, cmd: "revoke", id: "case-1", err: ErrNotFound, msg: "A task with id 'case-1' cannot be found."},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := startTeam(t, "workflow", workflowTeam())
			for _, cmd := range tt.prep {
				if c, ok := cmd.(CompleteHumanTask); ok {
					cmd = CompleteHumanTask{PlanItemID: x.item(c.PlanItemID).ID}
				}
				x.do(cmd, wAlice)
			}
			for _, s := range tt.steps {
				if s.task == "" {
					s.task = "Work"
				}
				x.step(s)
			}
		})
	}
}

// TestTaskWorkflowResumes checks that a suspended task comes back in the
// workflow state it had.
func TestTaskWorkflowResumes(t *testing.T) {
	x := startTeam(t, "workflow", workflowTeam())
	for _, s := range toCarol {
		x.step(s)
	}
	x.do(MakeTransition{PlanItem: "Work", Transition: Suspend}, wAlice)
	x.do(MakeTransition{PlanItem: "Work", Transition: Resume}, wAlice)
	if task := x.item("Work").Task; task.State != Delegated || task.Assignee != "carol" || task.Owner != "bob" {
		t.Errorf("resumed task is %s to %q owned by %q", task.State, task.Assignee, task.Owner)
	}
}

// TestTaskTeam checks how assigning and delegating change the team: an
// owner's assignee joins with the performer role (unless an owner or
// holding it), an owner's delegate joins without roles, and nobody else
// changes the team.
func TestTaskTeam(t *testing.T) {
	tests := []struct {
		name   string
		as     Actor
		cmd    string
		task   string
		to     string
		member *Member // the member afterwards; nil when the team must not change
	}{
		{"owner assigns to a stranger", wAlice, "assign", "Work", "zed", &Member{ID: "zed", Type: UserMember, CaseRoles: []string{"Worker"}}},
		{"owner assigns to a member without the role", wAlice, "assign", "Work", "carol", &Member{ID: "carol", Type: UserMember, CaseRoles: []string{"Worker"}}},
		{"owner assigns to a role holder", wAlice, "assign", "Work", "dave", nil},
		{"owner assigns to an owner", wAlice, "assign", "Work", "alice", nil},
		{"owner assigns a task without role", wAlice, "assign", "Open", "zed", &Member{ID: "zed", Type: UserMember, CaseRoles: []string{}}},
		{"owner delegates to a stranger", wAlice, "delegate", "Work", "zed", &Member{ID: "zed", Type: UserMember, CaseRoles: []string{}}},
		{"owner delegates to a member", wAlice, "delegate", "Work", "carol", nil},
		{"member assigns", wBob, "assign", "Work", "dave", nil},
		{"member delegates", wBob, "delegate", "Work", "carol", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := startTeam(t, "workflow", workflowTeam())
			x.step(taskStep{as: tt.as, cmd: tt.cmd, task: tt.task, to: tt.to})
			var set []Member
			for _, e := range x.events {
				if m, ok := e.Payload.(CaseTeamMemberSet); ok {
					set = append(set, m.Member)
				}
			}
			if tt.member == nil {
				if len(set) > 0 || !slices.EqualFunc(x.c.Team.Members, workflowTeam().Members, equalMember) {
					t.Errorf("team changed: %+v", x.c.Team.Members)
				}
				return
			}
			i := slices.IndexFunc(x.c.Team.Members, func(m Member) bool { return m.ID == tt.to })
			if i < 0 || !equalMember(x.c.Team.Members[i], *tt.member) {
				t.Fatalf("team %+v, want member %+v", x.c.Team.Members, *tt.member)
			}
			if len(set) != 1 || !equalMember(set[0], *tt.member) {
				t.Errorf("CaseTeamMemberSet events %+v", set)
			}
		})
	}
}

func equalMember(a, b Member) bool {
	return a.ID == b.ID && a.Type == b.Type && a.IsOwner == b.IsOwner && a.Origin == b.Origin && slices.Equal(a.CaseRoles, b.CaseRoles)
}
