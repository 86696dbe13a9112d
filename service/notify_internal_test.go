package service

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

// notifyCounter counts the statements that send notifications.
type notifyCounter struct{ n atomic.Int64 }

func (c *notifyCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (c *notifyCounter) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if strings.HasPrefix(e.Query, "SELECT pg_notify(") {
		c.n.Add(1)
	}
}

// TestNotifierBatches: the changes of commands that commit at once go out
// in fewer statements than commands, every one is heard, and a sender
// returns only once its change is sent; one that stops waiting (its
// client went away) does not stop its change.
func TestNotifierBatches(t *testing.T) {
	d := dbtest.Open(t, db.Postgres)
	counter := &notifyCounter{}
	d.DB.AddQueryHook(counter)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	heard := map[string]string{}
	listening := make(chan struct{})
	go func() {
		_ = db.Listen(ctx, d, liveChannel, func() { close(listening) }, func(payload string) {
			var c Change
			if err := json.Unmarshal([]byte(payload), &c); err != nil {
				t.Errorf("payload %q: %v", payload, err)
			}
			mu.Lock()
			heard[c.CaseID] = c.Kind
			mu.Unlock()
		})
	}()
	<-listening

	n := newNotifier(d, slog.New(slog.DiscardHandler))
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
	if sent := counter.n.Load(); sent < 1 || sent >= senders {
		t.Fatalf("%d statements sent the %d changes, want fewer (batched)", sent, senders)
	} else {
		t.Logf("%d changes sent in %d statements", senders, sent)
	}
}

// TestNotifierSendsAfterWaitersLeave: a change whose sender stopped
// waiting before its batch's turn is still sent.
func TestNotifierSendsAfterWaitersLeave(t *testing.T) {
	d := dbtest.Open(t, db.Postgres)
	counter := &notifyCounter{}
	d.DB.AddQueryHook(counter)
	n := newNotifier(d, slog.New(slog.DiscardHandler))
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
	if got := counter.n.Load(); got < 1 || got > 2 {
		t.Fatalf("%d statements sent the two changes, want 1 or 2", got)
	}
}
