package service

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/casegraph/casegraph/db"
)

// DefaultSubscriberBuffer is how many changes a subscriber may fall behind
// before it is dropped.
const DefaultSubscriberBuffer = 256

// maxAudience bounds the users one change's audience read returns; a case
// that reaches more (a tenant role everyone holds) is read by every
// subscriber instead.
const maxAudience = 10000

// Interest is what a subscription follows.
type Interest struct {
	// CaseID, when set, limits it to the changes of that case (and of
	// tenant accounts); otherwise it hears the changes of every case.
	CaseID string
}

// Subscribe returns the changes committed from now on, on every replica,
// until ctx ends, that may concern who: a change of a case whose team
// cannot reach who is skipped without a read (see audience). What is left
// the subscriber still reads as who, which decides what it may see. A
// subscriber that falls more than its buffer behind is dropped rather than
// allowed to grow memory; an idle one holds no buffer.
func (s *Service) Subscribe(ctx context.Context, who Identity, in Interest) *Subscription {
	return s.live.subscribe(ctx, who.UserID, in)
}

// Subscription is one subscriber's queue of changes.
type Subscription struct {
	h       *hub
	user    string
	in      Interest
	mu      sync.Mutex
	queue   []Change
	wake    chan struct{} // holds a token while queue may be non-empty
	dropped bool
}

// Next waits for the next change that may concern the subscriber. ok is
// false when ctx ended or the subscriber was dropped (Dropped).
func (sub *Subscription) Next(ctx context.Context) (c Change, ok bool) {
	for {
		c, ok = sub.next(ctx)
		if !ok || c.aud.reaches(sub.h, c, sub.user) {
			return c, ok
		}
		sub.h.stats.skipped.Add(1)
	}
}

func (sub *Subscription) next(ctx context.Context) (c Change, ok bool) {
	for {
		sub.mu.Lock()
		if sub.dropped {
			sub.mu.Unlock()
			return Change{}, false
		}
		if len(sub.queue) > 0 {
			c = sub.queue[0]
			sub.queue = sub.queue[1:]
			if len(sub.queue) == 0 {
				sub.queue = nil // an idle subscriber keeps no array
			}
			sub.mu.Unlock()
			return c, true
		}
		sub.mu.Unlock()
		select {
		case <-ctx.Done():
			return Change{}, false
		case <-sub.wake:
		}
	}
}

// Dropped reports whether the subscriber fell too far behind.
func (sub *Subscription) Dropped() bool {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return sub.dropped
}

// Sent records that an event read for change c was handed to the
// subscriber's connection: it counts, and its delay since the change was
// heard goes to the observer.
func (sub *Subscription) Sent(c Change) {
	sub.h.stats.events.Add(1)
	if sub.h.sent != nil && !c.heard.IsZero() {
		sub.h.sent(time.Since(c.heard))
	}
}

// audience is who a change may concern, read once per change, by the first
// subscriber that asks, for all.
type audience struct {
	once  sync.Once
	users map[string]bool // nil: anyone
}

// reaches reports whether change c may concern user; a nil audience (no
// reader, a Missed change) reaches everyone.
func (a *audience) reaches(h *hub, c Change, user string) bool {
	if a == nil {
		return true
	}
	a.once.Do(func() {
		h.stats.audienceReads.Add(1)
		a.users = h.audience(c)
	})
	return a.users == nil || a.users[user]
}

// liveAudience reads who change c may concern: for a case, the users its
// team may reach (db.CaseAudience); for a tenant's accounts, the users
// disabled there, the only ones a subscriber does anything for (it ends).
// nil, "anyone", when the read fails or finds too many: every subscriber
// then reads for itself, as without this filter.
func (s *Service) liveAudience(c Change) map[string]bool {
	// Not the subscriber's context: its end must not fail the read for
	// the others.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var (
		users    []string
		complete bool
		err      error
	)
	switch {
	case c.CaseID != "":
		users, complete, err = db.CaseAudience(ctx, s.db, c.CaseID, maxAudience)
	case c.Tenant != "":
		users, complete, err = db.DisabledUsers(ctx, s.db, c.Tenant, maxAudience)
	}
	if err != nil {
		s.logger.WarnContext(ctx, "live updates: reading who a change concerns failed; every subscriber reads it", "err", err)
	}
	if err != nil || !complete {
		s.live.stats.audienceAll.Add(1)
		return nil
	}
	m := make(map[string]bool, len(users))
	for _, u := range users {
		m[u] = true
	}
	return m
}

// hub fans changes out to the subscribers of this process.
type hub struct {
	mu     sync.Mutex
	subs   map[*Subscription]struct{}
	buffer int
	// audience reads who a change may concern (nil: anyone); nil reads
	// nothing and every change reaches every subscriber.
	audience func(Change) map[string]bool
	// sent observes the delay of an event; may be nil.
	sent  func(time.Duration)
	stats liveStats
}

// liveStats are the counters behind LiveStats.
type liveStats struct {
	connections, taskSubs, caseSubs                  atomic.Int64
	changes, skipped, events, dropped, slow, resyncs atomic.Uint64
	audienceReads, audienceAll                       atomic.Uint64
}

func newHub(buffer int) *hub {
	if buffer <= 0 {
		buffer = DefaultSubscriberBuffer
	}
	return &hub{subs: map[*Subscription]struct{}{}, buffer: buffer}
}

func (h *hub) subscribe(ctx context.Context, user string, in Interest) *Subscription {
	sub := &Subscription{h: h, user: user, in: in, wake: make(chan struct{}, 1)}
	n := &h.stats.taskSubs
	if in.CaseID != "" {
		n = &h.stats.caseSubs
	}
	n.Add(1)
	h.mu.Lock()
	h.subs[sub] = struct{}{}
	h.mu.Unlock()
	context.AfterFunc(ctx, func() {
		n.Add(-1)
		h.mu.Lock()
		delete(h.subs, sub)
		h.mu.Unlock()
	})
	return sub
}

// count is the number of subscribers.
func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// deliver never blocks and reads nothing: a subscriber whose queue is full
// is dropped; who the change concerns is read when a subscriber first
// takes it (audience).
func (h *hub) deliver(c Change) {
	c.heard = time.Now()
	if c.Missed.IsZero() {
		h.stats.changes.Add(1)
		if h.audience != nil {
			c.aud = &audience{}
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		if sub.in.CaseID != "" && c.CaseID != "" && c.CaseID != sub.in.CaseID {
			continue // another case: not even queued
		}
		sub.mu.Lock()
		if len(sub.queue) >= h.buffer {
			h.stats.slow.Add(1)
			h.stats.dropped.Add(uint64(len(sub.queue)) + 1)
			sub.dropped = true
			sub.queue = nil
			delete(h.subs, sub)
		} else {
			sub.queue = append(sub.queue, c)
		}
		sub.mu.Unlock()
		select {
		case sub.wake <- struct{}{}:
		default:
		}
	}
}

// Subscribers is the number of live subscriptions in this process.
func (s *Service) Subscribers() int { return s.live.count() }

// LiveStats are this process's live-update figures: gauges of now, and
// counters since it started.
type LiveStats struct {
	// Connections are the open live connections (LiveConnected).
	Connections int64
	// TaskSubscriptions and CaseSubscriptions run now.
	TaskSubscriptions, CaseSubscriptions int64
	// Changes heard (committed on any replica).
	Changes uint64
	// Skipped counts a change not read by a subscriber because its user
	// cannot be in the case's team (or, for tenant accounts, is not
	// disabled there).
	Skipped uint64
	// AudienceReads counts the reads of who a change concerns (at most one
	// per change); AudienceAll those that fell back to every subscriber
	// (a failed read, or too many users).
	AudienceReads, AudienceAll uint64
	// Events handed to connections.
	Events uint64
	// Dropped counts changes thrown away with the queues of subscribers
	// dropped for falling behind (SlowDropped of them).
	Dropped, SlowDropped uint64
	// Resyncs counts the times every subscriber read again what it may
	// have missed: the listening connection was opened again, or changes
	// could not be notified (on this replica or another).
	Resyncs uint64
	// NotifyFailures counts the notifications of committed changes this
	// process could not send (each followed by a resync).
	NotifyFailures uint64
}

// LiveStats returns the live-update figures of this process.
func (s *Service) LiveStats() LiveStats {
	st := &s.live.stats
	return LiveStats{Connections: st.connections.Load(), TaskSubscriptions: st.taskSubs.Load(), CaseSubscriptions: st.caseSubs.Load(),
		Changes: st.changes.Load(), Skipped: st.skipped.Load(), AudienceReads: st.audienceReads.Load(), AudienceAll: st.audienceAll.Load(),
		Events: st.events.Load(), Dropped: st.dropped.Load(), SlowDropped: st.slow.Load(), Resyncs: st.resyncs.Load(),
		NotifyFailures: s.notes.failures.Load()}
}

// LiveConnected counts an open live connection until done is called.
func (s *Service) LiveConnected() (done func()) {
	s.live.stats.connections.Add(1)
	var once sync.Once
	return func() { once.Do(func() { s.live.stats.connections.Add(-1) }) }
}
