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
// until ctx ends. The channel is closed when ctx ends or when the
// subscriber fell more than its buffer behind: a slow reader is dropped
// rather than allowed to grow memory (ctx.Err() is nil then).
func (s *Service) Subscribe(ctx context.Context) <-chan Change {
	return s.live.subscribe(ctx)
}

// hub fans changes out to the subscribers of this process.
type hub struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	buffer int
}

type subscriber struct {
	ch     chan Change
	closed bool
}

func newHub(buffer int) *hub {
	if buffer <= 0 {
		buffer = DefaultSubscriberBuffer
	}
	return &hub{subs: map[*subscriber]struct{}{}, buffer: buffer}
}

func (h *hub) subscribe(ctx context.Context) <-chan Change {
	sub := &subscriber{ch: make(chan Change, h.buffer)}
	h.mu.Lock()
	h.subs[sub] = struct{}{}
	h.mu.Unlock()
	context.AfterFunc(ctx, func() { h.drop(sub) })
	return sub.ch
}

func (h *hub) drop(sub *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !sub.closed {
		sub.closed = true
		delete(h.subs, sub)
		close(sub.ch)
	}
}

// deliver never blocks: a subscriber whose buffer is full is dropped.
func (h *hub) deliver(c Change) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		select {
		case sub.ch <- c:
		default:
			sub.closed = true
			delete(h.subs, sub)
			close(sub.ch)
		}
	}
}

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
