package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
	"github.com/casegraph/casegraph/engine/cmmn"
)

// CaseQuery filters and pages a case list, as GET /cases does.
type CaseQuery struct {
	Tenant      string
	State       string
	CaseName    string
	Identifiers string // "name=value,name!=value,name"
	Offset      int
	// NumberOfResults defaults to DefaultPageSize.
	NumberOfResults int
	SortBy          string
	// SortOrder "asc" sorts ascending; anything else descending.
	SortOrder string
	// After pages by keyset instead of Offset (GraphQL's cursors).
	After *Keyset
}

// Keyset is a row's place in a sorted list: its sort value (nil for
// NULL) and its id.
type Keyset = db.Keyset

// ListCases returns the cases the caller is in the team of. The filter is
// SQL; the whole result is sorted before the page is cut.
func (s *Service) ListCases(ctx context.Context, who auth.Identity, q CaseQuery) ([]CaseRecord, error) {
	loaded, err := s.listCases(ctx, "service.ListCases", who, q, false)
	if err != nil {
		return nil, err
	}
	recs := make([]CaseRecord, len(loaded))
	for i, lc := range loaded {
		recs[i] = lc.Record
	}
	return recs, nil
}

// ListCaseViews is ListCases with each case's whole state, in the same one
// query: GraphQL primes its case loader with them.
func (s *Service) ListCaseViews(ctx context.Context, who auth.Identity, q CaseQuery) ([]CaseView, error) {
	const op = "service.ListCaseViews"
	loaded, err := s.listCases(ctx, op, who, q, true)
	if err != nil {
		return nil, err
	}
	roles, err := s.tenantRolesOf(ctx, who)
	if err != nil {
		return nil, wrap(op, err)
	}
	groups, err := s.listGroups(ctx, who, loaded)
	if err != nil {
		return nil, wrap(op, err)
	}
	views := make([]CaseView, len(loaded))
	for i, lc := range loaded {
		if views[i], err = s.caseView(ctx, lc.Record, lc.State); err != nil {
			return nil, wrap(op, err)
		}
		views[i].Actor, _ = actorOf(who, lc.State.Team, roles[lc.Record.Tenant], groups[lc.Record.Tenant])
	}
	return views, nil
}

// CountCaseList counts the cases ListCases would list, all pages
// together.
func (s *Service) CountCaseList(ctx context.Context, who auth.Identity, q CaseQuery) (int, error) {
	const op = "service.CountCaseList"
	ids, err := parseIdentifierFilter(q.Identifiers)
	if err != nil {
		return 0, Ef(op, Invalid, "Invalid identifiers filter: %v", err)
	}
	n, err := db.CountCases(ctx, s.db, who.UserID, db.CaseFilter{Tenant: q.Tenant, State: q.State, CaseName: q.CaseName, Identifiers: ids})
	return n, wrap(op, err)
}

func (s *Service) listCases(ctx context.Context, op string, who auth.Identity, q CaseQuery, withState bool) ([]db.LoadedCase, error) {
	ids, err := parseIdentifierFilter(q.Identifiers)
	if err != nil {
		return nil, Ef(op, Invalid, "Invalid identifiers filter: %v", err)
	}
	limit := pageSize(q.NumberOfResults)
	loaded, err := db.ListCases(ctx, s.db, who.UserID, db.CaseFilter{Tenant: q.Tenant, State: q.State, CaseName: q.CaseName,
		Identifiers: ids, Offset: q.Offset, Limit: limit, SortBy: q.SortBy, Ascending: strings.EqualFold(q.SortOrder, "asc"), After: q.After}, withState)
	return loaded, wrap(op, err)
}

// maxIdentifierNames bounds the names of an identifiers filter: each is
// one more EXISTS, and PostgreSQL took 11 s to plan 100 of them (SQLite
// refused 1,000 as too deep an expression). Values of one name are one IN.
const maxIdentifierNames = 10

// parseIdentifierFilter parses "name=value,name!=value,name": several
// values of one name are OR-ed, different names AND-ed.
func parseIdentifierFilter(s string) ([]db.IdentifierCondition, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	byName := map[string]*db.IdentifierCondition{}
	var order []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" || strings.HasPrefix(part, "!") {
			continue // "!name" is parsed but not supported, as in the reference engine
		}
		name, value, not := part, "", false
		if n, v, ok := strings.Cut(part, "!="); ok {
			name, value, not = n, v, true
		} else if n, v, ok := strings.Cut(part, "="); ok {
			name, value = n, v
		}
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, errors.New("a condition has no identifier name")
		}
		c := byName[name]
		if c == nil {
			c = &db.IdentifierCondition{Name: name, Not: not}
			byName[name] = c
			order = append(order, name)
		}
		if value != "" || strings.Contains(part, "=") {
			c.Values = append(c.Values, value)
		}
	}
	if len(order) > maxIdentifierNames {
		return nil, fmt.Errorf("it names %d identifiers; the limit is %d", len(order), maxIdentifierNames)
	}
	out := make([]db.IdentifierCondition, 0, len(order))
	for _, n := range order {
		out = append(out, *byName[n])
	}
	return out, nil
}

// CaseView is a whole case as a team member sees it.
type CaseView struct {
	Record      CaseRecord
	State       *Case
	Identifiers []Identifier
	// CaseRoles are the roles the definition declares.
	CaseRoles []string
	// Actor is the caller as the case sees it.
	Actor engine.Actor

	def  *cmmn.Case
	perf *performCache
}

// performCache holds a view's mayPerform predicate, built on first use:
// copies of the view share it.
type performCache struct {
	once sync.Once
	may  func(taskID string) bool
}

// MayPerform reports whether the viewing caller may work on task taskID
// now, by the engine's own claim check (role or assignee, four-eyes,
// rendez-vous): the truth the mayPerform fields tell.
func (v CaseView) MayPerform(taskID string) bool {
	if v.perf == nil {
		return engine.MayPerform(v.def, v.State, v.Actor)(taskID)
	}
	v.perf.once.Do(func() { v.perf.may = engine.MayPerform(v.def, v.State, v.Actor) })
	return v.perf.may(taskID)
}

// Identifier is a business identifier of a case.
type Identifier = db.Identifier

// GetCase returns a case to a member of its team.
func (s *Service) GetCase(ctx context.Context, who auth.Identity, id string) (CaseView, error) {
	const op = "service.GetCase"
	ca, err := s.memberCase(ctx, s.db, op, who, id)
	if err != nil {
		return CaseView{}, err
	}
	v, err := s.caseView(ctx, ca.rec, ca.c)
	if err != nil {
		return CaseView{}, wrap(op, err)
	}
	v.Actor = ca.actor
	return v, nil
}

// LoadCases returns the cases among ids that the caller is in the team of,
// by id, in a fixed number of queries whatever the number of ids: the batch
// behind the GraphQL case loader. Cases the caller may not see are absent,
// exactly like unknown ids.
func (s *Service) LoadCases(ctx context.Context, who auth.Identity, ids []string) (map[string]CaseView, error) {
	const op = "service.LoadCases"
	loaded, err := db.LoadVisibleCases(ctx, s.db, who.UserID, ids)
	if err != nil {
		return nil, wrap(op, err)
	}
	roles, err := s.tenantRolesOf(ctx, who)
	if err != nil {
		return nil, wrap(op, err)
	}
	groups, err := s.loadedGroups(ctx, who, loaded)
	if err != nil {
		return nil, wrap(op, err)
	}
	out := make(map[string]CaseView, len(loaded))
	for id, lc := range loaded {
		v, err := s.caseView(ctx, lc.Record, lc.State)
		if err != nil {
			return nil, wrap(op, err)
		}
		v.Actor, _ = actorOf(who, lc.State.Team, roles[lc.Record.Tenant], groups[lc.Record.Tenant])
		out[id] = v
	}
	return out, nil
}

// tenantRolesOf returns the caller's roles in each tenant it has an
// enabled account in, in one query.
func (s *Service) tenantRolesOf(ctx context.Context, who auth.Identity) (map[string][]string, error) {
	accounts, err := db.UserAccounts(ctx, s.db, who.UserID)
	if err != nil {
		return nil, err
	}
	roles := make(map[string][]string, len(accounts))
	for _, a := range accounts {
		if a.Enabled {
			roles[a.Tenant] = a.Roles
		}
	}
	return roles, nil
}

func (s *Service) caseView(ctx context.Context, rec CaseRecord, c *Case) (CaseView, error) {
	def, err := s.caseDefinition(ctx, s.db, rec, c)
	if err != nil {
		return CaseView{}, err
	}
	v := CaseView{Record: rec, State: c, CaseRoles: []string{}, def: def, perf: &performCache{}}
	for _, r := range def.Roles() {
		v.CaseRoles = append(v.CaseRoles, r.Name())
	}
	for _, bi := range engine.BusinessIdentifiers(def, c) {
		v.Identifiers = append(v.Identifiers, Identifier{Name: bi.Name, Value: bi.Value})
	}
	return v, nil
}

// CaseDefinitionXML returns the definitions document a case runs on.
func (s *Service) CaseDefinitionXML(ctx context.Context, who auth.Identity, id string) (string, error) {
	const op = "service.CaseDefinitionXML"
	ca, err := s.memberCase(ctx, s.db, op, who, id)
	if err != nil {
		return "", err
	}
	xml, err := db.Document(ctx, s.db, ca.rec.DefinitionHash)
	return xml, wrap(op, err)
}

// PlanItems returns the plan items of a case in creation order.
func (s *Service) PlanItems(ctx context.Context, who auth.Identity, id string) ([]*PlanItem, error) {
	const op = "service.PlanItems"
	ca, err := s.memberCase(ctx, s.db, op, who, id)
	if err != nil {
		return nil, err
	}
	return ca.c.PlanItems, nil
}

// PlanItemView is a plan item with the case it belongs to.
type PlanItemView struct {
	CaseID string
	Item   *PlanItem
}

// GetPlanItem returns a plan item by its id, in whatever case of the
// caller's it is (the reference engine ignores the case id of the path).
func (s *Service) GetPlanItem(ctx context.Context, who auth.Identity, planItemID string) (PlanItemView, error) {
	const op = "service.GetPlanItem"
	notFound := PlanItemNotFound(op, planItemID)
	caseID, err := db.PlanItemCase(ctx, s.db, who.UserID, planItemID)
	if errors.Is(err, db.ErrNotFound) {
		return PlanItemView{}, s.hidden(ctx, op, who, notFound, func(ctx context.Context, idb bun.IDB) (string, error) {
			return db.CaseOfPlanItem(ctx, idb, planItemID)
		})
	}
	if err != nil {
		return PlanItemView{}, wrap(op, err)
	}
	ca, err := s.memberCase(ctx, s.db, op, who, caseID)
	if err != nil {
		return PlanItemView{}, notFound
	}
	if p := ca.c.PlanItem(planItemID); p != nil {
		return PlanItemView{CaseID: caseID, Item: p}, nil
	}
	return PlanItemView{}, notFound
}

// CaseFile returns a case's case file.
func (s *Service) CaseFile(ctx context.Context, who auth.Identity, id string) (map[string]any, error) {
	const op = "service.CaseFile"
	ca, err := s.memberCase(ctx, s.db, op, who, id)
	if err != nil {
		return nil, err
	}
	if ca.c.File == nil {
		return map[string]any{}, nil
	}
	return ca.c.File, nil
}
