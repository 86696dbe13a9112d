package rest

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/casegraph/casegraph/service"
)

// teamFormat is a case team as a request carries it. The reference engine
// accepts an object {users, tenantRoles, groups} or its legacy {members};
// the seed describes a plain array of members. All three are read.
type teamFormat struct {
	Members []service.MemberInput
}

type teamUser struct {
	UserID    string   `json:"userId"`
	IsOwner   *bool    `json:"isOwner"`
	CaseRoles []string `json:"caseRoles"`
	Origin    string   `json:"origin"` // sent back by clients echoing a team; computed anew
}

type teamTenantRole struct {
	TenantRole string   `json:"tenantRole"`
	IsOwner    *bool    `json:"isOwner"`
	CaseRoles  []string `json:"caseRoles"`
}

type teamGroup struct {
	GroupID  string        `json:"groupId"`
	Mappings []teamMapping `json:"mappings"`
}

// teamMapping gives the holders of a group role case roles; groupRole ""
// is every group member.
type teamMapping struct {
	GroupRole string   `json:"groupRole"`
	IsOwner   *bool    `json:"isOwner"`
	CaseRoles []string `json:"caseRoles"`
}

func (g teamGroup) input() service.MemberInput {
	in := service.MemberInput{ID: g.GroupID, Type: service.GroupTeamMember, Mappings: make([]service.GroupMapping, len(g.Mappings))}
	for i, mp := range g.Mappings {
		in.Mappings[i] = service.GroupMapping{GroupRole: mp.GroupRole, IsOwner: mp.IsOwner != nil && *mp.IsOwner, CaseRoles: mp.CaseRoles}
	}
	return in
}

// legacyMember is the member object of the seed and of the reference
// engine's deprecated format.
type legacyMember struct {
	MemberID    *string  `json:"memberId"`
	User        *string  `json:"user"`
	MemberType  string   `json:"memberType"`
	CaseRoles   []string `json:"caseRoles"`
	Roles       []string `json:"roles"`
	RemoveRoles []string `json:"removeRoles"`
	IsOwner     *bool    `json:"isOwner"`
}

func (m legacyMember) input() (service.MemberInput, error) {
	in := service.MemberInput{CaseRoles: append(append([]string(nil), m.CaseRoles...), m.Roles...)}
	switch {
	case m.MemberID != nil:
		in.ID = *m.MemberID
	case m.User != nil:
		// A member named by the legacy field "user" is an owner unless
		// isOwner says otherwise.
		in.ID, in.IsOwner = *m.User, true
	default:
		return service.MemberInput{}, service.E("rest.team", service.Invalid, "Member id is missing; consider migrating to the new case team format")
	}
	if m.IsOwner != nil {
		in.IsOwner = *m.IsOwner
	}
	switch strings.ToLower(m.MemberType) {
	case "", "user":
		in.Type = service.UserMember
	case "role":
		in.Type = service.RoleMember
	default:
		return service.MemberInput{}, service.Ef("rest.team", service.Invalid, "Member type '%s' is not valid; use user or role", m.MemberType)
	}
	return in, nil
}

func (t *teamFormat) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var members []legacyMember
		if err := strictUnmarshal(b, &members); err != nil {
			return err
		}
		return t.addLegacy(members)
	}
	var obj struct {
		Users       []teamUser       `json:"users"`
		TenantRoles []teamTenantRole `json:"tenantRoles"`
		Groups      []teamGroup      `json:"groups"`
		Members     []legacyMember   `json:"members"`
		// A client that reads the team, edits it and posts it back sends
		// the computed lists too; they are read-only, so they are ignored
		// rather than refused as unknown fields.
		CaseRoles       []string `json:"caseRoles"`
		UnassignedRoles []string `json:"unassignedRoles"`
	}
	if err := strictUnmarshal(b, &obj); err != nil {
		return err
	}
	for _, u := range obj.Users {
		t.Members = append(t.Members, service.MemberInput{ID: u.UserID, Type: service.UserMember, CaseRoles: u.CaseRoles, IsOwner: u.IsOwner != nil && *u.IsOwner})
	}
	for _, r := range obj.TenantRoles {
		t.Members = append(t.Members, service.MemberInput{ID: r.TenantRole, Type: service.RoleMember, CaseRoles: r.CaseRoles, IsOwner: r.IsOwner != nil && *r.IsOwner})
	}
	for _, g := range obj.Groups {
		t.Members = append(t.Members, g.input())
	}
	return t.addLegacy(obj.Members)
}

func (t *teamFormat) addLegacy(members []legacyMember) error {
	for _, m := range members {
		in, err := m.input()
		if err != nil {
			return err
		}
		t.Members = append(t.Members, in)
	}
	return nil
}

// strictUnmarshal decodes like the reference engine's mapper: unknown
// fields are an error.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
