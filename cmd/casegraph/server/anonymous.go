package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/casegraph/casegraph/service"
)

// anonymousFile is the JSON file CASEGRAPH_ANONYMOUS_CONFIG names: the
// reference engine's cafienne.api.anonymous-access settings.
type anonymousFile struct {
	User *struct {
		ID    string   `json:"id"`
		Name  string   `json:"name"`
		Email string   `json:"email"`
		Roles []string `json:"roles"`
	} `json:"user"`
	Definitions []struct {
		URL        *string `json:"url"`
		Definition string  `json:"definition"`
		Tenant     string  `json:"tenant"`
		CaseTeam   struct {
			Users []struct {
				UserID    string   `json:"userId"`
				Origin    string   `json:"origin"`
				CaseRoles []string `json:"caseRoles"`
				IsOwner   bool     `json:"isOwner"`
			} `json:"users"`
		} `json:"caseTeam"`
	} `json:"definitions"`
}

// loadAnonymous reads and checks the anonymous-start configuration file;
// an empty path turns anonymous start off (nil). Errors name the setting.
func loadAnonymous(path string) (*service.AnonymousConfig, error) {
	if path == "" {
		return nil, nil
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("CASEGRAPH_ANONYMOUS_CONFIG (%s): "+format, append([]any{path}, args...)...)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fail("cannot read the file: %v", err)
	}
	var f anonymousFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fail("not the expected JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail("not the expected JSON: more than one value")
	}
	if f.User == nil {
		return nil, fail(`it has no "user" {id, name, email, roles}`)
	}
	cfg := &service.AnonymousConfig{User: service.AnonymousUser{ID: f.User.ID, Name: f.User.Name, Email: f.User.Email, Roles: f.User.Roles}}
	for i, d := range f.Definitions {
		if d.URL == nil {
			return nil, fail(`definition %d has no "url" (use "" for POST /request/case)`, i+1)
		}
		def := service.AnonymousDefinition{URL: *d.URL, Definition: d.Definition, Tenant: d.Tenant}
		for _, u := range d.CaseTeam.Users {
			def.Team = append(def.Team, service.MemberInput{ID: u.UserID, Type: service.UserMember, CaseRoles: u.CaseRoles,
				IsOwner: u.IsOwner, Origin: u.Origin})
		}
		cfg.Definitions = append(cfg.Definitions, def)
	}
	if err := cfg.Check(); err != nil {
		return nil, fail("%v", err)
	}
	return cfg, nil
}
