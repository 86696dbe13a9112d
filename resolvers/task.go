package resolvers

import (
	"context"
	"strings"

	"github.com/casegraph/casegraph/model"
	"github.com/casegraph/casegraph/service"
)

// toTask is the one GraphQL builder of a task, from the service's view
// of it, wherever that view was read (a case's state or the task list).
func toTask(t service.Task, mayPerform bool) *model.Task {
	out := &model.Task{ID: t.ID, CaseID: t.CaseID, Name: t.TaskName, State: model.TaskState(t.TaskState), DueDate: t.DueDate,
		Input: t.Input, Output: t.Output, TaskModel: t.TaskModel, Tenant: t.Tenant, CaseName: t.CaseName,
		CreatedOn: t.CreatedOn.UTC(), CreatedBy: t.CreatedBy, LastModified: t.LastModified.UTC(), ModifiedBy: t.ModifiedBy,
		ActivatedOn: t.ActivatedOn.UTC(), MayPerform: mayPerform}
	// GraphQL says "none" with null where REST writes "".
	out.Assignee, out.Owner, out.Role = optional(t.Assignee), optional(t.Owner), optional(t.Role)
	out.TaskDuration, out.Documentation = optional(t.Duration), optional(t.Documentation)
	return out
}

// caseTask is the task id of a case the caller has loaded, with whether
// the caller may perform it; nil when the case has no such task (yet).
func caseTask(v service.CaseView, id string) *model.Task {
	t, ok := v.Task(id)
	if !ok {
		return nil
	}
	return toTask(t, v.MayPerform(id))
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// taskResult loads a task after a mutation changed its case.
func taskResult(ctx context.Context, caseID, taskID string) (*model.Task, error) {
	v, err := reloadCase(ctx, caseID)
	if err != nil {
		return nil, err
	}
	if t := caseTask(v, taskID); t != nil {
		return t, nil
	}
	return nil, service.TaskNotFound("graphql.task", taskID)
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

// taskQueryOf is the service query of a GraphQL task filter.
func taskQueryOf(filter *model.TaskFilter) service.TaskQuery {
	var q service.TaskQuery
	if filter != nil {
		q.Tenant, q.Identifiers, q.CaseName, q.TaskName = deref(filter.Tenant), deref(filter.Identifiers), deref(filter.CaseName), deref(filter.TaskName)
		q.Assignee, q.Owner, q.DueOn, q.DueBefore = deref(filter.Assignee), deref(filter.Owner), deref(filter.DueOn), deref(filter.DueBefore)
		q.DueAfter, q.TimeZone, q.SortBy, q.SortOrder = deref(filter.DueAfter), deref(filter.TimeZone), deref(filter.SortBy), deref(filter.SortOrder)
		states := make([]string, len(filter.States))
		for i, st := range filter.States {
			states[i] = string(st)
		}
		q.TaskState = strings.Join(states, ";")
	}
	return q
}
