package rest

import (
	"net/http"

	"github.com/casegraph/casegraph/auth"
)

func (a *API) status(w http.ResponseWriter, r *http.Request) {
	if !a.svc.Ready(r.Context()) {
		writeText(w, http.StatusServiceUnavailable, "The server is currently unavailable (because it is overloaded or down for maintenance).")
		return
	}
	writeText(w, http.StatusOK, "OK")
}

// health answers the reference engine's report: a status, a description and
// one single-key object per measure point.
func (a *API) health(w http.ResponseWriter, r *http.Request) {
	type point struct {
		Status      string `json:"Status"`
		Description string `json:"Description"`
	}
	statusText := func(ok bool) string {
		if ok {
			return "OK"
		}
		return "NOK"
	}
	h := a.svc.HealthFor(r.Context(), a.optionalCaller(r))
	points := make([]map[string]point, 0, len(h.Points))
	for _, p := range h.Points {
		points = append(points, map[string]point{p.Name: {Status: statusText(p.OK), Description: p.Description}})
	}
	writeJSON(w, http.StatusOK, struct {
		Status        string             `json:"Status"`
		Description   string             `json:"Description"`
		MeasurePoints []map[string]point `json:"measure-points"`
	}{statusText(h.OK), h.Description, points})
}

// optionalCaller is the verified caller of a route that needs no token,
// or nil when there is none (or it does not verify).
func (a *API) optionalCaller(r *http.Request) *auth.Identity {
	if r.Header.Get("Authorization") == "" {
		return nil
	}
	who, err := a.authn.Authenticate(r)
	if err != nil {
		return nil
	}
	return &who
}

func (a *API) version(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, a.svc.VersionDocument())
}
