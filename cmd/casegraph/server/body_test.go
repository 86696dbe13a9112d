package server

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// TestBodyBudget: bodies read before their in-flight slot share a byte
// budget, so many large bodies at once cannot exhaust memory now that a
// waiting body holds no slot; a body over the budget is refused, and its
// bytes are given back when its request ends.
func TestBodyBudget(t *testing.T) {
	budget := &bodyBudget{max: 100}
	client := netip.MustParseAddr("192.0.2.1")
	budget.max = 400 // a quarter for one client: the 100 bytes below
	first, release1, ok := budget.buffer(client, io.NopCloser(strings.NewReader(strings.Repeat("a", 60))))
	if !ok {
		t.Fatal("a 60-byte body was refused by an empty 100-byte budget")
	}
	if b, _ := io.ReadAll(first); len(b) != 60 {
		t.Fatalf("read back %d bytes", len(b))
	}
	_, release2, ok := budget.buffer(client, io.NopCloser(strings.NewReader(strings.Repeat("b", 60))))
	release2()
	if ok {
		t.Fatal("a second 60-byte body fit a 100-byte budget")
	}
	release1()
	if budget.used != 0 {
		t.Fatalf("%d bytes still charged after both requests ended", budget.used)
	}
	_, release3, ok := budget.buffer(client, io.NopCloser(strings.NewReader(strings.Repeat("c", 60))))
	release3()
	if !ok {
		t.Fatal("the budget was not given back")
	}
	// A body past its MaxBytesReader limit fails as it did unbuffered.
	limited := http.MaxBytesReader(httptest.NewRecorder(), io.NopCloser(strings.NewReader(strings.Repeat("d", 50))), 10)
	body, release4, ok := budget.buffer(client, limited)
	defer release4()
	var tooLarge *http.MaxBytesError
	if _, err := io.ReadAll(body); !ok || !errors.As(err, &tooLarge) {
		t.Fatalf("ok %v, err %v: want the MaxBytesError", ok, err)
	}
}

// TestBodyBudgetPerClient: one client address holds at most a quarter of
// the budget, so a client that sends large bodies and stalls cannot take
// it from everyone.
func TestBodyBudgetPerClient(t *testing.T) {
	budget := &bodyBudget{max: 400}
	greedy, other := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::")
	body := func(n int) io.ReadCloser { return io.NopCloser(strings.NewReader(strings.Repeat("x", n))) }
	_, release1, ok := budget.buffer(greedy, body(90))
	if !ok {
		t.Fatal("90 bytes refused within a 100-byte share")
	}
	_, release2, ok := budget.buffer(greedy, body(20))
	release2()
	if ok {
		t.Fatal("the greedy client got past its quarter of the budget")
	}
	for i := range 3 {
		_, release, ok := budget.buffer(other, body(90))
		release()
		if !ok {
			t.Fatalf("another client's body %d was refused while the greedy one held its share", i)
		}
	}
	release1()
	if n := budget.used; n != 0 || len(budget.byClient) != 0 {
		t.Fatalf("after every request ended: %d bytes charged, %d clients remembered", n, len(budget.byClient))
	}
}
