package service

import "testing"

func TestPageSize(t *testing.T) {
	for _, tc := range []struct{ in, want int }{{0, DefaultPageSize}, {-5, DefaultPageSize}, {1, 1}, {250, 250}} {
		if got := pageSize(tc.in); got != tc.want {
			t.Errorf("pageSize(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
	if DefaultPageSize != 100 {
		t.Errorf("DefaultPageSize = %d: the reference engine's lists default to 100", DefaultPageSize)
	}
}
