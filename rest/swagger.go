package rest

import (
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strconv"
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

// swagger serves the OpenAPI 3.1 description at the reference engine's
// /api-docs/swagger.json.
func (a *API) swagger(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, a.OpenAPI())
}

// routeKey turns a mux pattern into the OpenAPI form of its route,
// "METHOD /path/{param}": a trailing slash ({$}) is the same route as
// without it, and a {name...} wildcard is the parameter name.
func routeKey(pattern string) (method, path string, ok bool) {
	method, path, ok = strings.Cut(pattern, " ")
	if !ok {
		return "", "", false
	}
	path = strings.NewReplacer("{$}", "", "...}", "}").Replace(path)
	if path != "/" {
		path = strings.TrimSuffix(path, "/")
	}
	return method, path, true
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// OpenAPI returns the OpenAPI 3.1 description of every served route, from
// the routes Register added and the operations table.
func (a *API) OpenAPI() map[string]any {
	s := &schemas{components: map[string]schema{
		"CaseTeamInput": teamInputSchema(),
		"Error":         {"type": "string", "description": "the reference engine's plain-text error message"},
	}}
	// Hand-written schemas refer to the named types by name: define them
	// all up front.
	for t := range componentNames {
		s.of(t)
	}
	paths := map[string]map[string]any{}
	tags := map[string]bool{}
	for _, p := range a.patterns {
		method, path, ok := routeKey(p)
		if !ok || strings.HasPrefix(path, "/api-docs") {
			continue
		}
		key := method + " " + path
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		if _, done := paths[path][strings.ToLower(method)]; done {
			continue
		}
		op, ok := operations[key]
		if !ok {
			op = operation{summary: "Undocumented route"}
		}
		tags[tagOf(path)] = true
		paths[path][strings.ToLower(method)] = op.describe(s, method, path)
	}
	var tagList []map[string]string
	for t := range tags {
		tagList = append(tagList, map[string]string{"name": t, "description": tagDescriptions[t]})
	}
	sort.Slice(tagList, func(i, j int) bool { return tagList[i]["name"] < tagList[j]["name"] })
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "CaseGraph REST API",
			"version": a.svc.Version().Version,
			"summary": "The reference engine's (Cafienne / CaseFabric) REST paths, status codes and JSON shapes",
			"description": "Errors answer as plain text, the reference engine's error body. " +
				"Commands answer with a Case-Last-Modified or Tenant-Last-Modified header; " +
				"the GraphQL door at /graphql serves the same data.",
			"license": map[string]any{"name": "Apache-2.0", "identifier": "Apache-2.0"},
		},
		"servers": []map[string]any{{"url": "/", "description": "this server"}},
		"tags":    tagList,
		"paths":   paths,
		"components": map[string]any{
			"schemas": s.components,
			"securitySchemes": map[string]any{
				"bearer": map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
					"description": "An OpenID Connect token of a trusted issuer (serve --dev: casegraph token USERID)"},
			},
		},
	}
}

// param is a query parameter or request header of an operation.
type param struct {
	name, in, description string
	schema                schema
}

func query(name, description string) param {
	return param{name: name, in: "query", description: description, schema: str("")}
}

func intQuery(name, description string) param {
	return param{name: name, in: "query", description: description, schema: schema{"type": "integer", "minimum": 0}}
}

// operation describes one route: what it takes and what it answers.
type operation struct {
	summary     string
	description string
	public      bool // served without a token
	params      []param
	body        any    // a Go value whose type is the request body, or a schema
	bodyType    string // default application/json
	bodyNotReq  bool   // an empty body is allowed
	status      int    // default 200
	response    any    // a Go value whose type is the response body, or a schema; nil: no body
	respType    string // default application/json
	header      string // Case-Last-Modified or Tenant-Last-Modified
	errors      []int  // besides 401 for operations with a token
	// badRequest, when set, is the JSON text of a 400 (labelled
	// text/plain, as the reference engine sends it) instead of a message.
	badRequest any
}

var statusText = map[int]string{
	200: "OK", 202: "Accepted", 204: "No Content", 304: "Not Modified: the transition had no effect",
	400: "Bad request: the input or the state does not allow it", 401: "Not authenticated, or not allowed",
	404: "Not found, or hidden from the caller", 500: "Internal: a stored definition that cannot be read, or a configuration that cannot serve the request",
	503: "Unavailable: the database, the identity provider or a competing write; try again",
}

func (o operation) describe(s *schemas, method, path string) map[string]any {
	out := map[string]any{
		"summary":     o.summary,
		"operationId": operationID(method, path),
		"tags":        []string{tagOf(path)},
	}
	if o.description != "" {
		out["description"] = o.description
	}
	var params []map[string]any
	for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
		params = append(params, map[string]any{"name": m[1], "in": "path", "required": true,
			"description": pathParamDescriptions[m[1]], "schema": str("")})
	}
	for _, p := range o.params {
		params = append(params, map[string]any{"name": p.name, "in": p.in, "description": p.description, "schema": p.schema})
	}
	if len(params) > 0 {
		out["parameters"] = params
	}
	if o.body != nil {
		ct := o.bodyType
		if ct == "" {
			ct = "application/json"
		}
		out["requestBody"] = map[string]any{"required": !o.bodyNotReq,
			"content": map[string]any{ct: map[string]any{"schema": s.schemaOf(o.body)}}}
	}
	status := o.status
	if status == 0 {
		status = http.StatusOK
	}
	ok := map[string]any{"description": statusText[status]}
	if o.response != nil {
		ct := o.respType
		if ct == "" {
			ct = "application/json"
		}
		ok["content"] = map[string]any{ct: map[string]any{"schema": s.schemaOf(o.response)}}
	}
	if o.header != "" {
		ok["headers"] = map[string]any{o.header: map[string]any{
			"description": "the instant and id of the change, to send back so that a following read waits for it",
			"schema":      str("")}}
	}
	responses := map[string]any{strconv.Itoa(status): ok}
	errs := o.errors
	// An empty requirement says that no token is needed.
	out["security"] = []map[string][]string{{}}
	if !o.public {
		errs = append([]int{http.StatusUnauthorized}, errs...)
		out["security"] = []map[string][]string{{"bearer": {}}}
	}
	if o.badRequest != nil {
		responses["400"] = map[string]any{"description": statusText[400],
			"content": map[string]any{"text/plain": map[string]any{"schema": s.schemaOf(o.badRequest)}}}
	}
	for _, code := range errs {
		responses[strconv.Itoa(code)] = map[string]any{"description": statusText[code],
			"content": map[string]any{"text/plain": map[string]any{"schema": ref("Error")}}}
	}
	out["responses"] = responses
	return out
}

// schemaOf takes a schema as it is, or derives one from a Go value's type.
func (s *schemas) schemaOf(v any) schema {
	if sc, ok := v.(schema); ok {
		return sc
	}
	return s.of(reflect.TypeOf(v))
}

// operationID names an operation for code generators: the method and the
// path's segments, e.g. getCasesCaseIdPlanitems.
func operationID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, seg := range strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '{' || r == '}' || r == '-' }) {
		b.WriteString(strings.ToUpper(seg[:1]) + seg[1:])
	}
	return b.String()
}

// tagOf names the area of a path by its first segment: cases, tasks, …
func tagOf(path string) string {
	seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	switch seg {
	case "", "status", "health", "version":
		return "health"
	}
	return seg
}
