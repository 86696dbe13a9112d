package resolvers

import (
	"context"

	"github.com/casegraph/casegraph/model"
	"github.com/casegraph/casegraph/service"
)

// visibleCase loads a case of the tree through the request's loader: each
// case on its own team, so one the caller is not in is null, not an error.
func visibleCase(ctx context.Context, id string) (*model.Case, error) {
	if id == "" {
		return nil, nil
	}
	v, err := loadCase(ctx, id)
	if service.KindOf(err) == service.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return toCase(v), nil
}

// subCasesOf lists the sub cases of a case the caller is in the team of.
// It asks the loader for all of them before waiting on any, so they load
// in one batch, together with those of the other cases of the list.
func subCasesOf(ctx context.Context, caseID string) ([]*model.Case, error) {
	v, err := loadCase(ctx, caseID)
	if err != nil {
		return nil, err
	}
	ids := v.SubCaseIDs()
	l := loadersFrom(ctx)
	waits := make([]func() (service.CaseView, error), len(ids))
	for i, id := range ids {
		waits[i] = l.cases.Load(ctx, id)
	}
	out := []*model.Case{}
	for _, wait := range waits {
		sub, err := wait()
		if service.KindOf(err) == service.NotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, toCase(sub))
	}
	return out, nil
}

// caseOutput is the output of a completed case; null before.
func caseOutput(ctx context.Context, caseID string) (any, error) {
	v, err := loadCase(ctx, caseID)
	if err != nil {
		return nil, err
	}
	if out := v.Output(); out != nil {
		return out, nil
	}
	return nil, nil
}

// primeRelatives loads, in one batch, the parents, roots and sub cases of
// the listed cases when the query asks for any of them under path, so a
// page of cases costs the same statements whatever its size. Deeper
// levels (sub cases of sub cases) load through the loader's own batches.
func primeRelatives(ctx context.Context, svc *service.Service, views []service.CaseView, path ...string) error {
	at := func(field ...string) bool { return selects(ctx, append(append([]string{}, path...), field...)...) }
	parents, roots, subs := at("parent"), at("root"), at("subCases") || at("planItems", "subCase")
	if len(views) == 0 || !(parents || roots || subs) {
		return nil
	}
	seen := map[string]bool{}
	for _, v := range views {
		seen[v.Record.ID] = true
	}
	var ids []string
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, v := range views {
		if parents {
			add(v.Record.ParentCaseID)
		}
		if roots {
			add(v.Record.RootCaseID)
		}
		if subs {
			for _, id := range v.SubCaseIDs() {
				add(id)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	who, err := caller(ctx)
	if err != nil {
		return err
	}
	loaded, err := svc.LoadCases(ctx, who, ids)
	if err != nil {
		return err
	}
	l := loadersFrom(ctx)
	for id, v := range loaded {
		l.cases.Prime(ctx, id, v)
	}
	return nil
}
