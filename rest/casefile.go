package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/service"
)

// caseFileOps are the case file's write routes.
var caseFileOps = []struct {
	method, name string
	op           service.CaseFileOp
}{{"POST", "create", service.FileCreate}, {"PUT", "update", service.FileUpdate}, {"PUT", "replace", service.FileReplace}, {"DELETE", "delete", service.FileDelete}}

// caseFilePathKey carries a case file item's path as the client sent it,
// for a URL that ServeMux would have cleaned (UncleanPaths).
type caseFilePathKey struct{}

// UncleanPaths serves the requests whose path ServeMux would clean, those
// with an empty, "." or ".." segment. The mux answers them with a redirect
// to the cleaned path, before any token is checked, and a client that
// follows it changes another item than it named: Claim//Lines became
// Claim/Lines. The reference engine takes paths as sent: in a case file
// item's path such segments make the command's 400 (the path is invalid),
// anywhere else the path matches no route, which unknown answers.
func UncleanPaths(mux, unknown http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodConnect || IsCleanPath(r.URL.EscapedPath()) {
			mux.ServeHTTP(w, r)
			return
		}
		id, op, itemPath, ok := caseFileItemURL(r.Method, r.URL.Path)
		if !ok {
			unknown.ServeHTTP(w, r)
			return
		}
		routed := r.Clone(context.WithValue(r.Context(), caseFilePathKey{}, itemPath))
		// Any item path routes the same: the handler takes the one sent.
		routed.URL.Path, routed.URL.RawPath = "/cases/"+id+"/casefile/"+op+"/-", ""
		mux.ServeHTTP(w, routed)
	})
}

// caseFileItemURL splits the path of a case file write route, whose case
// id and operation are clean segments, into those and the item's path.
func caseFileItemURL(method, urlPath string) (id, op, itemPath string, ok bool) {
	rest, ok := strings.CutPrefix(urlPath, "/cases/")
	if !ok {
		return "", "", "", false
	}
	id, rest, _ = strings.Cut(rest, "/")
	rest, ok = strings.CutPrefix(rest, "casefile/")
	if !ok || id == "" || id == "." || id == ".." {
		return "", "", "", false
	}
	op, itemPath, ok = strings.Cut(rest, "/")
	if !ok {
		return "", "", "", false
	}
	for _, o := range caseFileOps {
		if o.name == op && o.method == method {
			return id, op, itemPath, true
		}
	}
	return "", "", "", false
}

// IsCleanPath reports whether ServeMux routes the escaped path p as it is,
// without redirecting it: p is its cleanPath, path.Clean keeping a
// trailing slash.
func IsCleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	return clean == p
}

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
		itemPath := r.PathValue("path")
		if sent, ok := r.Context().Value(caseFilePathKey{}).(string); ok {
			itemPath = sent
		}
		lm, err := a.svc.ChangeCaseFile(r.Context(), who, r.PathValue("caseId"), op, itemPath, value)
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
	offset, n, ok := page(w, q)
	if !ok {
		return
	}
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
