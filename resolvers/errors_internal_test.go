package resolvers

import (
	"context"
	"log/slog"
	"testing"

	"github.com/casegraph/casegraph/service"
)

func TestCodeOfEveryKind(t *testing.T) {
	kinds := []service.Kind{service.Internal}
	for k := service.Internal + 1; k.String() != service.Internal.String(); k++ {
		kinds = append(kinds, k)
	}
	if len(kinds) < 9 {
		t.Fatalf("found %d kinds: %v", len(kinds), kinds)
	}
	for _, k := range kinds {
		if codeOf[k] == "" {
			t.Errorf("service kind %q has no GraphQL code in codeOf", k)
		}
	}
	got := errorPresenter(slog.New(slog.DiscardHandler))(context.Background(), service.E("service.Test", service.NotModified, "nothing changed"))
	if got.Extensions["code"] != "NOT_MODIFIED" || got.Message != "nothing changed" {
		t.Errorf("a NotModified error: %+v", got)
	}
}
