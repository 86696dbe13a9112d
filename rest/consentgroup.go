package rest

import (
	"net/http"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/service"
)

// groupMemberFormat is the reference engine's ConsentGroupUserFormat.
type groupMemberFormat struct {
	UserID  string   `json:"userId"`
	Roles   []string `json:"roles"`
	IsOwner bool     `json:"isOwner"`
}

// groupFormat is the reference engine's ConsentGroupFormat: the id is
// optional on creation and ignored on replacement (the path names the
// group). Tenant is accepted because clients echo a group they read.
type groupFormat struct {
	ID      string              `json:"id"`
	Tenant  string              `json:"tenant"`
	Members []groupMemberFormat `json:"members"`
}

func (m groupMemberFormat) input() service.GroupMemberInput {
	return service.GroupMemberInput{UserID: m.UserID, Roles: m.Roles, IsOwner: m.IsOwner}
}

func groupMemberInputs(members []groupMemberFormat) []service.GroupMemberInput {
	in := make([]service.GroupMemberInput, len(members))
	for i, m := range members {
		in[i] = m.input()
	}
	return in
}

// groupMemberJSON is a consent group member as the reference engine
// writes it.
type groupMemberJSON struct {
	UserID  string   `json:"userId"`
	IsOwner bool     `json:"isOwner"`
	Roles   []string `json:"roles"`
}

// groupJSON is a consent group as the reference engine writes it.
type groupJSON struct {
	GroupID string            `json:"groupId"`
	Tenant  string            `json:"tenant"`
	Members []groupMemberJSON `json:"members"`
}

// userGroupJSON is one entry of the groups of GET /platform/user.
type userGroupJSON struct {
	GroupID string   `json:"groupId"`
	IsOwner bool     `json:"isOwner"`
	Roles   []string `json:"roles"`
}

func toGroupMemberJSON(m service.GroupMember) groupMemberJSON {
	roles := m.Roles
	if roles == nil {
		roles = []string{}
	}
	return groupMemberJSON{UserID: m.UserID, IsOwner: m.IsOwner, Roles: roles}
}

func toUserGroupsJSON(groups []service.UserGroup) []userGroupJSON {
	out := make([]userGroupJSON, len(groups))
	for i, g := range groups {
		roles := g.Roles
		if roles == nil {
			roles = []string{}
		}
		out[i] = userGroupJSON{GroupID: g.GroupID, IsOwner: g.IsOwner, Roles: roles}
	}
	return out
}

// groupAccepted answers a consent group change as the reference engine
// does: a bare 202 with Pekko's default text and the group's
// Consent-Group-Last-Modified.
func groupAccepted(w http.ResponseWriter, lm service.LastModified) {
	w.Header().Set("Consent-Group-Last-Modified", lm.String())
	writeText(w, http.StatusAccepted, "The request has been accepted for processing, but the processing has not been completed.")
}

func (a *API) createConsentGroup(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	var body groupFormat
	if err := decodeJSON(r, &body); err != nil {
		a.writeError(w, r, err)
		return
	}
	g, lm, err := a.svc.CreateConsentGroup(r.Context(), who, r.PathValue("tenant"), body.ID, groupMemberInputs(body.Members))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("Consent-Group-Last-Modified", lm.String())
	writeJSON(w, http.StatusOK, struct {
		GroupID string `json:"groupId"`
	}{g.ID})
}

func (a *API) getConsentGroup(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	g, err := a.svc.GetConsentGroup(r.Context(), who, r.PathValue("groupId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	out := groupJSON{GroupID: g.ID, Tenant: g.Tenant, Members: make([]groupMemberJSON, len(g.Members))}
	for i, m := range g.Members {
		out.Members[i] = toGroupMemberJSON(m)
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *API) getConsentGroupMember(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	m, err := a.svc.GetConsentGroupMember(r.Context(), who, r.PathValue("groupId"), r.PathValue("userId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toGroupMemberJSON(m))
}

func (a *API) replaceConsentGroup(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	var body groupFormat
	if err := decodeJSON(r, &body); err != nil {
		a.writeError(w, r, err)
		return
	}
	_, lm, err := a.svc.ReplaceConsentGroup(r.Context(), who, r.PathValue("groupId"), groupMemberInputs(body.Members))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	groupAccepted(w, lm)
}

func (a *API) setConsentGroupMember(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	var body groupMemberFormat
	if err := decodeJSON(r, &body); err != nil {
		a.writeError(w, r, err)
		return
	}
	_, lm, err := a.svc.SetConsentGroupMember(r.Context(), who, r.PathValue("groupId"), body.input())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	groupAccepted(w, lm)
}

func (a *API) removeConsentGroupMember(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	_, lm, err := a.svc.RemoveConsentGroupMember(r.Context(), who, r.PathValue("groupId"), r.PathValue("userId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	groupAccepted(w, lm)
}
