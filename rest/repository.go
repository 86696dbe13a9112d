package rest

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/service"
)

// tenantParam returns the tenant query parameter: nil when absent, which
// lets the service pick the caller's tenant.
func tenantParam(r *http.Request) *string {
	if vs, ok := r.URL.Query()["tenant"]; ok && len(vs) > 0 {
		return &vs[0]
	}
	return nil
}

func (a *API) listDefinitions(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	defs, err := a.svc.ListDefinitions(r.Context(), who, tenantParam(r))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	type model struct {
		Definitions string `json:"definitions"`
		Description string `json:"description"`
	}
	models := make([]model, len(defs))
	for i, d := range defs {
		models[i] = model{Definitions: d.Name, Description: d.Documentation}
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
}

func (a *API) loadDefinition(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	def, err := a.svc.LoadDefinition(r.Context(), who, tenantParam(r), r.PathValue("fileName"))
	var invalid *service.InvalidDefinitionError
	if errors.As(err, &invalid) {
		// A stored definition this version cannot parse: the reference
		// engine answers 500 with an XML account of it.
		a.logger.ErrorContext(r.Context(), "stored definition is invalid", "err", err)
		body, _ := xml.Marshal(struct {
			XMLName  xml.Name `xml:"invalid-definition"`
			Name     string   `xml:"name,attr"`
			Problems []string `xml:"problem"`
		}{Name: r.PathValue("fileName"), Problems: invalid.Problems})
		w.Header().Set("Content-Type", "text/xml; charset=UTF-8")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write(body)
		return
	}
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/xml; charset=UTF-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, def.XML)
}

// validateDefinition is open to anyone: it stores nothing.
func (a *API) validateDefinition(w http.ResponseWriter, r *http.Request) {
	body, err := readXMLBody(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	problems := a.svc.ValidateDefinition(body)
	if len(problems) == 0 {
		w.WriteHeader(http.StatusOK)
		return
	}
	// The one structured error body of the reference engine: a JSON array
	// of the problems, which it sends through its string marshaller, so
	// labelled as plain text like every other error; its clients parse
	// the text.
	b, err := json.Marshal(problems)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeText(w, http.StatusBadRequest, string(b))
}

func (a *API) deployDefinition(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	body, err := readXMLBody(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	_, err = a.svc.DeployDefinition(r.Context(), who, tenantParam(r), r.PathValue("fileName"), body)
	var invalid *service.InvalidDefinitionError
	if errors.As(err, &invalid) {
		// The reference engine's message, then what makes the definition
		// invalid, one problem a line, as POST /repository/validate lists
		// them.
		writeText(w, http.StatusBadRequest, service.Message(err)+"\n"+strings.Join(invalid.Problems, "\n"))
		return
	}
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// readXMLBody reads a definition document: application/xml or text/xml,
// or no Content-Type at all.
func readXMLBody(r *http.Request) ([]byte, error) {
	const op = "rest.readXMLBody"
	if err := checkContentType(op, r, "application/xml", "text/xml"); err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, service.MaxDefinitionSize+1))
	if err != nil {
		return nil, service.Ef(op, service.Invalid, "The request content was malformed: %v", err)
	}
	if len(body) > service.MaxDefinitionSize {
		return nil, service.E(op, service.Invalid, "The request content was malformed: the definition is larger than 10 MiB")
	}
	return body, nil
}
