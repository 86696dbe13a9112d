package rest

import (
	"net/http"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/service"
)

// userFormat is the reference engine's tenant user payload.
type userFormat struct {
	UserID  string             `json:"userId"`
	Roles   nullable[[]string] `json:"roles"`
	IsOwner nullable[bool]     `json:"isOwner"`
	Name    nullable[string]   `json:"name"`
	Email   nullable[string]   `json:"email"`
	Enabled nullable[bool]     `json:"enabled"`
	// Tenant is accepted because clients echo a TenantUser they read; the
	// path names the tenant.
	Tenant nullable[string] `json:"tenant"`
}

func (u userFormat) input() (service.UserInput, error) {
	if u.Roles.Set && u.Roles.Null {
		return service.UserInput{}, service.E("rest.userFormat", service.Invalid, "Roles cannot be null")
	}
	return service.UserInput{
		UserID:  u.UserID,
		Roles:   u.Roles.Value,
		IsOwner: u.IsOwner.ptr(),
		Name:    u.Name.ptr(),
		Email:   u.Email.ptr(),
		Enabled: u.Enabled.ptr(),
	}, nil
}

// wholeUser is in as the reference engine's UserFormat reads it: a whole
// user, what the body leaves out taking its default (no roles, not an
// owner, no name or email, enabled), for a user who exists too. GraphQL's
// setTenantUser changes only the fields it names.
func wholeUser(in service.UserInput) service.UserInput {
	if in.Roles == nil {
		in.Roles = []string{}
	}
	if in.IsOwner == nil {
		in.IsOwner = new(bool)
	}
	if in.Name == nil {
		in.Name = new(string)
	}
	if in.Email == nil {
		in.Email = new(string)
	}
	if in.Enabled == nil {
		enabled := true
		in.Enabled = &enabled
	}
	return in
}

func userInputs(users []userFormat) ([]service.UserInput, error) {
	in := make([]service.UserInput, 0, len(users))
	for _, u := range users {
		ui, err := u.input()
		if err != nil {
			return nil, err
		}
		in = append(in, ui)
	}
	return in, nil
}

// tenantUserJSON is the reference engine's TenantUser response.
type tenantUserJSON struct {
	UserID  string   `json:"userId"`
	Roles   []string `json:"roles"`
	Tenant  string   `json:"tenant"`
	Name    string   `json:"name"`
	Email   string   `json:"email"`
	IsOwner bool     `json:"isOwner"`
	Enabled bool     `json:"enabled"`
}

func toTenantUserJSON(u service.TenantUser) tenantUserJSON {
	roles := u.Roles
	if roles == nil {
		roles = []string{}
	}
	return tenantUserJSON{UserID: u.UserID, Roles: roles, Tenant: u.Tenant, Name: u.Name, Email: u.Email, IsOwner: u.IsOwner, Enabled: u.Enabled}
}

func toTenantUsersJSON(users []service.TenantUser) []tenantUserJSON {
	out := make([]tenantUserJSON, len(users))
	for i, u := range users {
		out[i] = toTenantUserJSON(u)
	}
	return out
}

// tenantModified answers a tenant command: 204 with Tenant-Last-Modified.
func tenantModified(w http.ResponseWriter, lm service.LastModified) {
	w.Header().Set("Tenant-Last-Modified", lm.String())
	w.WriteHeader(http.StatusNoContent)
}

func (a *API) tenantOwners(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	owners, err := a.svc.TenantOwners(r.Context(), who, r.PathValue("tenant"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, owners)
}

func (a *API) tenantUsers(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	a.listTenantUsers(w, r, who, true)
}

func (a *API) disabledAccounts(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	a.listTenantUsers(w, r, who, false)
}

func (a *API) listTenantUsers(w http.ResponseWriter, r *http.Request, who auth.Identity, enabled bool) {
	users, err := a.svc.TenantUsers(r.Context(), who, r.PathValue("tenant"), enabled)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toTenantUsersJSON(users))
}

func (a *API) tenantUser(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	u, err := a.svc.TenantUser(r.Context(), who, r.PathValue("tenant"), r.PathValue("userId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toTenantUserJSON(u))
}

func (a *API) setTenantUser(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	var body userFormat
	if err := decodeJSON(r, &body); err != nil {
		a.writeError(w, r, err)
		return
	}
	in, err := body.input()
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	_, lm, err := a.svc.SetTenantUser(r.Context(), who, r.PathValue("tenant"), wholeUser(in))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	tenantModified(w, lm)
}

func (a *API) removeTenantUser(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	lm, err := a.svc.RemoveTenantUser(r.Context(), who, r.PathValue("tenant"), r.PathValue("userId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	tenantModified(w, lm)
}

func (a *API) replaceTenant(w http.ResponseWriter, r *http.Request, who auth.Identity) {
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
	lm, err := a.svc.ReplaceTenantUsers(r.Context(), who, r.PathValue("tenant"), in)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	tenantModified(w, lm)
}
