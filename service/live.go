package service

import (
	"context"
	"encoding/json"
	"errors"
	"time"

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
	// Missed, set alone, says that changes committed since this instant
	// may not have been heard (this process's listening connection was
	// opened again): a subscriber reads again what it follows, as a
	// client resuming with after.
	Missed time.Time `json:"-"`

	heard time.Time // when this process heard it
	aud   *audience // who may be concerned; nil: everyone
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

// publish hands a committed command's changes to the subscribers of every
// replica: on PostgreSQL as notifications (see notifier), on SQLite, which
// has no replicas, straight to this process's own.
func (s *Service) publish(ctx context.Context, kind string, changes []Change) {
	if s.db.Flavor == db.Postgres {
		s.notes.send(ctx, kind, changes)
		return
	}
	for _, c := range changes {
		c.Kind = kind
		s.live.deliver(c)
	}
}

// WaitNotified returns once the notifications of committed commands are
// sent, or when ctx ends: a server calls it after its last request and
// before it closes the database.
func (s *Service) WaitNotified(ctx context.Context) { s.notes.wait(ctx) }

// RunLive, on PostgreSQL, listens for the changes committed by every
// replica and fans them out to this process's subscribers, over one
// connection, until ctx ends; a lost connection is opened again after a
// short pause, and the subscribers are then told what they may have missed
// (Change.Missed). On SQLite it only waits for ctx.
func (s *Service) RunLive(ctx context.Context) {
	if s.db.Flavor != db.Postgres {
		<-ctx.Done()
		return
	}
	// The pacer warns once when the database goes away and says when it is
	// back, and resets its pauses at every reconnect.
	pace := s.newPacer("live", "live updates from other replicas")
	wait := time.NewTimer(0)
	defer wait.Stop()
	// lastHeard is when the listener last heard a change, or began to
	// listen: what was committed after it, and what committed just before
	// and was still on its way, is missed when the connection breaks.
	var lastHeard time.Time
	for ctx.Err() == nil {
		err := db.Listen(ctx, s.db, liveChannel, func() {
			pace.succeeded(ctx)
			if !lastHeard.IsZero() {
				s.live.stats.resyncs.Add(1)
				s.live.deliver(Change{Missed: lastHeard.Add(-ResumeSlack)})
			}
			lastHeard = time.Now()
			s.liveListening.Store(true)
		}, func(payload string) {
			lastHeard = time.Now()
			var n changeNotice
			switch {
			case json.Unmarshal([]byte(payload), &n) != nil:
			case n.MissedSince != nil:
				// A replica could not notify some of its changes.
				s.live.stats.resyncs.Add(1)
				s.live.deliver(Change{Missed: *n.MissedSince})
			case n.CaseID != "" || n.Tenant != "":
				s.live.deliver(n.Change)
			}
		})
		s.liveListening.Store(false)
		if ctx.Err() != nil {
			return
		}
		if !pace.sleep(ctx, wait, pace.failed(ctx, "live updates: listening failed; reconnecting", err), nil) {
			return
		}
	}
}

// ResumeSlack is how far before a client's after cursor a resume looks: a
// command stamps lastModified before it commits, so a change committed
// after the client's last event may carry an earlier lastModified, by at
// most the command's run time (CASEGRAPH_REQUEST_TIMEOUT bounds a
// request's) plus the difference between the replicas' clocks.
const ResumeSlack = 2 * time.Minute

// LiveListening reports whether this process hears the changes of other
// replicas now: always on SQLite, while RunLive listens on PostgreSQL.
func (s *Service) LiveListening() bool {
	return s.db.Flavor != db.Postgres || s.liveListening.Load()
}

// CheckAccount answers the "account disabled" refusal when the caller's
// account in tenant is disabled, nil otherwise (also without an account):
// a live subscription ends on it.
func (s *Service) CheckAccount(ctx context.Context, who Identity, tenant string) error {
	_, err := enabledAccountIn(ctx, s.db, "service.CheckAccount", who, tenant)
	return err
}

// AccountDisabled reports whether err is the refusal of a caller whose
// account is disabled.
func AccountDisabled(err error) bool {
	var d *disabledError
	return errors.As(err, &d)
}
