package resolvers

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/casegraph/casegraph/service"
)

// responseBudget is what is left of a request's response-size budget.
// Heavy fields (every JSON field: case files, event payloads, task data)
// are charged their encoded size as they resolve; once the budget is spent
// every further field fails at once, so a response cannot grow past it
// and the remaining work is skipped.
type responseBudget struct {
	left  atomic.Int64
	limit int
}

type budgetKey struct{}

// chargeHeavyFields is the field middleware that keeps the budget.
func chargeHeavyFields(limit int) graphql.FieldMiddleware {
	return func(ctx context.Context, next graphql.Resolver) (any, error) {
		b, _ := ctx.Value(budgetKey{}).(*responseBudget)
		if b == nil {
			return next(ctx)
		}
		if b.left.Load() < 0 {
			return nil, budgetError(b.limit)
		}
		res, err := next(ctx)
		fc := graphql.GetFieldContext(ctx)
		if err != nil || fc == nil || fc.Field.Definition == nil || fc.Field.Definition.Type.Name() != "JSON" {
			return res, err
		}
		if b.left.Add(-int64(encodedSize(res))) < 0 {
			return nil, budgetError(b.limit)
		}
		return res, nil
	}
}

func budgetError(limit int) error {
	e := gqlerror.Errorf("the response would be larger than %d bytes (CASEGRAPH_MAX_RESPONSE_BYTES); ask for fewer or smaller fields", limit)
	e.Extensions = map[string]any{"code": "RESPONSE_TOO_LARGE"}
	return e
}

// withBudget gives a request its budget.
func withBudget(ctx context.Context, limit int) context.Context {
	b := &responseBudget{limit: limit}
	b.left.Store(int64(limit))
	// The case states a request reads are bounded alike: twice the
	// response's bytes of snapshots (service.WithStateBudget).
	return context.WithValue(service.WithStateBudget(ctx, 2*int64(limit)), budgetKey{}, b)
}

// requestScope gives ctx what one GraphQL request, or one event of a
// subscription, reads with: fresh dataloaders, a response budget of
// maxBytes and a state budget to match.
func requestScope(ctx context.Context, svc *service.Service, maxBytes int) context.Context {
	return withBudget(withLoaders(ctx, svc), maxBytes)
}

func encodedSize(v any) int {
	switch x := v.(type) {
	case nil:
		return 4
	case json.RawMessage:
		return len(x)
	case []byte:
		return len(x)
	case string:
		return len(x) + 2
	}
	var n counter
	_ = json.NewEncoder(&n).Encode(v)
	return int(n)
}

type counter int

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }
