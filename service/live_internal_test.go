package service

import (
	"context"
	"testing"
	"time"
)

// TestHubDropsSlowSubscriber: a subscriber that does not keep up is
// dropped at its bound, without blocking the others or the publisher.
func TestHubDropsSlowSubscriber(t *testing.T) {
	h := newHub(2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow, quick := h.subscribe(ctx), h.subscribe(ctx)
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
