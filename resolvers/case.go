package resolvers

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/casegraph/casegraph/model"
	"github.com/casegraph/casegraph/service"
)

// toCase is the one GraphQL builder of a case. Its definition field is the
// name of the definition the case was started from (the repository's file
// name), which a client needs to load or redeploy that definition; the
// case name is in name. REST's definition field is the reference engine's
// deprecated copy of the case name instead (rest toCaseSummary): no
// GraphQL client depends on that, so GraphQL keeps the more useful value.
func toCase(v service.CaseView) *model.Case {
	r := v.Record
	c := &model.Case{ID: r.ID, Tenant: r.Tenant, Name: r.Name, Definition: r.DefinitionName, State: model.CaseState(r.State), Failures: r.Failures,
		RootCaseID: r.RootCaseID, CreatedOn: r.CreatedOn.UTC(), CreatedBy: r.CreatedBy, LastModified: r.LastModified.UTC(), ModifiedBy: r.ModifiedBy}
	if r.ParentCaseID != "" {
		c.ParentCaseID = &r.ParentCaseID
	}
	return c
}

func toPlanItem(caseID string, p *service.PlanItem) *model.PlanItem {
	out := &model.PlanItem{ID: p.ID, CaseID: caseID, StageID: p.StageID, DefinitionID: p.DefinitionID, Name: p.Name, Type: model.PlanItemType(p.Type),
		Index: p.Index, State: model.PlanItemState(p.State), Transition: model.Transition(p.LastTransition),
		IsRequired: p.Required, IsRepeating: p.Repeating, LastModified: p.LastModified.UTC(), ModifiedBy: p.ModifiedBy, SubCaseID: p.SubCaseID}
	if r := p.Process; r != nil {
		out.ProcessOutcome = &model.ProcessOutcome{Calls: r.Calls, Waiting: r.CallID != ""}
		if r.StatusCode != 0 {
			code := r.StatusCode
			out.ProcessOutcome.StatusCode = &code
		}
		if r.FailureReason != "" {
			reason := r.FailureReason
			out.ProcessOutcome.FailureReason = &reason
		}
	}
	// Null is the engine's "no state yet": no history.
	if h := string(p.HistoryState); h != "" && h != "Null" {
		hs := model.PlanItemState(h)
		out.HistoryState = &hs
	}
	return out
}

// caseResult loads a case after a mutation changed it.
func caseResult(ctx context.Context, id string) (*model.Case, error) {
	v, err := reloadCase(ctx, id)
	if err != nil {
		return nil, err
	}
	return toCase(v), nil
}

// caseResultOr is caseResult for a mutation after which the caller may no
// longer be in the team (it gave the case away, or started it for
// others): the mutation succeeded, so it answers the case as the caller
// last saw it, whose nested fields it may no longer read.
func caseResultOr(ctx context.Context, id string, last service.CaseView, lm service.LastModified) (*model.Case, error) {
	c, err := caseResult(ctx, id)
	if service.KindOf(err) != service.NotFound {
		return c, err
	}
	last.Record.LastModified = lm.At
	return toCase(last), nil
}

// teamMutation runs a change of a case's team and answers the case.
func (r *mutationResolver) teamMutation(ctx context.Context, caseID string, run func(who service.Identity) (service.LastModified, error)) (*model.Case, error) {
	who, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	// The case as it was answers a change that ends the caller's access.
	before, loadErr := loadCase(ctx, caseID)
	if loadErr != nil && service.KindOf(loadErr) != service.NotFound {
		return nil, loadErr
	}
	// A stranger and a member whose account is disabled both miss the
	// case; the service's refusal tells them apart (NOT_FOUND, FORBIDDEN).
	lm, err := run(who)
	if err != nil {
		return nil, err
	}
	if loadErr != nil {
		return nil, loadErr
	}
	return caseResultOr(ctx, caseID, before, lm)
}

// transitionResult answers a transition: a transition that changed
// nothing is not an error here, it says so.
func transitionResult(ctx context.Context, caseID string, err error) (*model.TransitionResult, error) {
	changed := true
	if service.KindOf(err) == service.NotModified {
		changed, err = false, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := caseResult(ctx, caseID)
	if err != nil {
		return nil, err
	}
	return &model.TransitionResult{Changed: changed, Case: c}, nil
}

// A cursor is opaque to clients: it holds its edge's place in the sorted
// list (the sort value and the id), so the next page starts after that
// row whatever was inserted before it, and the sort it belongs to, so that
// it is not used with another.
type cursor struct {
	Sort  string `json:"s"`
	Kind  string `json:"k"` // t: time, i: int, s: string, n: null
	Value string `json:"v,omitempty"`
	ID    string `json:"id"`
}

// sortKey names a list's order: the sort field (last change by default)
// and the direction (descending by default).
func sortKey[F, O ~string](field *F, order *O) (string, string, bool) {
	f, asc := "lastmodified", false
	if field != nil && *field != "" {
		f = string(*field)
	}
	if order != nil && strings.EqualFold(string(*order), "asc") {
		asc = true
	}
	key := f + " desc"
	if asc {
		key = f + " asc"
	}
	return key, f, asc
}

func encodeCursor(sort string, value any, id string) string {
	c := cursor{Sort: sort, ID: id, Kind: "n"}
	switch v := value.(type) {
	case time.Time:
		c.Kind, c.Value = "t", v.UTC().Format(time.RFC3339Nano)
	case *time.Time:
		if v != nil {
			c.Kind, c.Value = "t", v.UTC().Format(time.RFC3339Nano)
		}
	case int:
		c.Kind, c.Value = "i", strconv.Itoa(v)
	case string:
		c.Kind, c.Value = "s", v
	}
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s, sort string) (*service.Keyset, error) {
	bad := service.E("graphql.cursor", service.Invalid, "The cursor is not valid: pass the endCursor of the previous page as after")
	b, err := base64.RawURLEncoding.DecodeString(s)
	var c cursor
	// A NUL (a cursor is decoded past the body's NUL check) reaches SQL,
	// which cuts the query at it.
	if err != nil || json.Unmarshal(b, &c) != nil || c.ID == "" || strings.ContainsRune(c.ID+c.Value, 0) {
		return nil, bad
	}
	if c.Sort != sort {
		return nil, service.Ef("graphql.cursor", service.Invalid,
			"The cursor belongs to a list sorted by %s, not by %s: start again without after", c.Sort, sort)
	}
	k := &service.Keyset{ID: c.ID}
	switch c.Kind {
	case "t":
		t, err := time.Parse(time.RFC3339Nano, c.Value)
		if err != nil {
			return nil, bad
		}
		k.Value = t.UTC()
	case "i":
		n, err := strconv.Atoi(c.Value)
		if err != nil {
			return nil, bad
		}
		k.Value = n
	case "s":
		k.Value = c.Value
	case "n":
	default:
		return nil, bad
	}
	return k, nil
}

// pageWindow turns a Relay connection's first and after into the keyset
// to start after and the page size (at most maxPage).
func pageWindow(first *int, after *string, sort string) (*service.Keyset, int, error) {
	var k *service.Keyset
	if after != nil {
		var err error
		if k, err = decodeCursor(*after, sort); err != nil {
			return nil, 0, err
		}
	}
	n := maxPage
	if first != nil {
		if *first < 0 {
			return nil, 0, service.Ef("resolvers.page", service.Invalid, "first must not be negative (it is %d)", *first)
		}
		// Past the largest page the answer is one page, and hasNextPage
		// says there is more, as Relay allows.
		n = min(*first, maxPage)
	}
	return k, n, nil
}

// countIfAsked counts a connection's rows only when the query selects
// totalCount: the count is one more query.
func countIfAsked(ctx context.Context, count func() (int, error)) (int, error) {
	if !slices.Contains(graphql.CollectAllFields(ctx), "totalCount") {
		return 0, nil
	}
	return count()
}

// caseSortValue is the value of a case's sort field, as its cursor holds it.
func caseSortValue(r service.CaseRecord, field string) any {
	switch field {
	case "id":
		return r.ID
	case "casename":
		return r.Name
	case "state":
		return r.State
	case "tenant":
		return r.Tenant
	case "failures":
		return r.Failures
	case "createdon":
		return r.CreatedOn
	case "createdby":
		return r.CreatedBy
	case "modifiedby":
		return r.ModifiedBy
	}
	return r.LastModified
}

// taskSortValue is the value of a task's sort field, as its cursor holds it.
func taskSortValue(t service.Task, field string) any {
	switch field {
	case "taskstate":
		return t.TaskState
	case "assignee":
		return t.Assignee
	case "owner":
		return t.Owner
	case "duedate":
		return t.DueDate
	case "createdon":
		return t.CreatedOn
	case "createdby":
		return t.CreatedBy
	case "modifiedby":
		return t.ModifiedBy
	}
	return t.LastModified
}

// maxPage bounds a page of any connection: cases and tasks alike.
const maxPage = 1000

func memberInputs(in []*model.CaseTeamMemberInput) []service.MemberInput {
	out := make([]service.MemberInput, 0, len(in))
	for _, m := range in {
		mi := service.MemberInput{ID: m.MemberID, Type: toMemberType(m.MemberType), CaseRoles: m.CaseRoles, IsOwner: m.IsOwner != nil && *m.IsOwner}
		if mi.Type == service.GroupTeamMember {
			mi.Mappings = groupMappings(m.Mappings)
		}
		out = append(out, mi)
	}
	return out
}

func groupMappings(in []*model.GroupMappingInput) []service.GroupMapping {
	out := make([]service.GroupMapping, len(in))
	for i, mp := range in {
		out[i] = service.GroupMapping{GroupRole: mp.GroupRole, IsOwner: mp.IsOwner != nil && *mp.IsOwner, CaseRoles: mp.CaseRoles}
	}
	return out
}

func deref[T ~string](s *T) string {
	if s == nil {
		return ""
	}
	return string(*s)
}

func (r *mutationResolver) changeCaseFile(ctx context.Context, caseID string, op service.CaseFileOp, path string, value any) (*model.Case, error) {
	who, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := r.Service.ChangeCaseFile(ctx, who, caseID, op, path, value); err != nil {
		return nil, err
	}
	return caseResult(ctx, caseID)
}

func toMemberType(t *model.MemberType) service.MemberType {
	switch {
	case t == nil:
		return service.UserMember
	case *t == model.MemberTypeRole:
		return service.RoleMember
	case *t == model.MemberTypeGroup:
		return service.GroupTeamMember
	}
	return service.UserMember
}

// toCaseTeam translates the service's team view: users, then consent
// groups, then tenant roles, as the REST door lists them.
func toCaseTeam(v service.TeamView) *model.CaseTeam {
	out := &model.CaseTeam{Members: []*model.Member{}, CaseRoles: nonNilRoles(v.Roles), UnassignedRoles: nonNilRoles(v.Unset)}
	add := func(m service.Member, typ model.MemberType) *model.Member {
		mm := &model.Member{CaseID: v.CaseID, MemberID: m.ID, MemberType: typ, CaseRoles: nonNilRoles(m.CaseRoles), IsOwner: m.IsOwner,
			Mappings: []*model.GroupMapping{}}
		out.Members = append(out.Members, mm)
		return mm
	}
	for _, m := range v.Users {
		mm := add(m, model.MemberTypeUser)
		if m.Origin != "" {
			origin := m.Origin
			mm.Origin = &origin
		}
	}
	for _, m := range v.Groups {
		mm := add(m, model.MemberTypeGroup)
		for _, mp := range m.Mappings {
			mm.Mappings = append(mm.Mappings, &model.GroupMapping{GroupRole: mp.GroupRole, IsOwner: mp.IsOwner, CaseRoles: nonNilRoles(mp.CaseRoles)})
		}
	}
	for _, m := range v.TenantRoles {
		add(m, model.MemberTypeRole)
	}
	return out
}

// caseRecordFields are the fields of Case its list row holds. A list whose
// nodes select no other reads no case state: decoding every listed case's
// state for `cases(first: 1000) { edges { node { id } } }`, aliased a
// hundred times, took gigabytes of memory.
var caseRecordFields = map[string]bool{"__typename": true, "id": true, "tenant": true, "name": true, "definition": true,
	"state": true, "failures": true, "parentCaseId": true, "rootCaseId": true, "createdOn": true, "createdBy": true,
	"lastModified": true, "modifiedBy": true}

// listCaseViews lists the caller's cases for a connection whose nodes are
// at path below the field being resolved: with their states when the
// nodes select more than their records, without otherwise.
func listCaseViews(ctx context.Context, svc *service.Service, who service.Identity, q service.CaseQuery, path ...string) ([]service.CaseView, error) {
	beyondRow := func(f *ast.Field) bool { return !caseRecordFields[f.Name] }
	if fc := graphql.GetFieldContext(ctx); fc == nil || anyFieldAt(fc.Field.Selections, path, beyondRow) {
		return svc.ListCaseViews(ctx, who, q)
	}
	recs, err := svc.ListCases(ctx, who, q)
	if err != nil {
		return nil, err
	}
	views := make([]service.CaseView, len(recs))
	for i, rec := range recs {
		views[i] = service.CaseView{Record: rec}
	}
	return views, nil
}
