package rest

import (
	"net/http"

	"github.com/casegraph/casegraph/auth"
)

// msgAccepted is what the reference engine's storage routes answer with
// their 202: the HTTP library's default text for the status.
const msgAccepted = "The request has been accepted for processing, but the processing has not been completed."

// storageAction serves one of the reference engine's /storage routes,
// each one command on the path's case or tenant.
func (a *API) storageAction(param string, do func(r *http.Request, who auth.Identity, id string) error) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, who auth.Identity) {
		if err := do(r, who, r.PathValue(param)); err != nil {
			a.writeError(w, r, err)
			return
		}
		writeText(w, http.StatusAccepted, msgAccepted)
	}
}

func (a *API) registerStorage(mux *recorder) {
	mux.Handle("PUT /storage/case/{caseId}/archive", a.authed(a.storageAction("caseId", func(r *http.Request, who auth.Identity, id string) error {
		return a.svc.ArchiveCase(r.Context(), who, id)
	})))
	mux.Handle("PUT /storage/case/{caseId}/restore", a.authed(a.storageAction("caseId", func(r *http.Request, who auth.Identity, id string) error {
		return a.svc.RestoreCase(r.Context(), who, id)
	})))
	mux.Handle("DELETE /storage/case/{caseId}", a.authed(a.storageAction("caseId", func(r *http.Request, who auth.Identity, id string) error {
		return a.svc.DeleteCase(r.Context(), who, id)
	})))
	mux.Handle("DELETE /storage/tenant/{tenant}", a.authed(a.storageAction("tenant", func(r *http.Request, who auth.Identity, id string) error {
		return a.svc.DeleteTenant(r.Context(), who, id)
	})))
}
