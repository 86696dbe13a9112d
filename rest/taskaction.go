package rest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/service"
)

// taskAccepted answers a task action as the reference engine does: 202
// with Case-Last-Modified.
func taskAccepted(w http.ResponseWriter, lm service.LastModified, body any) {
	w.Header().Set("Case-Last-Modified", lm.String())
	writeJSON(w, http.StatusAccepted, body)
}

func (a *API) taskAction(run func(r *http.Request, who auth.Identity, taskID string) (service.LastModified, error)) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, who auth.Identity) {
		lm, err := run(r, who, r.PathValue("taskId"))
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		taskAccepted(w, lm, struct{}{})
	}
}

func (a *API) claimTask(r *http.Request, who auth.Identity, id string) (service.LastModified, error) {
	return a.svc.ClaimTask(r.Context(), who, id)
}

func (a *API) revokeTask(r *http.Request, who auth.Identity, id string) (service.LastModified, error) {
	return a.svc.RevokeTask(r.Context(), who, id)
}

func (a *API) assignTask(r *http.Request, who auth.Identity, id string) (service.LastModified, error) {
	var body struct {
		Assignee string `json:"assignee"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return service.LastModified{}, err
	}
	return a.svc.AssignTask(r.Context(), who, id, body.Assignee)
}

func (a *API) delegateTask(r *http.Request, who auth.Identity, id string) (service.LastModified, error) {
	var body struct {
		Assignee string `json:"assignee"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return service.LastModified{}, err
	}
	return a.svc.DelegateTask(r.Context(), who, id, body.Assignee)
}

func (a *API) completeTask(r *http.Request, who auth.Identity, id string) (service.LastModified, error) {
	output, err := taskOutput(r)
	if err != nil {
		return service.LastModified{}, err
	}
	return a.svc.CompleteTask(r.Context(), who, id, output)
}

func (a *API) saveTask(r *http.Request, who auth.Identity, id string) (service.LastModified, error) {
	output, err := taskOutput(r)
	if err != nil {
		return service.LastModified{}, err
	}
	return a.svc.SaveTaskOutput(r.Context(), who, id, output)
}

// validateTask answers 202 with the validation result: {} when valid, the
// validator's object otherwise.
func (a *API) validateTask(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	output, err := taskOutput(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	result, lm, err := a.svc.ValidateTaskOutput(r.Context(), who, r.PathValue("taskId"), output)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	taskAccepted(w, lm, result)
}

// taskOutput reads a task output: a JSON object by parameter name; an empty
// body is no output.
func taskOutput(r *http.Request) (map[string]any, error) {
	const op = "rest.taskOutput"
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, service.Ef(op, service.Invalid, "The request content was malformed: %v", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var raw json.RawMessage
	if err := decodeJSON(r, &raw); err != nil {
		return nil, err
	}
	var output map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&output); err != nil {
		return nil, service.E(op, service.Invalid, "The request content was malformed: the task output must be a JSON object")
	}
	return output, nil
}

func (a *API) discretionaryItems(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	rec, items, err := a.svc.DiscretionaryItems(r.Context(), who, r.PathValue("caseId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	type itemJSON struct {
		Name         string `json:"name"`
		DefinitionID string `json:"definitionId"`
		Type         string `json:"type"`
		ParentName   string `json:"parentName"`
		ParentType   string `json:"parentType"`
		ParentID     string `json:"parentId"`
	}
	out := make([]itemJSON, len(items))
	for i, it := range items {
		out[i] = itemJSON{Name: it.Name, DefinitionID: it.DefinitionID, Type: it.Type, ParentName: it.ParentName, ParentType: it.ParentType, ParentID: it.ParentID}
	}
	w.Header().Set("Case-Last-Modified", service.LastModified{At: rec.LastModified, ID: rec.ID}.String())
	writeJSON(w, http.StatusOK, map[string]any{"caseInstanceId": rec.ID, "name": rec.Name, "discretionaryItems": out})
}

func (a *API) planDiscretionaryItem(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	var body struct {
		Name         string `json:"name"`
		DefinitionID string `json:"definitionId"`
		ParentID     string `json:"parentId"`
		PlanItemID   string `json:"planItemId"`
	}
	if err := decodeJSON(r, &body); err != nil {
		a.writeError(w, r, err)
		return
	}
	id, lm, err := a.svc.PlanDiscretionaryItem(r.Context(), who, r.PathValue("caseId"), service.PlanRequest{
		Name: body.Name, DefinitionID: body.DefinitionID, ParentID: body.ParentID, PlanItemID: body.PlanItemID})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("Case-Last-Modified", lm.String())
	// The reference engine answers planItemId; the seed told users
	// planitemId. Both are sent.
	writeJSON(w, http.StatusOK, map[string]string{"planItemId": id, "planitemId": id})
}
