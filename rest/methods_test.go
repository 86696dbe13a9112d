package rest_test

import (
	"net/http"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
)

// TestMethodNotAllowedNamesAllow checks that a 405 carries the Allow
// header of the path it was sent to, and says the same in its body.
func TestMethodNotAllowedNamesAllow(t *testing.T) {
	env := servertest.Start(t, db.SQLite)
	tests := []struct{ method, path, allow string }{
		{"DELETE", "/cases", "GET, HEAD, POST"},
		{"POST", "/tasks/t1/claim", "PUT"},
		{"PUT", "/repository/validate", "POST"},
		{"DELETE", "/tasks/t1", "GET, HEAD, POST, PUT"},
		{"POST", "/request/case/", "GET, HEAD"},
	}
	for _, tt := range tests {
		resp := env.Do(servertest.Request{Method: tt.method, Path: tt.path})
		if resp.Status != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != tt.allow ||
			resp.Body != "HTTP method not allowed, supported methods: "+tt.allow {
			t.Errorf("%s %s: %d Allow %q %q, want Allow %q", tt.method, tt.path, resp.Status, resp.Header.Get("Allow"), resp.Body, tt.allow)
		}
	}
}
