package service

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/db"
)

// Change tells subscribers that a committed command changed a case. It
// carries ids only: a subscriber reads the case's current state through
// the normal service calls as its own caller, so it learns nothing its
// memberships do not allow.
type Change struct {
	// CaseID is the changed case; empty when Tenant is set.
	CaseID string `json:"c,omitempty"`
	// Tenant, set alone, says the accounts of a tenant changed (a user
	// added, changed, disabled or removed): subscribers re-check theirs.
	Tenant string `json:"t,omitempty"`
	// Kind is the command that changed it ("ClaimTask", "StartCase", …);
	// a sub case changed by its parent's command carries that command.
	Kind string `json:"k"`
}

// liveChannel is the one PostgreSQL NOTIFY channel every replica listens on.
// (db adds a digest of the schema).
const liveChannel = "casegraph_"

// changesKey holds, for the command running in ctx, what it changed.
type changesKey struct{}

// noteChanged records that the command running in ctx changed a case or
// a tenant's accounts (c without its Kind).
func noteChanged(ctx context.Context, c Change) {
	if p, ok := ctx.Value(changesKey{}).(*[]Change); ok {
		for _, seen := range *p {
			if seen == c {
				return
			}
		}
		*p = append(*p, c)
	}
}

// notifyInTx, on PostgreSQL, queues a notification per changed case in the
// command's own transaction: PostgreSQL delivers a NOTIFY exactly when its
// transaction commits and drops it on rollback, so every replica hears of
// the commit and of nothing else. SQLite has no replicas: its bus is fed
// after the commit (publishLocal).
func (s *Service) notifyInTx(ctx context.Context, tx bun.Tx, kind string, changes []Change) error {
	if s.db.Flavor != db.Postgres {
		return nil
	}
	for _, c := range changes {
		c.Kind = kind
		payload, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if err := db.Notify(ctx, tx, liveChannel, string(payload)); err != nil {
			return err
		}
	}
	return nil
}

// publishLocal hands a committed command's changes to this process's
// subscribers when no database channel carries them (SQLite).
func (s *Service) publishLocal(kind string, changes []Change) {
	if s.db.Flavor == db.Postgres {
		return
	}
	for _, c := range changes {
		c.Kind = kind
		s.live.deliver(c)
	}
}

// RunLive, on PostgreSQL, listens for the changes committed by every
// replica and fans them out to this process's subscribers, over one
// connection, until ctx ends; a lost connection is opened again after a
// short pause (changes committed meanwhile are not heard: a client
// resumes with its after cursor). On SQLite it only waits for ctx.
func (s *Service) RunLive(ctx context.Context) {
	if s.db.Flavor != db.Postgres {
		<-ctx.Done()
		return
	}
	pause := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := db.Listen(ctx, s.db, liveChannel, func() { s.liveListening.Store(true) }, func(payload string) {
			var c Change
			if json.Unmarshal([]byte(payload), &c) == nil && (c.CaseID != "" || c.Tenant != "") {
				s.live.deliver(c)
			}
		})
		s.liveListening.Store(false)
		if ctx.Err() != nil {
			return
		}
		s.logger.WarnContext(ctx, "live updates: listening connection lost; reconnecting", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}

// LiveListening reports whether this process hears the changes of other
// replicas now: always on SQLite, while RunLive listens on PostgreSQL.
func (s *Service) LiveListening() bool {
	return s.db.Flavor != db.Postgres || s.liveListening.Load()
}

// DefaultSubscriberBuffer is how many changes a subscriber may fall behind
// before it is dropped.
const DefaultSubscriberBuffer = 256

// Subscribe returns the changes committed from now on, on every replica,
// until ctx ends. A subscriber that falls more than its buffer behind is
// dropped rather than allowed to grow memory; an idle one holds no buffer.
func (s *Service) Subscribe(ctx context.Context) *Subscription {
	return s.live.subscribe(ctx)
}

// Subscription is one subscriber's queue of changes.
type Subscription struct {
	h       *hub
	mu      sync.Mutex
	queue   []Change
	wake    chan struct{} // holds a token while queue may be non-empty
	dropped bool
}

// Next waits for the next change. ok is false when ctx ended or the
// subscriber was dropped (Dropped).
func (sub *Subscription) Next(ctx context.Context) (c Change, ok bool) {
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

// hub fans changes out to the subscribers of this process.
type hub struct {
	mu     sync.Mutex
	subs   map[*Subscription]struct{}
	buffer int
}

func newHub(buffer int) *hub {
	if buffer <= 0 {
		buffer = DefaultSubscriberBuffer
	}
	return &hub{subs: map[*Subscription]struct{}{}, buffer: buffer}
}

func (h *hub) subscribe(ctx context.Context) *Subscription {
	sub := &Subscription{h: h, wake: make(chan struct{}, 1)}
	h.mu.Lock()
	h.subs[sub] = struct{}{}
	h.mu.Unlock()
	context.AfterFunc(ctx, func() {
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

// deliver never blocks: a subscriber whose queue is full is dropped.
func (h *hub) deliver(c Change) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		sub.mu.Lock()
		if len(sub.queue) >= h.buffer {
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

// CheckAccount answers the "account disabled" refusal when the caller's
// account in tenant is disabled, nil otherwise (also without an account):
// a live subscription ends on it.
func (s *Service) CheckAccount(ctx context.Context, who Identity, tenant string) error {
	return s.refuseDisabled(ctx, s.db, "service.CheckAccount", who, tenant)
}

// AccountDisabled reports whether err is the refusal of a caller whose
// account is disabled.
func AccountDisabled(err error) bool {
	var d *disabledError
	return errors.As(err, &d)
}
