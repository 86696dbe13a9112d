package rest

import (
	"net/netip"
	"testing"
	"time"
)

// TestLimiter: a bucket per address refills at its rate, and the limiter
// forgets addresses whose bucket is full again and never holds more than
// its bound.
func TestLimiter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newLimiter(RateLimit{PerMinute: 6, Burst: 2, MaxClients: 3, Now: func() time.Time { return now }})
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	for i, want := range []bool{true, true, false} {
		if ok, _ := l.allow(a); ok != want {
			t.Fatalf("request %d of a: %v", i+1, ok)
		}
	}
	if ok, wait := l.allow(a); ok || wait != 10*time.Second {
		t.Fatalf("empty bucket: %v, wait %v; want 10s (6 a minute)", ok, wait)
	}
	if ok, _ := l.allow(b); !ok {
		t.Fatal("b is limited by a's requests")
	}
	now = now.Add(10 * time.Second)
	if ok, _ := l.allow(a); !ok {
		t.Fatal("a has no token after 10s")
	}
	// After the refill time (2 tokens at 6 a minute: 20s) both buckets
	// would be full: they are forgotten.
	now = now.Add(21 * time.Second)
	l.allow(netip.MustParseAddr("192.0.2.3"))
	if n := l.size(); n != 1 {
		t.Fatalf("%d addresses remembered after the idle ones were swept, want 1", n)
	}
	for i := range 10 {
		l.allow(netip.AddrFrom4([4]byte{198, 51, 100, byte(i)}))
	}
	if n := l.size(); n > 3 {
		t.Fatalf("%d addresses remembered, bound 3", n)
	}
}
