package service

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestHubDropsSlowSubscriber: a subscriber that does not keep up is
// dropped at its bound, without blocking the others or the publisher.
func TestHubDropsSlowSubscriber(t *testing.T) {
	h := newHub(2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow, quick := h.subscribe(ctx, "slow", Interest{}), h.subscribe(ctx, "quick", Interest{})
	for i, id := range []string{"a", "b", "c"} {
		h.deliver(Change{CaseID: id})
		if c, ok := quick.Next(ctx); !ok || c.CaseID != id {
			t.Fatalf("quick subscriber, change %d: %+v %v", i, c, ok)
		}
	}
	if !slow.Dropped() || quick.Dropped() {
		t.Fatalf("dropped: slow %v quick %v, want only slow", slow.Dropped(), quick.Dropped())
	}
	if _, ok := slow.Next(ctx); ok {
		t.Fatal("a dropped subscriber still reads changes")
	}
	if h.count() != 1 {
		t.Fatalf("%d subscribers, want 1", h.count())
	}
	if slow, dropped := h.stats.slow.Load(), h.stats.dropped.Load(); slow != 1 || dropped != 3 {
		t.Fatalf("counted %d slow subscribers and %d dropped changes, want 1 and 3", slow, dropped)
	}

	// Ending the context ends Next and unregisters.
	cancel()
	done := make(chan bool)
	go func() { _, ok := quick.Next(ctx); done <- ok }()
	select {
	case ok := <-done:
		if ok {
			t.Fatal("Next after cancel returned a change")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Next did not end with its context")
	}
	deadline := time.Now().Add(5 * time.Second)
	for h.count() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if h.count() != 0 {
		t.Fatal("a cancelled subscriber stays registered")
	}
}

// TestHubFiltersBeforeReading: who a change concerns is read once per
// change, by the first subscriber to take it, and a subscriber it cannot
// concern skips it; a caseChanged subscriber never queues another case's
// change; without an answer (nil) every subscriber hears it.
func TestHubFiltersBeforeReading(t *testing.T) {
	h := newHub(8)
	reads := map[string]int{}
	var mu sync.Mutex
	h.audience = func(c Change) map[string]bool {
		mu.Lock()
		defer mu.Unlock()
		reads[c.CaseID+c.Tenant]++
		switch c.CaseID {
		case "mine":
			return map[string]bool{"ann": true}
		case "nobody":
			return map[string]bool{}
		}
		return nil // unknown: everyone
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ann, bob := h.subscribe(ctx, "ann", Interest{}), h.subscribe(ctx, "bob", Interest{})
	one := h.subscribe(ctx, "bob", Interest{CaseID: "mine"})
	for _, id := range []string{"mine", "nobody", "other", "mine"} {
		h.deliver(Change{CaseID: id})
	}
	h.deliver(Change{Missed: time.Now()})
	got := func(sub *Subscription, n int) (ids []string) {
		for range n {
			c, ok := sub.Next(ctx)
			if !ok {
				t.Fatal("subscription ended")
			}
			if !c.Missed.IsZero() {
				ids = append(ids, "missed")
			} else {
				ids = append(ids, c.CaseID)
			}
		}
		return ids
	}
	if ids := fmt.Sprint(got(ann, 4)); ids != "[mine other mine missed]" {
		t.Fatalf("ann heard %s", ids)
	}
	if ids := fmt.Sprint(got(bob, 2)); ids != "[other missed]" {
		t.Fatalf("bob heard %s", ids)
	}
	one.mu.Lock()
	queued := len(one.queue)
	one.mu.Unlock()
	if queued != 3 { // the two changes of "mine" and the missed marker
		t.Fatalf("the caseChanged subscriber queued %d changes, want 3", queued)
	}
	if reads["mine"] != 2 || reads["nobody"] != 1 || reads["other"] != 1 {
		t.Fatalf("audience reads %v, want one per change", reads)
	}
	if st := h.stats.skipped.Load(); st != 4 {
		t.Fatalf("%d changes skipped, want 4 (bob: mine twice and nobody; ann: nobody)", st)
	}
}
