package rest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/service"
)

func (a *API) caseFile(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	file, err := a.svc.CaseFile(r.Context(), who, r.PathValue("caseId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, file)
}

// changeCaseFile serves create, update, replace and delete of a case file
// item; the path is the rest of the URL, "" for the whole case file.
func (a *API) changeCaseFile(op service.CaseFileOp) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, who auth.Identity) {
		var value any
		if op != service.FileDelete {
			v, err := decodeAnyJSON(r)
			if err != nil {
				a.writeError(w, r, err)
				return
			}
			value = v
		}
		lm, err := a.svc.ChangeCaseFile(r.Context(), who, r.PathValue("caseId"), op, r.PathValue("path"), value)
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		caseModified(w, lm)
	}
}

// decodeAnyJSON reads a JSON body of any type (object, array, scalar).
func decodeAnyJSON(r *http.Request) (any, error) {
	var raw json.RawMessage
	if err := decodeJSON(r, &raw); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil && err != io.EOF {
		return nil, service.E("rest.decodeAnyJSON", service.Invalid, "The request content was malformed: "+jsonProblem(err))
	}
	return v, nil
}

func (a *API) planItemDocumentation(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	doc, err := a.svc.PlanItemDocumentation(r.Context(), who, r.PathValue("caseId"), r.PathValue("planItemId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if doc == nil {
		writeJSON(w, http.StatusOK, nil)
		return
	}
	writeJSON(w, http.StatusOK, documentationJSON{TextFormat: doc.TextFormat, Text: doc.Text})
}

type documentationJSON struct {
	TextFormat string `json:"textFormat"`
	Text       string `json:"text"`
}

func (a *API) caseFileDocumentation(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	docs, err := a.svc.CaseFileDocumentation(r.Context(), who, r.PathValue("caseId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	type entry struct {
		Path          string            `json:"path"`
		Documentation documentationJSON `json:"documentation"`
	}
	out := make([]entry, len(docs))
	for i, d := range docs {
		out[i] = entry{Path: d.Path, Documentation: documentationJSON{TextFormat: d.Documentation.TextFormat, Text: d.Documentation.Text}}
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *API) identifiers(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	q := r.URL.Query()
	offset, n := paging(q)
	recs, err := a.svc.Identifiers(r.Context(), who, service.IdentifierQuery{Tenant: q.Get("tenant"), Name: q.Get("name"),
		Offset: offset, NumberOfResults: n, SortBy: q.Get("sortBy"), SortOrder: q.Get("sortOrder")})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	type identifier struct {
		CaseID string `json:"caseInstanceId"`
		Tenant string `json:"tenant"`
		Name   string `json:"name"`
		Value  string `json:"value"`
	}
	out := make([]identifier, len(recs))
	for i, rec := range recs {
		out[i] = identifier{CaseID: rec.CaseID, Tenant: rec.Tenant, Name: rec.Name, Value: rec.Value}
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *API) identifierNames(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	names, err := a.svc.IdentifierNames(r.Context(), who, r.URL.Query().Get("tenant"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, names)
}
