package resolvers

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/graph-gophers/dataloader/v7"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/casegraph/casegraph/service"
)

// loaders are the dataloaders of one request. They are built per request
// and bound to its caller: every batch is filtered by that caller's team
// memberships, and nothing loaded for one caller is ever served to another.
type loaders struct {
	cases *dataloader.Loader[string, service.CaseView]
	// memberAccounts holds, per case, the tenant accounts of its user
	// members by user id.
	memberAccounts *dataloader.Loader[string, map[string]service.TenantUser]
	// events holds each case's history.
	events *dataloader.Loader[string, []service.CaseEvent]
	// groups holds the consent groups of team members that the caller is
	// a member of, by id (a zero group when it is not).
	groups *dataloader.Loader[string, service.ConsentGroup]
}

type loadersKey struct{}

// loaderWait is how long a loader gathers keys before it runs its batch:
// long enough for the goroutines resolving one list to all ask, short
// enough not to be felt.
const loaderWait = 3 * time.Millisecond

// withLoaders returns ctx with fresh loaders for the request.
func withLoaders(ctx context.Context, svc *service.Service) context.Context {
	l := &loaders{
		cases: dataloader.NewBatchedLoader(func(ctx context.Context, ids []string) []*dataloader.Result[service.CaseView] {
			results := make([]*dataloader.Result[service.CaseView], len(ids))
			who, err := caller(ctx)
			var views map[string]service.CaseView
			if err == nil {
				views, err = svc.LoadCases(ctx, who, ids)
			}
			for i, id := range ids {
				switch v, ok := views[id]; {
				case err != nil:
					results[i] = &dataloader.Result[service.CaseView]{Error: err}
				case !ok:
					results[i] = &dataloader.Result[service.CaseView]{Error: caseNotFound(id)}
				default:
					results[i] = &dataloader.Result[service.CaseView]{Data: v}
				}
			}
			return results
		}, dataloader.WithWait[string, service.CaseView](loaderWait), dataloader.WithBatchCapacity[string, service.CaseView](500)),
	}
	l.memberAccounts = dataloader.NewBatchedLoader(func(ctx context.Context, ids []string) []*dataloader.Result[map[string]service.TenantUser] {
		results := make([]*dataloader.Result[map[string]service.TenantUser], len(ids))
		who, err := caller(ctx)
		var accounts map[string]map[string]service.TenantUser
		if err == nil {
			accounts, err = svc.CaseMemberAccounts(ctx, who, ids)
		}
		for i, id := range ids {
			results[i] = &dataloader.Result[map[string]service.TenantUser]{Data: accounts[id], Error: err}
		}
		return results
	}, dataloader.WithWait[string, map[string]service.TenantUser](loaderWait))
	l.events = dataloader.NewBatchedLoader(func(ctx context.Context, ids []string) []*dataloader.Result[[]service.CaseEvent] {
		results := make([]*dataloader.Result[[]service.CaseEvent], len(ids))
		who, err := caller(ctx)
		var events map[string][]service.CaseEvent
		if err == nil {
			events, err = svc.CaseEventsOf(ctx, who, ids)
		}
		for i, id := range ids {
			results[i] = &dataloader.Result[[]service.CaseEvent]{Data: events[id], Error: err}
		}
		return results
	}, dataloader.WithWait[string, []service.CaseEvent](loaderWait))
	l.groups = dataloader.NewBatchedLoader(func(ctx context.Context, ids []string) []*dataloader.Result[service.ConsentGroup] {
		results := make([]*dataloader.Result[service.ConsentGroup], len(ids))
		who, err := caller(ctx)
		var groups map[string]service.ConsentGroup
		if err == nil {
			groups, err = svc.MemberGroups(ctx, who, ids)
		}
		for i, id := range ids {
			results[i] = &dataloader.Result[service.ConsentGroup]{Data: groups[id], Error: err}
		}
		return results
	}, dataloader.WithWait[string, service.ConsentGroup](loaderWait))
	return context.WithValue(ctx, loadersKey{}, l)
}

func loadersFrom(ctx context.Context) *loaders {
	return ctx.Value(loadersKey{}).(*loaders)
}

// loadCase loads a case the caller is in the team of through the
// request's loader.
func loadCase(ctx context.Context, id string) (service.CaseView, error) {
	return loadersFrom(ctx).cases.Load(ctx, id)()
}

// reloadCase forgets what the request loaded of a case (a mutation just
// changed it) and loads it again.
func reloadCase(ctx context.Context, id string) (service.CaseView, error) {
	l := loadersFrom(ctx)
	l.cases.Clear(ctx, id)
	return l.cases.Load(ctx, id)()
}

func caseNotFound(id string) error {
	return service.CaseNotFound("graphql.case", id)
}

// selects reports whether the current field's selection reaches path,
// through fragments too: a list resolver uses it to load, in one batch,
// what the nested fields of every element will ask for, instead of
// relying on the loaders' timing to gather their keys.
func selects(ctx context.Context, path ...string) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return false
	}
	if len(path) == 0 {
		return true
	}
	last := path[len(path)-1]
	return anyFieldAt(fc.Field.Selections, path[:len(path)-1], func(f *ast.Field) bool { return f.Name == last })
}

// anyFieldAt reports whether a field selected at path in set, through
// fragments too, satisfies match.
func anyFieldAt(set ast.SelectionSet, path []string, match func(*ast.Field) bool) bool {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			switch {
			case len(path) == 0 && match(s):
				return true
			case len(path) > 0 && s.Name == path[0] && anyFieldAt(s.SelectionSet, path[1:], match):
				return true
			}
		case *ast.InlineFragment:
			if anyFieldAt(s.SelectionSet, path, match) {
				return true
			}
		case *ast.FragmentSpread:
			if s.Definition != nil && anyFieldAt(s.Definition.SelectionSet, path, match) {
				return true
			}
		}
	}
	return false
}

// primeMemberAccounts loads the member accounts of the listed cases in one
// batch, when the query will ask for them.
func primeMemberAccounts(ctx context.Context, svc *service.Service, ids []string, path ...string) error {
	if len(ids) == 0 || !selects(ctx, path...) {
		return nil
	}
	who, err := caller(ctx)
	if err != nil {
		return err
	}
	accounts, err := svc.CaseMemberAccounts(ctx, who, ids)
	if err != nil {
		return err
	}
	l := loadersFrom(ctx)
	for _, id := range ids {
		a := accounts[id]
		if a == nil {
			a = map[string]service.TenantUser{}
		}
		l.memberAccounts.Prime(ctx, id, a)
	}
	return nil
}

// primeEvents loads the histories of the listed cases in one batch, when
// the query will ask for them.
func primeEvents(ctx context.Context, svc *service.Service, ids []string, path ...string) error {
	if len(ids) == 0 || !selects(ctx, path...) {
		return nil
	}
	who, err := caller(ctx)
	if err != nil {
		return err
	}
	events, err := svc.CaseEventsOf(ctx, who, ids)
	if err != nil {
		return err
	}
	l := loadersFrom(ctx)
	for _, id := range ids {
		l.events.Prime(ctx, id, events[id])
	}
	return nil
}
