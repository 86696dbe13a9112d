package rest

import (
	"cmp"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/service"
)

// instant formats a time as the reference engine's Java Instant.
func instant(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return service.JavaInstant(t)
}

// caseModified answers a case command: 200 with {} and Case-Last-Modified.
func caseModified(w http.ResponseWriter, lm service.LastModified) {
	w.Header().Set("Case-Last-Modified", lm.String())
	writeJSON(w, http.StatusOK, struct{}{})
}

// caseSummary is the reference engine's CaseRecord JSON, as lists show it.
type caseSummary struct {
	ID           string         `json:"id"`
	Tenant       string         `json:"tenant"`
	CaseName     string         `json:"caseName"`
	Definition   string         `json:"definition"`
	Name         string         `json:"name"`
	State        string         `json:"state"`
	Failures     int            `json:"failures"`
	ParentCaseID string         `json:"parentCaseId"`
	RootCaseID   string         `json:"rootCaseId"`
	CreatedOn    string         `json:"createdOn"`
	CreatedBy    string         `json:"createdBy"`
	LastModified string         `json:"lastModified"`
	ModifiedBy   string         `json:"modifiedBy"`
	CaseInput    string         `json:"caseInput"`
	CaseOutput   string         `json:"caseOutput"`
	PlanItems    []planItemJSON `json:"planitems"`
	Team         any            `json:"team"`
	File         any            `json:"file"`
}

// toCaseSummary writes the case name into definition and name as well:
// the reference engine keeps both as deprecated copies of caseName, and its
// clients read them so. GraphQL's Case.definition is the definition's file
// name instead (resolvers toCase).
func toCaseSummary(r service.CaseRecord) caseSummary {
	return caseSummary{ID: r.ID, Tenant: r.Tenant, CaseName: r.Name, Definition: r.Name, Name: r.Name, State: r.State,
		Failures: r.Failures, ParentCaseID: r.ParentCaseID, RootCaseID: r.RootCaseID,
		CreatedOn: instant(r.CreatedOn), CreatedBy: r.CreatedBy, LastModified: instant(r.LastModified), ModifiedBy: r.ModifiedBy,
		PlanItems: []planItemJSON{}, Team: []any{}, File: map[string]any{}}
}

// planItemJSON is the reference engine's plan item JSON.
type planItemJSON struct {
	ID           string `json:"id"`
	CaseID       string `json:"caseInstanceId"`
	DefinitionID string `json:"definitionId"`
	StageID      string `json:"stageId"`
	Name         string `json:"name"`
	Index        int    `json:"index"`
	CurrentState string `json:"currentState"`
	HistoryState string `json:"historyState"`
	IsRequired   bool   `json:"isRequired"`
	IsRepeating  bool   `json:"isRepeating"`
	Type         string `json:"type"`
	Transition   string `json:"transition"`
	LastModified string `json:"lastModified"`
	ModifiedBy   string `json:"modifiedBy"`
	User         string `json:"user"`
}

func toPlanItemJSON(caseID string, p *service.PlanItem) planItemJSON {
	return planItemJSON{ID: p.ID, CaseID: caseID, DefinitionID: p.DefinitionID, StageID: p.StageID, Name: p.Name, Index: p.Index,
		CurrentState: string(p.State), HistoryState: string(p.HistoryState), IsRequired: p.Required, IsRepeating: p.Repeating,
		Type: p.Type, Transition: string(p.LastTransition), LastModified: instant(p.LastModified), ModifiedBy: p.ModifiedBy, User: p.ModifiedBy}
}

func toPlanItemsJSON(caseID string, items []*service.PlanItem) []planItemJSON {
	out := make([]planItemJSON, len(items))
	for i, p := range items {
		out[i] = toPlanItemJSON(caseID, p)
	}
	return out
}

// teamJSON is the reference engine's case team object.
type teamJSON struct {
	Users           []teamUserJSON       `json:"users"`
	Groups          []teamGroupJSON      `json:"groups"`
	TenantRoles     []teamTenantRoleJSON `json:"tenantRoles"`
	CaseRoles       []string             `json:"caseRoles"`
	UnassignedRoles []string             `json:"unassignedRoles"`
}

type teamUserJSON struct {
	UserID    string   `json:"userId"`
	Origin    string   `json:"origin"`
	IsOwner   bool     `json:"isOwner"`
	CaseRoles []string `json:"caseRoles"`
}

type teamTenantRoleJSON struct {
	TenantRole string   `json:"tenantRole"`
	IsOwner    bool     `json:"isOwner"`
	CaseRoles  []string `json:"caseRoles"`
}

type teamGroupJSON struct {
	GroupID  string            `json:"groupId"`
	Mappings []teamMappingJSON `json:"mappings"`
}

type teamMappingJSON struct {
	GroupRole string   `json:"groupRole"`
	IsOwner   bool     `json:"isOwner"`
	CaseRoles []string `json:"caseRoles"`
}

// toTeamJSON translates the service's team view to the reference
// engine's team object.
func toTeamJSON(v service.TeamView) teamJSON {
	out := teamJSON{Users: []teamUserJSON{}, Groups: []teamGroupJSON{}, TenantRoles: []teamTenantRoleJSON{},
		CaseRoles: nonNil(v.Roles), UnassignedRoles: nonNil(v.Unset)}
	for _, m := range v.Users {
		out.Users = append(out.Users, teamUserJSON{UserID: m.ID, Origin: m.Origin, IsOwner: m.IsOwner, CaseRoles: nonNil(m.CaseRoles)})
	}
	for _, m := range v.TenantRoles {
		out.TenantRoles = append(out.TenantRoles, teamTenantRoleJSON{TenantRole: m.ID, IsOwner: m.IsOwner, CaseRoles: nonNil(m.CaseRoles)})
	}
	for _, m := range v.Groups {
		g := teamGroupJSON{GroupID: m.ID, Mappings: []teamMappingJSON{}}
		for _, mp := range m.Mappings {
			g.Mappings = append(g.Mappings, teamMappingJSON{GroupRole: mp.GroupRole, IsOwner: mp.IsOwner, CaseRoles: nonNil(mp.CaseRoles)})
		}
		out.Groups = append(out.Groups, g)
	}
	return out
}

func (a *API) startCase(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	var body struct {
		Definition     string         `json:"definition"`
		Inputs         map[string]any `json:"inputs"`
		CaseTeam       *teamFormat    `json:"caseTeam"`
		Tenant         string         `json:"tenant"`
		CaseInstanceID string         `json:"caseInstanceId"`
		Debug          bool           `json:"debug"`
	}
	if err := decodeJSON(r, &body); err != nil {
		a.writeError(w, r, err)
		return
	}
	in := service.StartCaseInput{Definition: body.Definition, Inputs: body.Inputs, Tenant: body.Tenant,
		CaseInstanceID: body.CaseInstanceID, Debug: body.Debug}
	if body.CaseTeam != nil {
		in.Team = body.CaseTeam.Members
	}
	started, err := a.svc.StartCase(r.Context(), who, in)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("Case-Last-Modified", started.LastModified.String())
	writeJSON(w, http.StatusOK, map[string]string{"caseInstanceId": started.ID, "name": started.Name})
}

func (a *API) listCases(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	q := r.URL.Query()
	caseName := q.Get("caseName")
	if caseName == "" {
		caseName = q.Get("definition")
	}
	offset, n, ok := page(w, q)
	if !ok {
		return
	}
	recs, err := a.svc.ListCases(r.Context(), who, service.CaseQuery{Tenant: q.Get("tenant"), State: q.Get("state"),
		CaseName: caseName, Identifiers: q.Get("identifiers"), Offset: offset, NumberOfResults: n,
		SortBy: q.Get("sortBy"), SortOrder: q.Get("sortOrder")})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	out := make([]caseSummary, len(recs))
	for i, rec := range recs {
		out[i] = toCaseSummary(rec)
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *API) getCase(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	v, err := a.svc.GetCase(r.Context(), who, r.PathValue("caseId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	type identifier struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	ids := make([]identifier, 0, len(v.Identifiers))
	for _, id := range v.Identifiers {
		ids = append(ids, identifier{Name: id.Name, Value: id.Value})
	}
	file := v.State.File
	if file == nil {
		file = map[string]any{}
	}
	out := struct {
		caseSummary
		Identifiers []identifier `json:"identifiers"`
	}{toCaseSummary(v.Record), ids}
	out.Team = toTeamJSON(v.TeamView())
	out.File = file
	out.PlanItems = toPlanItemsJSON(v.Record.ID, v.State.PlanItems)
	writeJSON(w, http.StatusOK, out)
}

func (a *API) caseDefinition(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	xml, err := a.svc.CaseDefinitionXML(r.Context(), who, r.PathValue("caseId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/xml; charset=UTF-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(xml))
}

func (a *API) planItems(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	id := r.PathValue("caseId")
	items, err := a.svc.PlanItems(r.Context(), who, id)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toPlanItemsJSON(id, items))
}

func (a *API) planItem(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	v, err := a.svc.GetPlanItem(r.Context(), who, r.PathValue("planItemId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toPlanItemJSON(v.CaseID, v.Item))
}

func (a *API) makeTransition(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	lm, err := a.svc.MakeTransition(r.Context(), who, r.PathValue("caseId"), r.PathValue("planItem"), r.PathValue("transition"))
	if err != nil { // a transition that changed nothing answers 304 through statusOf
		a.writeError(w, r, err)
		return
	}
	caseModified(w, lm)
}

// caseHistoryEvents serves GET /cases/{id}/history/events: the debug
// view's entries, all of them.
func (a *API) caseHistoryEvents(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	events, err := a.svc.DebugEvents(r.Context(), who, r.PathValue("caseId"), 0, math.MaxInt64)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toEventsJSON(r.PathValue("caseId"), events))
}

// debugEvents serves GET /debug/{modelId}?from=&to=, the reference
// engine's raw event view: the events numbered from `from` to `to`, both
// included, as its journal query reads them; 64-bit integers there.
func (a *API) debugEvents(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	q := r.URL.Query()
	from, _, malformedFrom := intParam(q, "from", 64)
	to, given, malformedTo := intParam(q, "to", 64)
	if malformed := cmp.Or(malformedFrom, malformedTo); malformed != "" {
		writeText(w, http.StatusBadRequest, malformed)
		return
	}
	if !given {
		to = math.MaxInt64
	}
	events, err := a.svc.DebugEvents(r.Context(), who, r.PathValue("modelId"), from, to)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toEventsJSON(r.PathValue("modelId"), events))
}

// msgNoResource is the HTTP library's text for a 404 of a route it does not
// serve.
const msgNoResource = "The requested resource could not be found but may be available again in the future."

// forceRecovery serves PATCH /debug/force-recovery/{caseId}: the case's
// read tables rebuilt, answered 200 with the reference engine's text. Not
// configured, the route answers 404 as the reference's does while its
// debug events are not open.
func (a *API) forceRecovery(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	if !a.svc.ForceRecoveryEnabled() {
		writeText(w, http.StatusNotFound, msgNoResource)
		return
	}
	id := r.PathValue("caseId")
	if err := a.svc.RecoverCase(r.Context(), who, id); err != nil {
		a.writeError(w, r, err)
		return
	}
	writeText(w, http.StatusOK, "Forced recovery of "+id)
}

// eventJSON is an event as the reference engine's debug and history views
// show it: its number, its journal offset (a string there), its type, and
// its content with the modelEvent header.
type eventJSON struct {
	Nr      int64          `json:"nr"`
	Offset  string         `json:"offset"`
	Type    string         `json:"type"`
	Content map[string]any `json:"content"`
}

// modelEventJSON is the reference's modelEvent header, in its key order.
type modelEventJSON struct {
	Actor         string        `json:"actor"`
	ActorID       string        `json:"actorId"`
	CorrelationID string        `json:"correlationId"`
	Tenant        string        `json:"tenant"`
	Timestamp     string        `json:"timestamp"`
	User          eventUserJSON `json:"user"`
}

type eventUserJSON struct {
	UserID      string   `json:"userId"`
	Origin      string   `json:"origin"`
	TenantRoles []string `json:"tenantRoles"`
	Groups      []string `json:"groups"`
}

func toEventsJSON(id string, events []service.DebugEvent) []eventJSON {
	out := make([]eventJSON, 0, len(events))
	for _, e := range events {
		// Raw values keep the stored text: clients compare engineVersion
		// with /version as JSON text, key order included.
		raw := map[string]json.RawMessage{}
		_ = jsonUnmarshal(e.Payload, &raw)
		content := make(map[string]any, len(raw)+1)
		for k, v := range raw {
			content[k] = v
		}
		if e.Path != "" {
			content["path"] = e.Path
		}
		u := e.User
		content["modelEvent"] = modelEventJSON{Actor: e.Actor, ActorID: id, CorrelationID: e.CorrelationID, Tenant: e.Tenant,
			Timestamp: instant(e.At), User: eventUserJSON{UserID: u.UserID, Origin: u.Origin, TenantRoles: u.TenantRoles, Groups: u.Groups}}
		out = append(out, eventJSON{Nr: e.Seq, Offset: strconv.FormatInt(e.Seq-1, 10), Type: e.Type, Content: content})
	}
	return out
}

// planItemHistoryJSON is the reference engine's PlanItemHistory record.
type planItemHistoryJSON struct {
	ID           string `json:"id"`
	PlanItemID   string `json:"planItemId"`
	Name         string `json:"name"`
	Index        int    `json:"index"`
	StageID      string `json:"stageId"`
	CaseID       string `json:"caseInstanceId"`
	CurrentState string `json:"currentState"`
	HistoryState string `json:"historyState"`
	Type         string `json:"type"`
	Transition   string `json:"transition"`
	Repeating    bool   `json:"repeating"`
	Required     bool   `json:"required"`
	LastModified string `json:"lastModified"`
	ModifiedBy   string `json:"modifiedBy"`
	EventType    string `json:"eventType"`
	SequenceNr   int64  `json:"sequenceNr"`
}

func toPlanItemHistory(recs []service.PlanItemHistoryRecord) []planItemHistoryJSON {
	out := make([]planItemHistoryJSON, len(recs))
	for i, h := range recs {
		out[i] = planItemHistoryJSON{ID: h.ID, PlanItemID: h.PlanItemID, Name: h.Name, Index: h.Index, StageID: h.StageID,
			CaseID: h.CaseID, CurrentState: h.CurrentState, HistoryState: h.HistoryState, Type: h.Type, Transition: h.Transition,
			Repeating: h.Repeating, Required: h.Required, LastModified: instant(h.LastModified), ModifiedBy: h.ModifiedBy,
			EventType: h.EventType, SequenceNr: h.SequenceNr}
	}
	return out
}

func (a *API) planItemsHistory(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	hist, err := a.svc.PlanItemHistory(r.Context(), who, r.PathValue("caseId"), "")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	out := make([][]planItemHistoryJSON, len(hist))
	for i, h := range hist {
		out[i] = toPlanItemHistory(h)
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *API) planItemHistory(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	hist, err := a.svc.PlanItemHistory(r.Context(), who, r.PathValue("caseId"), r.PathValue("planItemId"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toPlanItemHistory(hist[0]))
}

// setDebug switches debug mode: PUT /cases/{id}/debug/{true|false}.
func (a *API) setDebug(w http.ResponseWriter, r *http.Request, who auth.Identity) {
	on, err := strconv.ParseBool(r.PathValue("mode"))
	if err != nil {
		writeText(w, http.StatusBadRequest, "Debug mode must be true or false, not '"+r.PathValue("mode")+"'")
		return
	}
	lm, err := a.svc.SetCaseDebug(r.Context(), who, r.PathValue("caseId"), on)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	caseModified(w, lm)
}

// nonNil is roles, or [] for none: the reference engine never sends null
// lists.
func nonNil(roles []string) []string {
	if roles == nil {
		return []string{}
	}
	return roles
}
