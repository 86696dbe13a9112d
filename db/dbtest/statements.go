package dbtest

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/uptrace/bun"
)

// Statements is a bun query hook that records the statements a database
// runs whose text contains Match (every statement when Match is empty).
type Statements struct {
	Match string

	mu      sync.Mutex
	queries []string
}

func (s *Statements) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (s *Statements) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if strings.Contains(e.Query, s.Match) {
		s.mu.Lock()
		s.queries = append(s.queries, e.Query)
		s.mu.Unlock()
	}
}

// All returns the statements recorded so far.
func (s *Statements) All() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.queries)
}

// Count returns how many statements were recorded so far.
func (s *Statements) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queries)
}
