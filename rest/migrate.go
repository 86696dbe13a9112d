package rest

import (
	"errors"
	"net/http"
	"strings"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/service"
)

// migrateDefinition serves POST /cases/{caseId}/migrate-definition: body
// {newDefinition, newTeam?}, 200 {} with Case-Last-Modified.
func (a *API) migrateDefinition(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	var body struct {
		NewDefinition string      `json:"newDefinition"`
		NewTeam       *teamFormat `json:"newTeam"`
	}
	if err := decodeJSON(r, &body); err != nil {
		a.writeError(w, r, err)
		return
	}
	in := service.MigrateDefinitionInput{Definition: body.NewDefinition}
	if body.NewTeam != nil {
		if len(body.NewTeam.Groups) > 0 {
			writeText(w, http.StatusNotFound, "Cannot find a consent group with id '"+body.NewTeam.Groups[0]+"'")
			return
		}
		// A team given empty is a team replace to nobody, refused as such.
		in.Team = append([]service.MemberInput{}, body.NewTeam.Members...)
	}
	lm, err := a.svc.MigrateCaseDefinition(r.Context(), who, r.PathValue("caseId"), in)
	var invalid *service.InvalidDefinitionError
	if errors.As(err, &invalid) {
		// As for a deploy: the message, then each problem on its own line.
		writeText(w, http.StatusBadRequest, service.Message(err)+"\n"+strings.Join(invalid.Problems, "\n"))
		return
	}
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	caseModified(w, lm)
}
