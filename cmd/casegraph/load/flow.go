package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// caseQuery is the nested read a front end makes of one case: its file,
// team with member accounts, plan items and tasks.
const caseQuery = `query LoadCase($id: ID!) {
  case(id: $id) {
    id state caseFile
    team { members { memberId isOwner caseRoles user { userId roles } } unassignedRoles }
    planItems { id name type state stage { id } }
    tasks { id name state assignee mayPerform planItem { id } }
  }
}`

// inboxQuery is a user's first page of unassigned tasks with their cases.
const inboxQuery = `query LoadInbox($tenant: String) {
  tasks(filter: {tenant: $tenant, states: [UNASSIGNED]}, first: 20) {
    edges { node { id name state case { id name state } } }
  }
}`

// flow is one user's round: start a case as its owner and Worker, read it,
// add the partner user to its team, look at both inboxes, then claim, save
// and complete its Review task. A step that fails ends the flow: the next
// ones would fail for its sake, not on their own. It reports whether every
// step succeeded.
func (r *runner) flow(ctx context.Context, u *user) bool {
	caseID, ok := r.startCase(ctx, u)
	if !ok {
		return false
	}

	var review string
	ok = r.step(ctx, OpCaseRead, func() error {
		var data struct {
			Case *struct {
				Tasks []struct{ ID, Name, State string }
			}
		}
		if err := r.graphql(ctx, u, caseQuery, map[string]any{"id": caseID}, &data); err != nil {
			return err
		}
		if data.Case == nil {
			return fmt.Errorf("case %s not found by its owner", caseID)
		}
		for _, t := range data.Case.Tasks {
			if t.Name == "Review" && t.State == "UNASSIGNED" {
				review = t.ID
			}
		}
		if review == "" {
			return fmt.Errorf("case %s has no unassigned Review task", caseID)
		}
		return nil
	})
	if !ok {
		return false
	}

	ok = r.step(ctx, OpTeamChange, func() error {
		_, err := r.call(ctx, u, "POST", "/cases/"+caseID+"/caseteam/users",
			map[string]any{"userId": u.partner, "caseRoles": []string{"Worker"}}, http.StatusOK)
		if err == nil {
			r.ack(Ack{Op: OpTeamChange, CaseID: caseID, User: u.partner})
		}
		return err
	})
	if !ok {
		return false
	}
	inboxes := r.step(ctx, OpInboxREST, func() error {
		body, err := r.call(ctx, u, "GET", "/tasks?tenant="+r.tenant+"&taskState=Unassigned&numberOfResults=20", nil, http.StatusOK)
		if err != nil {
			return err
		}
		var tasks []json.RawMessage
		if err := json.Unmarshal(body, &tasks); err != nil {
			return fmt.Errorf("inbox is not a JSON array: %s", trim(body))
		}
		return nil
	})
	graphInbox := r.step(ctx, OpInboxGraph, func() error {
		var data struct {
			Tasks struct{ Edges []json.RawMessage }
		}
		return r.graphql(ctx, u, inboxQuery, map[string]any{"tenant": r.tenant}, &data)
	})

	if !r.claimComplete(ctx, u, readyTask{caseID: caseID, taskID: review}, true) {
		return false
	}
	return inboxes && graphInbox
}

// step times one operation and records it. A request cut off because the
// run ended is not counted, neither as done nor as an error.
func (r *runner) step(ctx context.Context, op string, do func() error) bool {
	if ctx.Err() != nil {
		return false
	}
	start := time.Now()
	err := do()
	if err != nil && ctx.Err() != nil {
		return false
	}
	r.stats.record(op, time.Since(start), err)
	return err == nil
}

func (r *runner) ack(a Ack) {
	if r.cfg.OnAck != nil {
		r.cfg.OnAck(a)
	}
}

// graphql posts a query as u and decodes its data into out; any error in
// the answer fails it.
func (r *runner) graphql(ctx context.Context, u *user, query string, vars map[string]any, out any) error {
	body, err := r.call(ctx, u, "POST", "/graphql", map[string]any{"query": query, "variables": vars}, http.StatusOK)
	if err != nil {
		return err
	}
	var resp struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return fmt.Errorf("GraphQL answer is not JSON: %s", trim(body))
	}
	if len(resp.Errors) > 0 {
		return errors.New("GraphQL: " + resp.Errors[0].Message)
	}
	return json.Unmarshal(resp.Data, out)
}
