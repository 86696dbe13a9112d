package service

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/casegraph/casegraph/db"
)

// notifier tells every replica (PostgreSQL LISTEN/NOTIFY) of the changes
// of committed commands. It does so after the command's commit, in a
// transaction of its own shared by the commands that committed meanwhile,
// rather than in each command's transaction: PostgreSQL lets one notifying
// transaction commit at a time, across the whole database server, each
// holding a lock while it waits for its log flush. With a NOTIFY in every
// command the commands of all replicas committed in single file, about
// 1,000 a second on a fast disk and no more however many cores, and a
// start case's writes ran at half the rate they do without
// (docs/performance.md).
//
// A command waits for the notification of its changes before it answers:
// an acknowledged command has been told to every replica that listens
// (one that does not listen resumes once it listens again, see RunLive).
// A notification that cannot be sent at all (the database unreachable for
// NotifyTimeout) makes every subscriber read again what it may have
// missed: this process's at once (lost), the other replicas' once the
// next notification goes out, which carries a missed notice. What a
// process loses by dying between a commit and its notification is the
// notice of a change not yet acknowledged (or of a background command's,
// which nobody waits for); subscribers see it with the case's next change.
type notifier struct {
	db     *db.DB
	logger *slog.Logger
	// lost is called with the instant since which changes may not have
	// been notified, when a flush failed.
	lost func(since time.Time)

	mu sync.Mutex
	// next gathers the payloads of commands that committed while a
	// flush runs; the flush that follows sends them all.
	next *noteBatch
	// flushing is whether a goroutine is sending batches.
	flushing bool
	// idle is closed, and replaced, whenever flushing stops.
	idle chan struct{}
	// missedSince, when not zero, is what the next flush tells every
	// replica it may have missed: a flush failed.
	missedSince time.Time
	// failures counts the flushes that failed.
	failures atomic.Uint64
}

type noteBatch struct {
	payloads []string
	done     chan struct{} // closed once sent (or given up)
}

// NotifyTimeout bounds the sending of one batch of notifications, its
// attempts included.
const NotifyTimeout = 10 * time.Second

// Bounds of one flush: payloads per statement (each one is under 300
// bytes) and attempts.
const (
	maxNotesPerStatement = 1000
	notifyAttempts       = 3
)

func newNotifier(d *db.DB, logger *slog.Logger, lost func(since time.Time)) *notifier {
	return &notifier{db: d, logger: logger, lost: lost, idle: make(chan struct{})}
}

// changeNotice is a notification's payload: a Change, or, with
// MissedSince, word that changes committed since then may not have been
// notified.
type changeNotice struct {
	Change
	MissedSince *time.Time `json:"m,omitempty"`
}

// send notifies changes, made by a command of kind that committed, and
// returns once they are sent, or when ctx ends (they are sent all the
// same); at once when ctx is a background worker's (unanswered), which
// has nobody to answer and more work to do.
func (n *notifier) send(ctx context.Context, kind string, changes []Change) {
	if len(changes) == 0 {
		return
	}
	n.mu.Lock()
	if n.next == nil {
		n.next = &noteBatch{done: make(chan struct{})}
	}
	b := n.next
	for _, c := range changes {
		c.Kind = kind
		payload, err := json.Marshal(c) // ids and a kind: it cannot fail
		if err == nil {
			b.payloads = append(b.payloads, string(payload))
		}
	}
	if !n.flushing {
		n.flushing = true
		n.next = nil
		go n.flushFrom(b)
	}
	n.mu.Unlock()
	if _, ok := ctx.Value(unansweredKey{}).(bool); ok {
		return
	}
	select {
	case <-b.done:
	case <-ctx.Done():
	}
}

type unansweredKey struct{}

// unanswered marks ctx as a background worker's, whose commands nobody
// waits for (timers, process calls): they do not wait for their changes'
// notification either.
func unanswered(ctx context.Context) context.Context {
	return context.WithValue(ctx, unansweredKey{}, true)
}

// flushFrom sends b, then every batch gathered meanwhile, until none is
// left. It runs on a goroutine of its own, not the request of any of the
// commands it serves: a client that goes away does not stop the others'
// notifications.
func (n *notifier) flushFrom(b *noteBatch) {
	for b != nil {
		n.flush(b.payloads)
		close(b.done)
		n.mu.Lock()
		b, n.next = n.next, nil
		if b == nil {
			n.flushing = false
			close(n.idle)
			n.idle = make(chan struct{})
		}
		n.mu.Unlock()
	}
}

func (n *notifier) flush(payloads []string) {
	started := time.Now()
	n.mu.Lock()
	missed := n.missedSince
	n.mu.Unlock()
	if !missed.IsZero() {
		notice, err := json.Marshal(changeNotice{Change: Change{Kind: "Missed"}, MissedSince: &missed})
		if err == nil {
			payloads = append([]string{string(notice)}, payloads...)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), NotifyTimeout)
	defer cancel()
	for first := true; len(payloads) > 0; first = false {
		part := payloads[:min(len(payloads), maxNotesPerStatement)]
		payloads = payloads[len(part):]
		var err error
		for attempt := 1; ; attempt++ {
			if err = db.NotifyAll(ctx, n.db, liveChannel, part); err == nil || attempt == notifyAttempts {
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(50<<attempt) * time.Millisecond):
			}
			if ctx.Err() != nil {
				break
			}
		}
		if err == nil {
			if first && !missed.IsZero() {
				n.mu.Lock()
				if n.missedSince.Equal(missed) {
					n.missedSince = time.Time{}
				}
				n.mu.Unlock()
			}
			continue
		}
		// The commands are committed; only their live notice is lost.
		// This process's subscribers read again at once; the other
		// replicas' with the next notification that goes out.
		n.failures.Add(1)
		since := started.Add(-ResumeSlack)
		n.mu.Lock()
		if n.missedSince.IsZero() || since.Before(n.missedSince) {
			n.missedSince = since
		}
		n.mu.Unlock()
		n.lost(since)
		n.logger.Error("live updates: could not notify the replicas of committed changes; subscribers will read again what changed",
			"changes", len(part), "err", err)
	}
}

// wait returns once no notification is being sent, or when ctx ends.
func (n *notifier) wait(ctx context.Context) {
	n.mu.Lock()
	flushing, idle := n.flushing, n.idle
	n.mu.Unlock()
	if !flushing {
		return
	}
	select {
	case <-idle:
	case <-ctx.Done():
	}
}
