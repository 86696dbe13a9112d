package resolvers

import (
	"context"
	"encoding/json"

	"github.com/casegraph/casegraph/model"
	"github.com/casegraph/casegraph/service"
)

// taskFromCase builds a task from its case's state, as the loader holds
// it; nil when the plan item has no task (yet).
func taskFromCase(v service.CaseView, p *service.PlanItem) *model.Task {
	t := p.Task
	if t == nil {
		return nil
	}
	out := &model.Task{ID: p.ID, CaseID: v.Record.ID, Name: p.Name, State: model.TaskState(t.State), DueDate: t.DueDate,
		Input: nonNil(t.Input), Output: nonNil(t.Output), TaskModel: parsedTaskModel(t.TaskModel),
		Tenant: v.Record.Tenant, CaseName: v.Record.Name, CreatedOn: p.CreatedOn.UTC(), CreatedBy: t.CreatedBy,
		LastModified: p.LastModified.UTC(), ModifiedBy: p.ModifiedBy,
		MayPerform: v.MayPerform(p.ID), ActivatedOn: t.ActivatedOn.UTC()}
	out.Assignee, out.Owner, out.Role = optional(t.Assignee), optional(t.Owner), optional(t.Role)
	out.TaskDuration, out.Documentation = optional(service.TaskDuration(t.ActivatedOn, t.DueDate)), optional(t.Documentation)
	return out
}

// taskFromRow builds a task from the task list's row.
func taskFromRow(t service.Task) *model.Task {
	out := &model.Task{ID: t.ID, CaseID: t.CaseID, Name: t.TaskName, State: model.TaskState(t.TaskState), DueDate: t.DueDate,
		Input: rawJSON(t.Input), Output: rawJSON(t.Output), TaskModel: parsedTaskModel(t.TaskModel),
		Tenant: t.Tenant, CaseName: t.CaseName, CreatedOn: t.CreatedOn.UTC(), CreatedBy: t.CreatedBy,
		LastModified: t.LastModified.UTC(), ModifiedBy: t.ModifiedBy, ActivatedOn: t.ActivatedOn.UTC()}
	out.Assignee, out.Owner, out.Role = optional(t.Assignee), optional(t.Owner), optional(t.Role)
	out.TaskDuration, out.Documentation = optional(service.TaskDuration(t.ActivatedOn, t.DueDate)), optional(t.Documentation)
	return out
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nonNil(m map[string]any) any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func rawJSON(s string) any {
	var v any
	if s == "" || json.Unmarshal([]byte(s), &v) != nil || v == nil {
		return map[string]any{}
	}
	return v
}

// parsedTaskModel returns the task model as JSON when it parses, as text
// otherwise.
func parsedTaskModel(s string) any {
	if s == "" {
		return nil
	}
	var v any
	if json.Unmarshal([]byte(s), &v) == nil {
		return v
	}
	return s
}

// taskResult loads a task after a mutation changed its case.
func taskResult(ctx context.Context, caseID, taskID string) (*model.Task, error) {
	v, err := reloadCase(ctx, caseID)
	if err != nil {
		return nil, err
	}
	if p := v.State.PlanItem(taskID); p != nil {
		if t := taskFromCase(v, p); t != nil {
			return t, nil
		}
	}
	return nil, service.Ef("graphql.task", service.NotFound, "A task with id '%s' cannot be found.", taskID)
}

// taskMutation runs a task command and answers the task as it is after.
func (r *mutationResolver) taskMutation(ctx context.Context, id string, run func(service.Identity) error) (*model.Task, error) {
	who, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	// The task's case is found before the command: a caller who is not in
	// its team learns nothing, and afterwards the case is reloaded.
	t, err := r.Service.GetTask(ctx, who, id)
	if err != nil {
		return nil, err
	}
	if err := run(who); err != nil {
		return nil, err
	}
	return taskResult(ctx, t.CaseID, id)
}

func jsonObject(v any, what string) (map[string]any, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, service.Ef("graphql", service.Invalid, "%s must be a JSON object", what)
	}
	return m, nil
}

// loadTaskCases loads the cases of a page of tasks in one batch: their
// actors say whether the caller may perform each task, and the nested
// task.case fields then read them from the loader.
func loadTaskCases(ctx context.Context, tasks []service.Task) (map[string]service.CaseView, error) {
	seen := map[string]bool{}
	var ids []string
	for _, t := range tasks {
		if !seen[t.CaseID] {
			seen[t.CaseID] = true
			ids = append(ids, t.CaseID)
		}
	}
	views, errs := loadersFrom(ctx).cases.LoadMany(ctx, ids)()
	out := make(map[string]service.CaseView, len(ids))
	for i, id := range ids {
		if i < len(errs) && errs[i] != nil {
			if service.KindOf(errs[i]) == service.NotFound {
				continue // left the team since the list was read
			}
			return nil, errs[i]
		}
		out[id] = views[i]
	}
	return out, nil
}
