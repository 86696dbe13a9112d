package db

import (
	"context"
	"fmt"
	"sync/atomic"
)

// A request that reads many cases' states (a GraphQL list, aliased, with
// nested fields) holds them all in memory at once: a decoded state takes
// about 3.4 times its snapshot's bytes, and a case file may hold 4 MiB.
// A state budget, put in the request's context, bounds the snapshot bytes
// it reads; past it every read fails with a StateBudgetError.

type stateBudgetKey struct{}

type stateBudget struct {
	left atomic.Int64
	max  int64
}

// WithStateBudget returns ctx with a budget of max snapshot bytes for the
// case states read with it; max 0 or less is no limit (one set before
// is lifted). The first state read always passes, however large.
func WithStateBudget(ctx context.Context, max int64) context.Context {
	b := &stateBudget{max: max}
	b.left.Store(max)
	return context.WithValue(ctx, stateBudgetKey{}, b)
}

// StateBudgetError is a read past the state budget of its request.
type StateBudgetError struct{ Max int64 }

func (e *StateBudgetError) Error() string {
	return "the request reads more than " + e.Size() + " of case state"
}

// Size is the budget in MiB when whole, else in bytes.
func (e *StateBudgetError) Size() string {
	if e.Max%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", e.Max>>20)
	}
	return fmt.Sprintf("%d bytes", e.Max)
}

// chargeStateBudget takes n snapshot bytes from ctx's budget, if it has
// one.
func chargeStateBudget(ctx context.Context, n int) error {
	b, ok := ctx.Value(stateBudgetKey{}).(*stateBudget)
	if !ok || b.max <= 0 {
		return nil
	}
	for {
		left := b.left.Load()
		if left < int64(n) && left != b.max {
			return &StateBudgetError{Max: b.max}
		}
		if b.left.CompareAndSwap(left, left-int64(n)) {
			return nil
		}
	}
}
