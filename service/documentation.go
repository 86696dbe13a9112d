package service

import (
	"context"
	"strings"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
)

// Documentation is a documentation text of the definition.
type Documentation struct {
	TextFormat string
	Text       string
}

// PlanItemDocumentation returns the documentation of a plan item's
// definition; nil when it has none.
func (s *Service) PlanItemDocumentation(ctx context.Context, who auth.Identity, caseID, planItemID string) (*Documentation, error) {
	const op = "service.PlanItemDocumentation"
	ca, err := s.memberCase(ctx, s.db, op, who, caseID)
	if err != nil {
		return nil, err
	}
	if ca.c.PlanItem(planItemID) == nil {
		return nil, PlanItemNotFound(op, planItemID)
	}
	return s.DocumentationOf(ctx, CaseView{Record: ca.rec, State: ca.c}, planItemID)
}

// DocumentationOf returns the documentation of a plan item of a case the
// caller already has (from LoadCases): no SQL while its definition is
// cached.
func (s *Service) DocumentationOf(ctx context.Context, v CaseView, planItemID string) (*Documentation, error) {
	const op = "service.DocumentationOf"
	p := v.State.PlanItem(planItemID)
	if p == nil {
		return nil, nil
	}
	def, err := s.caseDefinition(ctx, s.db, v.Record, v.State)
	if err != nil {
		return nil, wrap(op, err)
	}
	// The first of these that is documented answers: the case plan's
	// item documents the case, a plan item its definition.
	var documented []documentedElement
	if p.StageID == "" {
		documented = append(documented, def, def.Plan())
	} else if pd := def.PlanItem(p.DefinitionID); pd != nil {
		documented = append(documented, pd)
		if pd.Definition() != nil {
			documented = append(documented, pd.Definition())
		}
	}
	for _, e := range documented {
		if doc := documentationOf(e); doc != nil {
			return doc, nil
		}
	}
	return nil, nil
}

// documentedElement is a definition element that may carry documentation.
type documentedElement interface {
	Documentation() string
	DocumentationFormat() string
}

// documentationOf is e's documentation, nil when it has none.
func documentationOf(e documentedElement) *Documentation {
	if e.Documentation() == "" {
		return nil
	}
	return &Documentation{TextFormat: e.DocumentationFormat(), Text: e.Documentation()}
}

// CaseFileDocumentation is the documentation of one case file item.
type CaseFileDocumentation struct {
	Path          string
	Documentation Documentation
}

// CaseFileDocumentation returns the documented case file items of a case's
// definition.
func (s *Service) CaseFileDocumentation(ctx context.Context, who auth.Identity, caseID string) ([]CaseFileDocumentation, error) {
	const op = "service.CaseFileDocumentation"
	ca, err := s.memberCase(ctx, s.db, op, who, caseID)
	if err != nil {
		return nil, err
	}
	def, err := s.caseDefinition(ctx, s.db, ca.rec, ca.c)
	if err != nil {
		return nil, wrap(op, err)
	}
	out := []CaseFileDocumentation{}
	for _, item := range def.CaseFileItems() {
		if doc := documentationOf(item); doc != nil {
			out = append(out, CaseFileDocumentation{Path: item.Path(), Documentation: *doc})
		}
	}
	return out, nil
}

// IdentifierRecord is a business identifier with its case.
type IdentifierRecord = db.IdentifierRecord

// IdentifierQuery filters and pages business identifiers.
type IdentifierQuery struct {
	Tenant, Name    string
	Offset          int
	NumberOfResults int
	SortBy          string
	SortOrder       string
}

// Identifiers returns business identifiers of the caller's cases.
func (s *Service) Identifiers(ctx context.Context, who auth.Identity, q IdentifierQuery) ([]IdentifierRecord, error) {
	limit := pageSize(q.NumberOfResults)
	recs, err := db.Identifiers(ctx, s.db, who.UserID, q.Tenant, q.Name, q.Offset, limit, q.SortBy, strings.EqualFold(q.SortOrder, "asc"))
	return recs, wrap("service.Identifiers", err)
}

// IdentifierNames returns the names of business identifiers of the
// caller's cases.
func (s *Service) IdentifierNames(ctx context.Context, who auth.Identity, tenant string) ([]string, error) {
	names, err := db.IdentifierNames(ctx, s.db, who.UserID, tenant)
	if names == nil {
		names = []string{}
	}
	return names, wrap("service.IdentifierNames", err)
}
