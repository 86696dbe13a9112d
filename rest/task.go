package rest

import (
	"encoding/json"
	"net/http"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/service"
)

// taskJSON is the reference engine's TaskRecord JSON.
type taskJSON struct {
	ID           string `json:"id"`
	TaskName     string `json:"taskName"`
	TaskState    string `json:"taskState"`
	Assignee     string `json:"assignee"`
	Owner        string `json:"owner"`
	Tenant       string `json:"tenant"`
	CaseID       string `json:"caseInstanceId"`
	CaseName     string `json:"caseName"`
	Role         string `json:"role"`
	LastModified string `json:"lastModified"`
	ModifiedBy   string `json:"modifiedBy"`
	DueDate      string `json:"dueDate"`
	CreatedOn    string `json:"createdOn"`
	CreatedBy    string `json:"createdBy"`
	ActivatedOn  string `json:"activatedOn"`
	// TaskDuration is the period from activation to the due date; null
	// without a due date.
	TaskDuration  *string         `json:"taskDuration"`
	Documentation string          `json:"documentation"`
	Input         json.RawMessage `json:"input"`
	Output        json.RawMessage `json:"output"`
	TaskModel     json.RawMessage `json:"taskModel"`
	MayPerform    *bool           `json:"mayPerform,omitempty"`
}

// toTaskJSON is the one REST builder of a task. mayPerform is shown only
// by GET /tasks/case/{id}, as in the reference engine; the other routes
// pass nil.
func toTaskJSON(t service.Task, mayPerform *bool) taskJSON {
	out := taskJSON{ID: t.ID, TaskName: t.TaskName, TaskState: t.TaskState, Assignee: t.Assignee, Owner: t.Owner, Tenant: t.Tenant,
		CaseID: t.CaseID, CaseName: t.CaseName, Role: t.Role, LastModified: instant(t.LastModified), ModifiedBy: t.ModifiedBy,
		CreatedOn: instant(t.CreatedOn), CreatedBy: t.CreatedBy, ActivatedOn: instant(t.ActivatedOn), Documentation: t.Documentation,
		Input: t.Input, Output: t.Output, TaskModel: t.TaskModel, MayPerform: mayPerform}
	if t.DueDate != nil {
		out.DueDate = instant(*t.DueDate)
		out.TaskDuration = &t.Duration
	}
	return out
}

func (a *API) listTasks(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	q := r.URL.Query()
	offset, n, ok := page(w, q)
	if !ok {
		return
	}
	tasks, err := a.svc.ListTasks(r.Context(), who, service.TaskQuery{Tenant: q.Get("tenant"), Identifiers: q.Get("identifiers"),
		CaseName: q.Get("caseName"), TaskName: q.Get("taskName"), TaskState: q.Get("taskState"), Assignee: q.Get("assignee"),
		Owner: q.Get("owner"), DueOn: q.Get("dueOn"), DueBefore: q.Get("dueBefore"), DueAfter: q.Get("dueAfter"),
		TimeZone: r.Header.Get("timeZone"), Offset: offset, NumberOfResults: n, SortBy: q.Get("sortBy"), SortOrder: q.Get("sortOrder")})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	out := make([]taskJSON, len(tasks))
	for i, t := range tasks {
		out[i] = toTaskJSON(t, nil)
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *API) getTask(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	t, err := a.svc.GetTask(r.Context(), who, r.PathValue("taskId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toTaskJSON(t, nil))
}

func (a *API) caseTasks(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	list := a.svc.CaseTasks
	if r.URL.Query().Get("includeSubCaseTasks") == "true" {
		list = a.svc.CaseTreeTasks
	}
	tasks, err := list(r.Context(), who, r.PathValue("caseId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	out := make([]taskJSON, len(tasks))
	for i, t := range tasks {
		out[i] = toTaskJSON(t.Task, &t.MayPerform)
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *API) countTasks(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	c, err := a.svc.CountTasks(r.Context(), who, r.URL.Query().Get("tenant"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"claimed": c.Claimed, "unclaimed": c.Unclaimed})
}
