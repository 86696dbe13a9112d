package rest

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/casegraph/casegraph/service"
)

// allKinds lists every service kind: the kinds run from Internal up to the
// first value String does not name.
func allKinds() []service.Kind {
	kinds := []service.Kind{service.Internal}
	for k := service.Internal + 1; k.String() != service.Internal.String(); k++ {
		kinds = append(kinds, k)
	}
	return kinds
}

func TestStatusOfEveryKind(t *testing.T) {
	kinds := allKinds()
	if len(kinds) < 9 {
		t.Fatalf("found %d kinds: %v", len(kinds), kinds)
	}
	for _, k := range kinds {
		if statusOf[k] == 0 {
			t.Errorf("service kind %q has no REST status in statusOf", k)
		}
	}
}

// TestWriteErrorNotModified: a NotModified that reaches writeError answers
// 304 without a body, never status 0.
func TestWriteErrorNotModified(t *testing.T) {
	a := &API{logger: slog.New(slog.DiscardHandler)}
	w := httptest.NewRecorder()
	a.writeError(w, httptest.NewRequest("GET", "/", nil), service.E("service.Test", service.NotModified, "nothing changed"))
	if w.Code != http.StatusNotModified || w.Body.Len() != 0 {
		t.Fatalf("got %d %q, want 304 without a body", w.Code, w.Body.String())
	}
	w = httptest.NewRecorder()
	a.writeError(w, httptest.NewRequest("GET", "/", nil), service.E("service.Test", service.NotFound, "Case not found"))
	if w.Code != http.StatusNotFound || w.Body.String() != "Case not found" {
		t.Fatalf("got %d %q, want 404 with the message", w.Code, w.Body.String())
	}
}
