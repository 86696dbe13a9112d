package rest

import (
	"net/http"
	"testing"
)

// TestOperationsMatchRoutes keeps the description table and the routes in
// step: every route is described, and every description is of a route.
func TestOperationsMatchRoutes(t *testing.T) {
	// Anonymous start on: its routes are described, served or not.
	a := New(nil, nil, nil).EnableAnonymous(RateLimit{PerMinute: 1, Burst: 1})
	a.Register(http.NewServeMux())
	served := map[string]bool{}
	for _, p := range a.patterns {
		method, path, _ := routeKey(p)
		if path == "/api-docs" || len(path) > 9 && path[:10] == "/api-docs/" {
			continue
		}
		served[method+" "+path] = true
		if _, ok := operations[method+" "+path]; !ok {
			t.Errorf("route %s has no description in swagger_ops.go", p)
		}
	}
	for key := range operations {
		if !served[key] {
			t.Errorf("swagger_ops.go describes %s, which is not served", key)
		}
	}
}
