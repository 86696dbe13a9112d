package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/service"
)

func (a *API) getCaseTeam(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	v, err := a.svc.CaseTeam(r.Context(), who, r.PathValue("caseId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toTeamJSON(v))
}

// setCaseTeam replaces the team; it reads every team format.
func (a *API) setCaseTeam(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	var team teamFormat
	if err := decodeJSON(r, &team); err != nil {
		a.writeError(w, r, err)
		return
	}
	a.teamChanged(w, r)(a.svc.SetCaseTeam(r.Context(), who, r.PathValue("caseId"), team.Members))
}

// upsertCaseTeam serves the deprecated PUT /caseteam: one member update,
// or (the seed) an array of them.
func (a *API) upsertCaseTeam(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	var raw json.RawMessage
	if err := decodeJSON(r, &raw); err != nil {
		a.writeError(w, r, err)
		return
	}
	var members []legacyMember
	var err error
	if b := bytes.TrimSpace(raw); len(b) > 0 && b[0] == '[' {
		err = strictUnmarshal(b, &members)
	} else {
		var m legacyMember
		err = strictUnmarshal(b, &m)
		members = []legacyMember{m}
	}
	if err != nil {
		a.writeError(w, r, service.E("rest.upsertCaseTeam", service.Invalid, "The request content was malformed: "+jsonProblem(err)))
		return
	}
	updates := make([]service.MemberUpdate, 0, len(members))
	for _, m := range members {
		in, err := m.input()
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		u := service.MemberUpdate{ID: in.ID, Type: in.Type, CaseRoles: in.CaseRoles, RemoveRoles: m.RemoveRoles, IsOwner: m.IsOwner, Legacy: true}
		updates = append(updates, u)
	}
	a.teamChanged(w, r)(a.svc.UpsertCaseTeamMembers(r.Context(), who, r.PathValue("caseId"), updates))
}

// setTeamUser adds or replaces one user member.
func (a *API) setTeamUser(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	var u teamUser
	if err := decodeJSON(r, &u); err != nil {
		a.writeError(w, r, err)
		return
	}
	a.replaceMember(w, r, who, service.UserMember, u.UserID, u.CaseRoles, u.IsOwner)
}

// setTeamTenantRole adds or replaces one tenant-role member.
func (a *API) setTeamTenantRole(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	var tr teamTenantRole
	if err := decodeJSON(r, &tr); err != nil {
		a.writeError(w, r, err)
		return
	}
	a.replaceMember(w, r, who, service.RoleMember, tr.TenantRole, tr.CaseRoles, tr.IsOwner)
}

// replaceMember adds a member or replaces it whole: its roles become
// caseRoles and, without isOwner, it is no owner.
func (a *API) replaceMember(w http.ResponseWriter, r *http.Request, who auth.Identity, typ service.MemberType, id string, roles []string, isOwner *bool) {
	owner := isOwner != nil && *isOwner
	update := service.MemberUpdate{ID: id, Type: typ, CaseRoles: roles, IsOwner: &owner, Replace: true}
	a.teamChanged(w, r)(a.svc.UpsertCaseTeamMembers(r.Context(), who, r.PathValue("caseId"), []service.MemberUpdate{update}))
}

// setTeamGroup adds a consent group member or replaces its mappings.
func (a *API) setTeamGroup(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	var g teamGroup
	if err := decodeJSON(r, &g); err != nil {
		a.writeError(w, r, err)
		return
	}
	in := g.input()
	a.teamChanged(w, r)(a.svc.SetCaseTeamGroup(r.Context(), who, r.PathValue("caseId"), in.ID, in.Mappings))
}

func (a *API) removeTeamMember(typ service.MemberType, param string) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, who auth.Identity) {
		t := typ
		if t == "" {
			// DELETE /caseteam/{memberId}?memberType=role (the guide) or
			// ?type=role (the code). As in the reference engine, any other
			// type names a user.
			q := r.URL.Query()
			kind := q.Get("memberType")
			if kind == "" {
				kind = q.Get("type")
			}
			t = service.UserMember
			if strings.EqualFold(kind, "role") {
				t = service.RoleMember
			}
		}
		a.teamChanged(w, r)(a.svc.RemoveCaseTeamMember(r.Context(), who, r.PathValue("caseId"), r.PathValue(param), t))
	}
}

// teamChanged answers a team command.
func (a *API) teamChanged(w http.ResponseWriter, r *http.Request) func(service.LastModified, error) {
	return func(lm service.LastModified, err error) {
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		caseModified(w, lm)
	}
}
