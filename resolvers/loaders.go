package resolvers

import (
	"context"
	"time"

	"github.com/graph-gophers/dataloader/v7"

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
	return service.Ef("graphql.case", service.NotFound, "A case with id '%s' cannot be found.", id)
}
