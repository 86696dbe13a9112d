package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
	"github.com/casegraph/casegraph/engine/cmmn"
)

// taskCommand runs a workflow command on a task of a case the caller is in
// the team of; anyone else gets the very NotFound an unknown task id gets.
// A command that changes nothing (claiming one's own task) succeeds.
func (s *Service) taskCommand(ctx context.Context, op string, who auth.Identity, taskID string, cmd engine.Command) (LastModified, error) {
	who = s.commandIdentity(who)
	tc, err := s.taskCaseForCommand(ctx, op, who, taskID)
	if err != nil {
		return LastModified{}, err
	}
	caseID := tc.CaseID
	lm, err := s.caseCommandOr(ctx, op, who, caseID, TaskNotFound(op, taskID), caseReadOf(tc), cmd)
	return unchangedIsDone(lm, err)
}

// unchangedIsDone answers a task command that changed nothing (claiming
// one's own task) as done, with the case's last change that caseChangeOr
// returns beside NotModified.
func unchangedIsDone(lm LastModified, err error) (LastModified, error) {
	if KindOf(err) == NotModified {
		return lm, nil
	}
	return lm, err
}

// taskCaseForCommand finds the case of a task for a command on it. A
// caller with a user row in the case's team, the common case, is confirmed
// by the same key lookup: the command checks the rest (a disabled account,
// the task's role), answering with the task's NotFound (memberCaseOr). On
// PostgreSQL the lookup also reads that caller's case and account, which
// the command starts from (caseChange). Anyone else goes through the whole
// membership query first, so that an outsider is refused before the
// command reads the case or takes its lock.
// The case's definition hash comes with it (empty after the whole query).
func (s *Service) taskCaseForCommand(ctx context.Context, op string, who auth.Identity, taskID string) (db.TaskCaseRead, error) {
	var (
		tc  db.TaskCaseRead
		err error
	)
	if s.db.Flavor == db.Postgres {
		tc, err = db.TaskCaseWithCase(ctx, s.db, who.UserID, taskID)
	} else {
		// SQLite's commands read the case in their transaction.
		tc.TaskCaseRef, err = db.TaskCaseOfMember(ctx, s.db, who.UserID, taskID)
	}
	switch {
	case errors.Is(err, db.ErrNotFound):
		return db.TaskCaseRead{}, TaskNotFound(op, taskID)
	case err != nil:
		return db.TaskCaseRead{}, wrap(op, err)
	case tc.Member:
		return tc, nil
	}
	caseID, err := s.taskCase(ctx, op, who, taskID)
	return db.TaskCaseRead{TaskCaseRef: db.TaskCaseRef{CaseID: caseID}}, err
}

func (s *Service) taskCase(ctx context.Context, op string, who auth.Identity, taskID string) (string, error) {
	caseID, err := db.TaskCase(ctx, s.db, who.UserID, taskID)
	if errors.Is(err, db.ErrNotFound) {
		return "", s.hidden(ctx, op, who, TaskNotFound(op, taskID), taskCaseOf(taskID))
	}
	return caseID, wrap(op, err)
}

// ClaimTask makes the caller the task's assignee. The caller needs the
// task's performer role (owners manage every role). As in the reference
// engine (since 1.1.32), a task someone else holds is taken over at once.
//
// A client application may not claim, not even on behalf of a user: a
// claim is a person taking work, as in the reference engine's
// TestClientApp.
func (s *Service) ClaimTask(ctx context.Context, who auth.Identity, taskID string) (LastModified, error) {
	const op = "service.ClaimTask"
	if s.isClientApp(who) {
		return LastModified{}, E(op, NotAllowed, msgClientAppClaim)
	}
	return s.taskCommand(ctx, op, who, taskID, engine.ClaimTask{TaskID: taskID})
}

// AssignTask assigns the task to assignee. The caller needs the performer
// role; a non-owner may only assign to a user member holding it, an owner to
// anyone (who then joins the team with the role).
func (s *Service) AssignTask(ctx context.Context, who auth.Identity, taskID, assignee string) (LastModified, error) {
	const op = "service.AssignTask"
	if strings.TrimSpace(assignee) == "" {
		return LastModified{}, E(op, Invalid, "The request content was malformed: assignee is missing")
	}
	if err := s.checkIdentifier(op, "assignee", assignee); err != nil {
		return LastModified{}, err
	}
	return s.taskCommand(ctx, op, who, taskID, engine.AssignTask{TaskID: taskID, Assignee: assignee})
}

// DelegateTask hands the task to assignee, remembering the owner.
func (s *Service) DelegateTask(ctx context.Context, who auth.Identity, taskID, assignee string) (LastModified, error) {
	const op = "service.DelegateTask"
	if strings.TrimSpace(assignee) == "" {
		return LastModified{}, E(op, Invalid, "The request content was malformed: assignee is missing")
	}
	if err := s.checkIdentifier(op, "assignee", assignee); err != nil {
		return LastModified{}, err
	}
	return s.taskCommand(ctx, op, who, taskID, engine.DelegateTask{TaskID: taskID, Assignee: assignee})
}

// RevokeTask takes a delegated task back to its owner, or an assigned one
// back to nobody. The assignee may, even without the role.
func (s *Service) RevokeTask(ctx context.Context, who auth.Identity, taskID string) (LastModified, error) {
	return s.taskCommand(ctx, "service.RevokeTask", who, taskID, engine.RevokeTask{TaskID: taskID})
}

// CompleteTask validates output, claims the task for the caller when it is
// not the assignee, maps the output into the case file and completes the
// task. A task with a validator is checked by it first, outside the
// command's transaction.
func (s *Service) CompleteTask(ctx context.Context, who auth.Identity, taskID string, output map[string]any) (LastModified, error) {
	who = s.commandIdentity(who)
	const op = "service.CompleteTask"
	tc, err := s.taskCaseForCommand(ctx, op, who, taskID)
	if err != nil {
		return LastModified{}, err
	}
	caseID := tc.CaseID
	// A definition without validators spares loading the case to look
	// for the task's (the common case); the command checks the rest.
	pre := caseReadOf(tc)
	if tc.DefinitionHash == "" || s.mayHaveValidator(ctx, tc.DefinitionHash) {
		// A validator takes its time: the command reads the case afresh.
		pre = nil
		result, name, _, err := s.runValidator(ctx, op, who, caseID, taskID, output, false)
		if err != nil {
			return LastModified{}, err
		}
		if len(result) > 0 {
			b, _ := json.Marshal(result)
			return LastModified{}, Ef(op, Invalid, "Output for task %s is invalid\n%s", name, b)
		}
	}
	lm, err := s.caseCommandOr(ctx, op, who, caseID, TaskNotFound(op, taskID), pre, engine.CompleteHumanTask{PlanItemID: taskID, Output: output})
	return unchangedIsDone(lm, err)
}

// SaveTaskOutput stores output on the task without completing it.
func (s *Service) SaveTaskOutput(ctx context.Context, who auth.Identity, taskID string, output map[string]any) (LastModified, error) {
	return s.taskCommand(ctx, "service.SaveTaskOutput", who, taskID, engine.SaveTaskOutput{TaskID: taskID, Output: output})
}

// ValidateTaskOutput checks output the way completing the task would: with
// the task's validator service when it names one (its JSON answer is the
// result; a non-empty object means invalid), else with the default
// validation (an empty result when valid).
func (s *Service) ValidateTaskOutput(ctx context.Context, who auth.Identity, taskID string, output map[string]any) (map[string]any, LastModified, error) {
	const op = "service.ValidateTaskOutput"
	caseID, err := s.taskCase(ctx, op, who, taskID)
	if err != nil {
		return nil, LastModified{}, err
	}
	result, _, lm, err := s.runValidator(ctx, op, who, caseID, taskID, output, true)
	if err != nil {
		return nil, LastModified{}, err
	}
	if result == nil {
		result = map[string]any{}
	}
	return result, lm, nil
}

// mayHaveValidator reports whether a human task of the definition document
// with hash names a validator service; true when it cannot tell.
func (s *Service) mayHaveValidator(ctx context.Context, hash string) bool {
	defs, err := s.storedDefinitions(ctx, s.db, hash)
	if err != nil {
		return true
	}
	for _, c := range defs.Cases() {
		for _, d := range c.PlanItemDefinitions() {
			if h, ok := d.(*cmmn.HumanTask); ok && h.Workflow().Validator() != nil {
				return true
			}
		}
	}
	return false
}

// runValidator calls the task's validator service, if it has one, outside
// of any transaction: a slow validator must not hold database locks. With
// check (validate), it first applies the caller's rights and the default
// validation; complete leaves those to its command. It also returns the
// task's name, for messages, and the case's last modification, which the
// reference engine sends with a validation as with every task action.
func (s *Service) runValidator(ctx context.Context, op string, who auth.Identity, caseID, taskID string, output map[string]any,
	check bool) (map[string]any, string, LastModified, error) {
	var (
		ca  caseAccess
		err error
	)
	if check {
		ca, err = s.memberCase(ctx, s.db, op, who, caseID)
	} else {
		// Completing a task without a validator, the common case, needs
		// only the case to find that out: its command checks the caller's
		// rights, so the account reads wait until a validator is found.
		ca.rec, ca.c, err = db.LoadCase(ctx, s.db, caseID)
		if errors.Is(err, db.ErrNotFound) {
			err = TaskNotFound(op, taskID)
		} else {
			err = wrap(op, err)
		}
	}
	if err != nil {
		return nil, "", LastModified{}, err
	}
	lm := LastModified{At: ca.c.LastModified, ID: caseID}
	def, err := s.caseDefinition(ctx, s.db, ca.rec, ca.c)
	if err != nil {
		return nil, "", lm, wrap(op, err)
	}
	name := taskID
	if task := ca.c.PlanItem(taskID); task != nil {
		name = task.Name
	}
	validator := engine.TaskValidator(def, ca.c, taskID)
	if !check && validator == nil {
		return nil, name, lm, nil
	}
	if !check {
		// Nothing of the task may reach a caller outside the team, not
		// even that it has a validator: the task's NotFound.
		if ca, err = s.memberCaseOr(ctx, s.db, op, who, caseID, TaskNotFound(op, taskID)); err != nil {
			return nil, name, lm, err
		}
	}
	// The rights are checked before the output leaves for a validator.
	if err := engine.ValidateTaskOutput(def, ca.c, taskID, output, ca.actor); err != nil {
		return nil, name, lm, engineError(op, err)
	}
	if validator == nil {
		return nil, name, lm, nil
	}
	metadata := map[string]any{"caseInstanceId": caseID, "taskId": taskID, "taskName": name, "user": who.UserID}
	result, err := s.callValidator(ctx, op, validator, output, metadata)
	if err != nil && !check {
		// Complete answers as the reference engine does, without the
		// validator's own words; the log keeps them.
		s.logger.WarnContext(ctx, "task validator failed", "case", caseID, "task", taskID, "validator", validator.Name(), "err", err)
		return nil, name, lm, Ef(op, Invalid, "Output for task %s could not be validated due to an error", name)
	}
	return result, name, lm, err
}

// callValidator posts the output to the validator's URL and returns its
// JSON answer. Answers outside 2xx and unreachable services are Invalid.
func (s *Service) callValidator(ctx context.Context, op string, p *cmmn.Process, output, metadata map[string]any) (map[string]any, error) {
	impl := p.Implementation()
	if impl == nil || impl.ChildText("url") == "" {
		return nil, Ef(op, Invalid, "The validator %s has no URL", p.Name())
	}
	method := strings.ToUpper(strings.TrimSpace(impl.ChildText("method")))
	if method == "" {
		method = http.MethodPost
	}
	if output == nil {
		output = map[string]any{}
	}
	var body io.Reader
	if method == http.MethodPost || method == http.MethodPut {
		b, err := json.Marshal(map[string]any{"task-output": output, "metadata": metadata})
		if err != nil {
			return nil, Ef(op, Invalid, "The task output cannot be sent to the validator: %v", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSpace(impl.ChildText("url")), body)
	if err != nil {
		return nil, Ef(op, Invalid, "The validator %s has an invalid URL: %v", p.Name(), err)
	}
	req.Header.Set("Content-Type", "application/json")
	if headers := impl.Child("http-headers"); headers != nil {
		for _, h := range headers.Children() {
			if name := h.Attr("name"); name != "" {
				req.Header.Set(name, strings.TrimSpace(h.Text()))
			}
		}
	}
	resp, err := s.httpClient.Do(req)
	if err != nil {
		return nil, Ef(op, Invalid, "The validator %s could not be reached: %v", p.Name(), err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, Ef(op, Invalid, "The validator %s failed: %v", p.Name(), err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// The reference engine's words; the answer's body stays out of a
		// message its caller sees.
		return nil, Ef(op, Invalid, "Unexpected http response code %d", resp.StatusCode)
	}
	result := map[string]any{}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &result); err != nil {
			return nil, Ef(op, Invalid, "The validator %s did not answer a JSON object: %v", p.Name(), err)
		}
	}
	return result, nil
}

// DiscretionaryItem is an item a team member may plan into a case now.
type DiscretionaryItem = engine.DiscretionaryItem

// DiscretionaryItems returns what the caller may plan into a case now.
func (s *Service) DiscretionaryItems(ctx context.Context, who auth.Identity, caseID string) (CaseRecord, []DiscretionaryItem, error) {
	const op = "service.DiscretionaryItems"
	ca, err := s.memberCase(ctx, s.db, op, who, caseID)
	if err != nil {
		return CaseRecord{}, nil, err
	}
	items, err := s.DiscretionaryItemsOf(ctx, CaseView{Record: ca.rec, State: ca.c, Actor: ca.actor})
	return ca.rec, items, err
}

// DiscretionaryItemsOf returns what the caller may plan into a case it
// already has (from LoadCases, with its Actor): no SQL while the case's
// definition is cached.
func (s *Service) DiscretionaryItemsOf(ctx context.Context, v CaseView) ([]DiscretionaryItem, error) {
	def, err := s.caseDefinition(ctx, s.db, v.Record, v.State)
	if err != nil {
		return nil, wrap("service.DiscretionaryItemsOf", err)
	}
	items := engine.DiscretionaryItems(def, v.State, v.Actor)
	if items == nil {
		items = []DiscretionaryItem{}
	}
	return items, nil
}

// PlanDiscretionaryItem plans a discretionary item under a stage or human
// task; it returns the new plan item's id.
func (s *Service) PlanDiscretionaryItem(ctx context.Context, who auth.Identity, caseID string, cmd engine.PlanDiscretionaryItem) (string, LastModified, error) {
	who = s.commandIdentity(who)
	const op = "service.PlanDiscretionaryItem"
	if cmd.PlanItemID == "" {
		cmd.PlanItemID = newPlanItemID()
	} else if err := validActorID(cmd.PlanItemID); err != nil {
		return "", LastModified{}, Ef(op, Invalid, "Invalid plan item id '%s': %v", cmd.PlanItemID, err)
	} else if taken, err := db.PlanItemExists(ctx, s.db, cmd.PlanItemID); err != nil || taken {
		// Ids are unique across cases (the unique index is the last word
		// when two plans race); say so as the reference engine does.
		if err != nil {
			return "", LastModified{}, wrap(op, err)
		}
		return "", LastModified{}, Ef(op, Invalid, "Cannot plan a discretionary item named '%s' with the specified id %s, because the case already has a plan item with that id",
			cmd.Name, cmd.PlanItemID)
	}
	lm, err := s.caseCommand(ctx, op, who, caseID, cmd)
	return cmd.PlanItemID, lm, err
}

// PlanRequest is a request to plan a discretionary item.
type PlanRequest = engine.PlanDiscretionaryItem
