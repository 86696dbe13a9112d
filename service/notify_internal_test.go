package service

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

// countedDB is a new database whose statements that notify are counted.
func countedDB(t *testing.T) (*db.DB, *dbtest.Statements) {
	d := dbtest.Open(t, db.Postgres)
	counter := &dbtest.Statements{Match: "SELECT pg_notify("}
	return &db.DB{DB: d.DB.WithQueryHook(counter), Flavor: d.Flavor}, counter
}

// listen calls fn with every notification on the live channel until ctx
// ends, once it listens.
func listen(ctx context.Context, t *testing.T, d *db.DB, fn func(changeNotice)) {
	listening := make(chan struct{})
	go func() {
		_ = db.Listen(ctx, d, liveChannel, func() { close(listening) }, func(payload string) {
			var n changeNotice
			if err := json.Unmarshal([]byte(payload), &n); err != nil {
				t.Errorf("payload %q: %v", payload, err)
			}
			fn(n)
		})
	}()
	<-listening
}

// TestNotifierBatches: the changes of commands that commit at once go out
// in fewer statements than commands, every one is heard, and a sender
// returns only once its change is sent; one that stops waiting (its
// client went away) does not stop its change.
func TestNotifierBatches(t *testing.T) {
	d, counter := countedDB(t)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	heard := map[string]string{}
	listen(ctx, t, d, func(c changeNotice) {
		mu.Lock()
		heard[c.CaseID] = c.Kind
		mu.Unlock()
	})

	n := newNotifier(d, slog.New(slog.DiscardHandler), func(time.Time) { t.Error("a notification was lost") })
	const senders = 200
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range senders {
		wg.Go(func() {
			<-start
			sendCtx := context.Background()
			if i%10 == 0 {
				// A client that is gone: its command committed all the same.
				c, cancel := context.WithCancel(sendCtx)
				cancel()
				sendCtx = c
			}
			n.send(sendCtx, "ClaimTask", []Change{{CaseID: fmt.Sprint("case-", i)}})
		})
	}
	close(start)
	wg.Wait()
	waitCtx, waitCancel := context.WithTimeout(ctx, 10*time.Second)
	defer waitCancel()
	n.wait(waitCtx)
	if waitCtx.Err() != nil {
		t.Fatal("the notifier is still sending after 10 s")
	}

	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		got := len(heard)
		mu.Unlock()
		if got == senders || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(heard) != senders {
		t.Fatalf("heard %d changes, want %d", len(heard), senders)
	}
	for id, kind := range heard {
		if kind != "ClaimTask" {
			t.Fatalf("change of %s heard as %q, want ClaimTask", id, kind)
		}
	}
	if sent := int64(counter.Count()); sent < 1 || sent >= senders {
		t.Fatalf("%d statements sent the %d changes, want fewer (batched)", sent, senders)
	} else {
		t.Logf("%d changes sent in %d statements", senders, sent)
	}
}

// TestNotifierSendsAfterWaitersLeave: a change whose sender stopped
// waiting before its batch's turn is still sent.
func TestNotifierSendsAfterWaitersLeave(t *testing.T) {
	d, counter := countedDB(t)
	n := newNotifier(d, slog.New(slog.DiscardHandler), func(time.Time) { t.Error("a notification was lost") })
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	n.send(gone, "StartCase", []Change{{CaseID: "a"}})
	n.send(gone, "StartCase", []Change{{CaseID: "b"}})
	ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	n.wait(ctx)
	if ctx.Err() != nil {
		t.Fatal("the notifier is still sending after 10 s")
	}
	if got := int64(counter.Count()); got < 1 || got > 2 {
		t.Fatalf("%d statements sent the two changes, want 1 or 2", got)
	}
}

// TestNotifierFailureResyncs: changes that could not be notified make this
// process's subscribers read again at once, and the other replicas' with
// the next notification that goes out.
func TestNotifierFailureResyncs(t *testing.T) {
	d := dbtest.Open(t, db.Postgres)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	heard := make(chan changeNotice, 10)
	listen(ctx, t, d, func(n changeNotice) { heard <- n })

	var lost []time.Time
	n := newNotifier(d, slog.New(slog.DiscardHandler), func(since time.Time) { lost = append(lost, since) })
	gone, err := db.Open(ctx, dbtest.URL(t, db.Postgres), "")
	if err != nil {
		t.Fatal(err)
	}
	gone.Close()
	n.db = gone // every attempt fails
	before := time.Now()
	n.send(ctx, "ClaimTask", []Change{{CaseID: "lost"}})
	if len(lost) != 1 || lost[0].After(before) || n.failures.Load() != 1 {
		t.Fatalf("after a failed flush: lost %v, failures %d; want one, since before %v", lost, n.failures.Load(), before)
	}

	n.db = d
	n.send(ctx, "ClaimTask", []Change{{CaseID: "next"}})
	var got []changeNotice
	for len(got) < 2 {
		select {
		case c := <-heard:
			got = append(got, c)
		case <-time.After(10 * time.Second):
			t.Fatalf("heard %+v, want a missed notice and the next change", got)
		}
	}
	if got[0].MissedSince == nil || !got[0].MissedSince.Equal(lost[0]) || got[1].CaseID != "next" || got[1].MissedSince != nil {
		t.Fatalf("heard %+v, want first the missed notice since %v, then the next change", got, lost[0])
	}
	// Told once: the flush after carries no notice.
	n.send(ctx, "ClaimTask", []Change{{CaseID: "after"}})
	select {
	case c := <-heard:
		if c.CaseID != "after" || c.MissedSince != nil {
			t.Fatalf("heard %+v, want the change alone", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the change after was not heard")
	}
}

// TestRunLiveHearsMissedNotice: a replica's missed notice reaches every
// subscriber of this one as a resync from the instant it names.
func TestRunLiveHearsMissedNotice(t *testing.T) {
	d := dbtest.Open(t, db.Postgres)
	svc := New(d, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); svc.RunLive(ctx) }()
	defer func() { cancel(); <-done }()
	sub := svc.live.subscribe(ctx, "alice", Interest{})
	deadline := time.Now().Add(10 * time.Second)
	for !svc.LiveListening() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	since := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	notice, err := json.Marshal(changeNotice{Change: Change{Kind: "Missed"}, MissedSince: &since})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.NotifyAll(ctx, d, liveChannel, []string{string(notice)}); err != nil {
		t.Fatal(err)
	}
	next, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	c, ok := sub.Next(next)
	if !ok || !c.Missed.Equal(since) || c.CaseID != "" {
		t.Fatalf("subscriber got %+v (%v), want a resync since %v", c, ok, since)
	}
	if got := svc.LiveStats().Resyncs; got != 1 {
		t.Fatalf("%d resyncs counted, want 1", got)
	}
}
