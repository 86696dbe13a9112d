package rest

import (
	"math"
	"net/netip"
	"sync"
	"time"
)

// RateLimit is a token bucket per client address: Burst requests at once,
// refilled at PerMinute a minute.
type RateLimit struct {
	PerMinute int
	Burst     int
	// MaxClients bounds the addresses remembered at once. Default 100000.
	MaxClients int
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// limiter keeps a token bucket per client address. An address whose bucket
// would be full again is forgotten: it is the same as a new one. That keeps
// memory to the addresses seen within the refill time of one bucket, and
// MaxClients bounds even those.
type limiter struct {
	rate  float64 // tokens a second
	burst float64
	max   int
	now   func() time.Time

	mu      sync.Mutex
	buckets map[netip.Addr]*bucket
	// sweepAt is when idle buckets are next looked for.
	sweepAt time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(l RateLimit) *limiter {
	lim := &limiter{rate: float64(l.PerMinute) / 60, burst: float64(l.Burst), max: l.MaxClients, now: l.Now,
		buckets: map[netip.Addr]*bucket{}}
	if lim.burst < 1 {
		lim.burst = 1
	}
	if lim.max <= 0 {
		lim.max = 100000
	}
	if lim.now == nil {
		lim.now = time.Now
	}
	return lim
}

// refill is how long an empty bucket takes to be full.
func (l *limiter) refill() time.Duration {
	return time.Duration(l.burst / l.rate * float64(time.Second))
}

// allow takes a token of addr's bucket. When there is none, it returns
// false and how long until there is one.
func (l *limiter) allow(addr netip.Addr) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !now.Before(l.sweepAt) || len(l.buckets) >= l.max {
		l.sweep(now)
	}
	b, ok := l.buckets[addr]
	if !ok {
		if len(l.buckets) >= l.max {
			// Every remembered address is busy: forget one at random
			// (map order) rather than grow; it starts afresh.
			for k := range l.buckets {
				delete(l.buckets, k)
				break
			}
		}
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[addr] = b
	}
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// sweep forgets the buckets that are full again by now.
func (l *limiter) sweep(now time.Time) {
	full := l.refill()
	for k, b := range l.buckets {
		if now.Sub(b.at) >= full {
			delete(l.buckets, k)
		}
	}
	l.sweepAt = now.Add(full)
}

// size is the number of addresses remembered.
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
