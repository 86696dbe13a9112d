package db

import "testing"

// TestStatementPlaceholders checks that a statement's PostgreSQL text
// numbers its values as bun would bind them on SQLite.
func TestStatementPlaceholders(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT a FROM t WHERE b = ? AND c = ?", "SELECT a FROM t WHERE b = $1 AND c = $2"},
		{"SELECT ?0 || x WHERE y = ?0 LIMIT ?1", "SELECT $1 || x WHERE y = $1 LIMIT $2"},
		{"SELECT 'no values'", "SELECT 'no values'"},
		{"WHERE a = ?10", "WHERE a = $11"},
	} {
		s := newStatement(tc.in)
		if s.pg != tc.want || s.lite != tc.in {
			t.Errorf("newStatement(%q) = %q / %q, want %q", tc.in, s.pg, s.lite, tc.want)
		}
	}
}
