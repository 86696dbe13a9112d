package rest

import (
	"net/http"
	"sort"
	"strings"
)

// recorder registers routes on a mux and remembers each pattern, so that
// the API description lists exactly what is served.
type recorder struct {
	mux *http.ServeMux
	api *API
}

func (r *recorder) Handle(pattern string, h http.Handler) {
	r.api.patterns = append(r.api.patterns, pattern)
	r.mux.Handle(pattern, h)
}

func (r *recorder) HandleFunc(pattern string, h http.HandlerFunc) {
	r.Handle(pattern, h)
}

// swagger serves a minimal OpenAPI description at the reference engine's
// /api-docs/swagger.json: every path with its methods.
func (a *API) swagger(w http.ResponseWriter, r *http.Request) {
	paths := map[string]map[string]any{}
	for _, p := range a.patterns {
		method, path, ok := strings.Cut(p, " ")
		if !ok || strings.HasPrefix(path, "/api-docs") {
			continue
		}
		path = strings.NewReplacer("{$}", "", "...}", "}").Replace(path)
		if path != "/" {
			path = strings.TrimSuffix(path, "/")
		}
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(method)] = map[string]any{
			"tags":      []string{tagOf(path)},
			"responses": map[string]any{"default": map[string]any{"description": "see the reference engine's documentation"}},
		}
	}
	tags := map[string]bool{}
	for p := range paths {
		tags[tagOf(p)] = true
	}
	var tagList []map[string]string
	for t := range tags {
		tagList = append(tagList, map[string]string{"name": t})
	}
	sort.Slice(tagList, func(i, j int) bool { return tagList[i]["name"] < tagList[j]["name"] })
	writeJSON(w, http.StatusOK, map[string]any{
		"openapi": "3.0.1",
		"info":    map[string]any{"title": "CaseGraph REST API", "version": a.svc.Version().Version},
		"tags":    tagList,
		"paths":   paths,
	})
}

// tagOf names the area of a path by its first segment: cases, tasks, …
func tagOf(path string) string {
	seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if seg == "" {
		return "health"
	}
	return seg
}
