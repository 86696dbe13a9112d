package server

import (
	"net/http"
	"strings"

	"github.com/casegraph/casegraph/rest"
)

// probeMethods are the methods a route may serve; HEAD comes with GET.
var probeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete}

// methodNotAllowed answers 405 with the Allow header the path really has:
// the methods of the routes that match it, or GET for a path no route
// matches (the reference engine serves static files for any GET path).
func methodNotAllowed(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) {
	var allowed []string
	// ServeMux matches an unclean path to the route of its cleaned form,
	// which does not serve it (rest.UncleanPaths): no route does.
	if rest.IsCleanPath(r.URL.EscapedPath()) {
		for _, m := range probeMethods {
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, pattern := mux.Handler(probe); pattern != "" && pattern != "/" {
				allowed = append(allowed, m)
			}
		}
	}
	if len(allowed) == 0 {
		allowed = []string{http.MethodGet, http.MethodHead}
	}
	list := strings.Join(allowed, ", ")
	w.Header().Set("Allow", list)
	writeText(w, http.StatusMethodNotAllowed, "HTTP method not allowed, supported methods: "+list)
}
