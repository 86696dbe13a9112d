package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"

	"github.com/casegraph/casegraph/service"
)

// bodyRequest is a request carrying body as JSON, as the handlers get it.
func bodyRequest(body []byte) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return r
}

// checkInvalid fails unless err is a service error of kind Invalid with a
// message: the 400 every malformed body must get.
func checkInvalid(t *testing.T, body []byte, err error) {
	t.Helper()
	var se *service.Error
	if !errors.As(err, &se) || se.Kind != service.Invalid || se.Msg == "" {
		t.Fatalf("body %q: error %T %v, want a service.Invalid error", body, err, err)
	}
}

// FuzzTeamBody decodes a case team body in every format the REST door
// reads (POST /cases/{id}/caseteam, caseTeam of a new case): a refused body
// is a clear Invalid error; an accepted one has only user and role members,
// and the team written back in the response format reads as the same team.
func FuzzTeamBody(f *testing.F) {
	for _, seed := range []string{
		`{"users":[{"userId":"alice","isOwner":true,"caseRoles":["Approver"]}],"tenantRoles":[{"tenantRole":"staff","caseRoles":[]}]}`,
		`{"users":[{"userId":"alice","origin":"Tenant","isOwner":false}],"groups":[{"groupId":"g","mappings":[{"groupRole":"x","caseRoles":["y"]}]}]}`,
		`{"members":[{"memberId":"bob","memberType":"user","caseRoles":["A"],"isOwner":true},{"memberId":"staff","memberType":"ROLE"}]}`,
		`[{"user":"bob","roles":["A","B"]},{"memberId":"staff","memberType":"role","removeRoles":["x"]}]`,
		`[{"memberId":"x","memberType":"bogus"}]`,
		`{"members":[{"roles":[]}]}`,
		`{"users":[{"userId":"a","unknown":1}]}`,
		`{"users":{"userId":"a"}}`,
		`{"users":[]} {}`,
		`{"groups":[{"groupId":"g","mappings":[{"groupRole":"","caseRoles":["B","A","A"]},{"groupRole":"x","isOwner":true}]}]}`,
		`{"groups":[{"groupId":"g","mappings":[{"groupRole":"x","bogus":1}]}]}`,
		`"team"`, `null`, `[]`, ``, `{"users":[{"userId":"a\u0000"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var team teamFormat
		if err := decodeJSON(bodyRequest(body), &team); err != nil {
			checkInvalid(t, body, err)
			return
		}
		for _, m := range team.Members {
			if m.Type != service.UserMember && m.Type != service.RoleMember && m.Type != service.GroupTeamMember {
				t.Fatalf("body %q: member %q has type %q", body, m.ID, m.Type)
			}
		}
		members := make([]service.Member, len(team.Members))
		for i, m := range team.Members {
			members[i] = service.Member{ID: m.ID, Type: m.Type, CaseRoles: m.CaseRoles, IsOwner: m.IsOwner}
			if m.Type == service.GroupTeamMember {
				members[i] = service.NewGroupMember(m.ID, m.Mappings)
			}
		}
		out := toTeamJSON(service.NewTeamView("", service.Team{Members: members}, nil))
		echo, err := json.Marshal(map[string]any{"users": out.Users, "tenantRoles": out.TenantRoles, "groups": out.Groups})
		if err != nil {
			t.Fatal(err)
		}
		var back teamFormat
		if err := decodeJSON(bodyRequest(echo), &back); err != nil {
			t.Fatalf("body %q: the team written back does not read: %v\n%s", body, err, echo)
		}
		if a, b := teamKey(team), teamKey(back); !reflect.DeepEqual(a, b) {
			t.Fatalf("body %q: the team changed in a round trip:\n%v\n%v", body, a, b)
		}
	})
}

// teamKey is a team in a comparable form: users first then roles, as the
// response format orders them, and no roles the same as empty roles.
func teamKey(t teamFormat) []any {
	var users, roles, groups []any
	for _, m := range t.Members {
		k := []any{m.ID, m.Type, m.IsOwner, append([]string{}, m.CaseRoles...)}
		switch m.Type {
		case service.RoleMember:
			roles = append(roles, k)
		case service.GroupTeamMember:
			g := []any{m.ID}
			for _, mp := range m.Mappings {
				roles := slices.Clone(mp.CaseRoles)
				slices.Sort(roles)
				g = append(g, []any{mp.GroupRole, mp.IsOwner, slices.Compact(append([]string{}, roles...))})
			}
			groups = append(groups, g)
		default:
			users = append(users, k)
		}
	}
	return []any{users, roles, groups}
}

// FuzzTaskBody decodes task command bodies: the output of complete, save
// and validate, the assignee of assign and delegate, and the plan request
// of a discretionary item. A refused body is a clear Invalid error; an
// accepted output is an object that reads back the same once encoded.
func FuzzTaskBody(f *testing.F) {
	for _, seed := range []string{
		`{"Answer":{"Text":"Hi","Pleased":true}}`,
		`{"Decision":{"Approved":false,"Amount":1.5e3,"Lines":[{"Code":"a"},null,7]}}`,
		`{}`, ``, `  `, `null`, `[1]`, `"x"`, `{"a":1} {"b":2}`, `{"a":`,
		`{"assignee":"bob"}`, `{"assignee":7}`, `{"assignee":"bob","x":1}`,
		`{"name":"Plan me","definitionId":"d","parentId":"p","planItemId":"i"}`,
		`{"a":"\u0000"}`, `{"a":"\ud800"}`, `{"n":123456789012345678901234567890}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		output, err := taskOutput(bodyRequest(body))
		if err != nil {
			checkInvalid(t, body, err)
		} else if output != nil {
			again, err := json.Marshal(output)
			if err != nil {
				t.Fatalf("body %q: the output does not encode: %v", body, err)
			}
			back, err := taskOutput(bodyRequest(again))
			if err != nil {
				t.Fatalf("body %q: the output encoded as %s is refused: %v", body, again, err)
			}
			if !reflect.DeepEqual(output, back) {
				t.Fatalf("body %q: the output changed in a round trip:\n%v\n%v", body, output, back)
			}
		}
		var assign struct {
			Assignee string `json:"assignee"`
		}
		if err := decodeJSON(bodyRequest(body), &assign); err != nil {
			checkInvalid(t, body, err)
		}
		var plan struct {
			Name         string `json:"name"`
			DefinitionID string `json:"definitionId"`
			ParentID     string `json:"parentId"`
			PlanItemID   string `json:"planItemId"`
		}
		if err := decodeJSON(bodyRequest(body), &plan); err != nil {
			checkInvalid(t, body, err)
		}
	})
}
