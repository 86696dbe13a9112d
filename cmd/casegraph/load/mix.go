package load

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
)

// readyTask is a pre-started case's Review task.
type readyTask struct{ caseID, taskID string }

// mixFlow runs one flow of the configured mix.
func (r *runner) mixFlow(ctx context.Context, u *user) bool {
	switch r.cfg.Mix {
	case MixStart:
		_, ok := r.startCase(ctx, u)
		return ok
	case MixClaimComplete:
		t := u.ready[0]
		u.ready = u.ready[1:]
		return r.claimComplete(ctx, u, t, false)
	}
	return r.flow(ctx, u)
}

// startCase starts a case as u, its owner and Worker, and answers its id.
func (r *runner) startCase(ctx context.Context, u *user) (string, bool) {
	var id string
	ok := r.step(ctx, OpStartCase, func() (err error) {
		id, err = r.postCase(ctx, u)
		return err
	})
	return id, ok
}

// postCase starts a case as u, its owner and Worker, and acknowledges it.
func (r *runner) postCase(ctx context.Context, u *user) (string, error) {
	body, err := r.call(ctx, u, "POST", "/cases", map[string]any{
		"definition": Definition, "tenant": r.tenant, "inputs": map[string]any{},
		"caseTeam": map[string]any{"users": []map[string]any{
			{"userId": u.id, "isOwner": true, "caseRoles": []string{"Worker"}},
		}},
	}, http.StatusOK)
	if err != nil {
		return "", err
	}
	var started struct {
		CaseInstanceID string `json:"caseInstanceId"`
	}
	if err := json.Unmarshal(body, &started); err != nil || started.CaseInstanceID == "" {
		return "", fmt.Errorf("start case answered %s", trim(body))
	}
	r.ack(Ack{Op: OpStartCase, CaseID: started.CaseInstanceID})
	return started.CaseInstanceID, nil
}

// claimComplete claims the task, saves its output when save is set, and
// completes it, as u.
func (r *runner) claimComplete(ctx context.Context, u *user, t readyTask, save bool) bool {
	steps := []struct {
		op, method, path string
		body             any
	}{
		{OpClaim, "PUT", "/tasks/" + t.taskID + "/claim", nil},
		{OpSave, "PUT", "/tasks/" + t.taskID, map[string]any{"Notes": "looked at it"}},
		{OpComplete, "POST", "/tasks/" + t.taskID + "/complete", map[string]any{"Notes": "fine"}},
	}
	if !save {
		steps = append(steps[:1], steps[2])
	}
	for _, s := range steps {
		ok := r.step(ctx, s.op, func() error {
			_, err := r.call(ctx, u, s.method, s.path, s.body, http.StatusAccepted)
			if err == nil {
				r.ack(Ack{Op: s.op, CaseID: t.caseID, TaskID: t.taskID})
			}
			return err
		})
		if !ok {
			return false
		}
	}
	return true
}

// prestart has every user start cfg.Cases cases, unmeasured, and notes
// their Review tasks, so that the measured run only claims and completes.
func (r *runner) prestart(ctx context.Context, users []*user) error {
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstErr error
	)
	for _, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < r.cfg.Cases && ctx.Err() == nil; i++ {
				t, err := r.startForLater(ctx, u)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				u.ready = append(u.ready, t)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("start the cases to claim and complete: %w", firstErr)
	}
	if r.cfg.Progress != nil {
		fmt.Fprintf(r.cfg.Progress, "started %d cases per user to claim and complete\n", r.cfg.Cases)
	}
	return ctx.Err()
}

// startForLater starts a case as u and finds its Review task.
func (r *runner) startForLater(ctx context.Context, u *user) (readyTask, error) {
	caseID, err := r.postCase(ctx, u)
	if err != nil {
		return readyTask{}, err
	}
	body, err := r.call(ctx, u, "GET", "/tasks/case/"+caseID, nil, http.StatusOK)
	if err != nil {
		return readyTask{}, err
	}
	var tasks []struct {
		ID        string `json:"id"`
		TaskName  string `json:"taskName"`
		TaskState string `json:"taskState"`
	}
	if err := json.Unmarshal(body, &tasks); err != nil {
		return readyTask{}, fmt.Errorf("the case's tasks are not a JSON array: %s", trim(body))
	}
	for _, t := range tasks {
		if t.TaskName == "Review" && t.TaskState == "Unassigned" {
			return readyTask{caseID: caseID, taskID: t.ID}, nil
		}
	}
	return readyTask{}, fmt.Errorf("case %s has no unassigned Review task: %s", caseID, trim(body))
}
