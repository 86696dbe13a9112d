package resolvers

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/casegraph/casegraph/model"
	"github.com/casegraph/casegraph/service"
)

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
		IsRequired: p.Required, IsRepeating: p.Repeating, LastModified: p.LastModified.UTC(), ModifiedBy: p.ModifiedBy}
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
	before, err := loadCase(ctx, caseID)
	if err != nil {
		return nil, err
	}
	lm, err := run(who)
	if err != nil {
		return nil, err
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

// Cursors are opaque to clients; they carry the offset of the edge.
func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(offset)))
}

func decodeCursor(cursor string) (int, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, service.E("graphql.cases", service.Invalid, "The cursor is not valid")
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), "offset:"))
	if err != nil || n < 0 || !strings.HasPrefix(string(b), "offset:") {
		return 0, service.E("graphql.cases", service.Invalid, "The cursor is not valid")
	}
	return n, nil
}

// pageWindow turns a Relay connection's first and after into the offset
// of the first edge and the page size (at most maxPage).
func pageWindow(first *int, after *string) (offset, n int, err error) {
	if after != nil {
		if offset, err = decodeCursor(*after); err != nil {
			return 0, 0, err
		}
		offset++
	}
	n = maxPage
	if first != nil {
		n = min(max(*first, 0), maxPage)
	}
	return offset, n, nil
}

// maxPage bounds a page of cases.
const maxPage = 1000

func memberInputs(in []*model.CaseTeamMemberInput) []service.MemberInput {
	out := make([]service.MemberInput, 0, len(in))
	for _, m := range in {
		mi := service.MemberInput{ID: m.MemberID, Type: service.UserMember, CaseRoles: m.CaseRoles, IsOwner: m.IsOwner != nil && *m.IsOwner}
		if m.MemberType != nil && *m.MemberType == model.MemberTypeRole {
			mi.Type = service.RoleMember
		}
		out = append(out, mi)
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
	if t != nil && *t == model.MemberTypeRole {
		return service.RoleMember
	}
	return service.UserMember
}

func toCaseTeam(caseID string, team service.Team, roles []string) *model.CaseTeam {
	held := map[string]bool{}
	out := &model.CaseTeam{Members: []*model.Member{}, CaseRoles: roles, UnassignedRoles: []string{}}
	for _, m := range team.Members {
		mm := &model.Member{CaseID: caseID, MemberID: m.ID, MemberType: model.MemberTypeUser, CaseRoles: m.CaseRoles, IsOwner: m.IsOwner}
		if mm.CaseRoles == nil {
			mm.CaseRoles = []string{}
		}
		if m.Type == service.RoleMember {
			mm.MemberType = model.MemberTypeRole
		} else if m.Origin != "" {
			origin := m.Origin
			mm.Origin = &origin
		}
		for _, r := range m.CaseRoles {
			held[r] = true
		}
		out.Members = append(out.Members, mm)
	}
	for _, r := range roles {
		if !held[r] {
			out.UnassignedRoles = append(out.UnassignedRoles, r)
		}
	}
	return out
}
