package rest

import (
	"net/http"

	"github.com/casegraph/casegraph/auth"
)

func (a *API) createTenant(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	var body struct {
		Name  string       `json:"name"`
		Users []userFormat `json:"users"`
	}
	if err := decodeJSON(r, &body); err != nil {
		a.writeError(w, r, err)
		return
	}
	in, err := userInputs(body.Users)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	_, lm, err := a.svc.CreateTenant(r.Context(), who, body.Name, in)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	tenantModified(w, lm)
}

func (a *API) disableTenant(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	a.setTenantEnabled(w, r, who, false)
}

func (a *API) enableTenant(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	a.setTenantEnabled(w, r, who, true)
}

func (a *API) setTenantEnabled(w http.ResponseWriter, r *http.Request, who auth.Identity, enabled bool) {
	lm, err := a.svc.SetTenantEnabled(r.Context(), who, r.PathValue("tenant"), enabled)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	tenantModified(w, lm)
}

func (a *API) platformUser(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	me, err := a.svc.Me(r.Context(), who)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		UserID  string           `json:"userId"`
		Tenants []tenantUserJSON `json:"tenants"`
		Groups  []userGroupJSON  `json:"groups"`
	}{me.UserID, toTenantUsersJSON(me.Accounts), toUserGroupsJSON(me.Groups)})
}
