package rest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// openAPIValidator loads the served description and checks it against the
// OpenAPI 3.1 specification (its JSON Schema): zero errors.
func openAPIValidator(t *testing.T, env *servertest.Env) (validator.Validator, map[string]map[string]map[string]any) {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "GET", Path: "/api-docs/swagger.json"})
	expect(t, resp, 200, "")
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	doc, err := libopenapi.NewDocument([]byte(resp.Body))
	if err != nil {
		t.Fatalf("the description does not load: %v", err)
	}
	if v := doc.GetVersion(); v != "3.1.0" {
		t.Errorf("OpenAPI version %s, want 3.1.0", v)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("invalid description: %s: %s (%v)", e.Message, e.Reason, e.SchemaValidationErrors)
		}
		t.FailNow()
	}
	var raw struct {
		Paths map[string]map[string]map[string]any `json:"paths"`
	}
	resp.JSON(t, &raw)
	return v, raw.Paths
}

// TestOpenAPIDescription checks the document itself: valid OpenAPI 3.1,
// every path parameter declared, every operation with a success response
// and a request body schema where it takes one.
func TestOpenAPIDescription(t *testing.T) {
	env := servertest.Start(t, "sqlite")
	_, paths := openAPIValidator(t, env)
	if len(paths) < 55 {
		t.Errorf("only %d paths described", len(paths))
	}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	ids := map[string]string{}
	for path, methods := range paths {
		for method, op := range methods {
			where := strings.ToUpper(method) + " " + path
			if op["summary"] == "Undocumented route" {
				t.Errorf("%s has no description in swagger_ops.go", where)
			}
			declared := map[string]bool{}
			params, _ := op["parameters"].([]any)
			for _, p := range params {
				p := p.(map[string]any)
				if p["in"] == "path" {
					declared[p["name"].(string)] = true
				}
			}
			for _, m := range param.FindAllStringSubmatch(path, -1) {
				if !declared[m[1]] {
					t.Errorf("%s does not declare path parameter %s", where, m[1])
				}
			}
			if _, ok := op["security"]; !ok {
				t.Errorf("%s does not say whether it needs a token", where)
			}
			id, _ := op["operationId"].(string)
			if other, dup := ids[id]; dup || id == "" {
				t.Errorf("%s: operationId %q not unique (also %s)", where, id, other)
			}
			ids[id] = where
			responses, _ := op["responses"].(map[string]any)
			success := false
			for code, r := range responses {
				if code[0] == '2' || code == "304" {
					success = true
				}
				if _, ok := r.(map[string]any)["description"]; !ok {
					t.Errorf("%s response %s has no description", where, code)
				}
			}
			if !success {
				t.Errorf("%s has no success response", where)
			}
		}
	}
	for _, p := range []string{"/cases", "/tasks/{taskId}/claim", "/tenant/{tenant}/users", "/repository/deploy/{fileName}",
		"/cases/{caseId}/casefile/create/{path}"} {
		if paths[p] == nil {
			t.Errorf("the description lacks %s", p)
		}
	}
	if paths["/cases"]["post"]["requestBody"] == nil {
		t.Error("POST /cases has no request body")
	}
}

// TestResponsesMatchOpenAPI runs the main REST paths and validates each
// request and response against the served description, so that the
// schemas say what the handlers really send.
func TestResponsesMatchOpenAPI(t *testing.T) {
	env := servertest.Start(t, "sqlite")
	v, _ := openAPIValidator(t, env)
	call := func(method, path, user, contentType, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, env.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if user != "" {
			req.Header.Set("Authorization", "Bearer "+env.Issuer.Token(user))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		// The validator reads both bodies again.
		resp.Body = io.NopCloser(bytes.NewReader(data))
		check, _ := http.NewRequest(method, "http://localhost"+path, strings.NewReader(body))
		check.Header = req.Header.Clone()
		if ok, errs := v.ValidateHttpRequestResponse(check, resp); !ok {
			for _, e := range errs {
				t.Errorf("%s %s (%d): %s: %s %v", method, path, resp.StatusCode, e.Message, e.Reason, e.SchemaValidationErrors)
			}
		}
		return resp.StatusCode, string(data)
	}
	mustJSON := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	const js, xml = "application/json", "application/xml"
	call("GET", "/status", "", "", "")
	call("GET", "/health", "", "", "")
	call("GET", "/version", "", "", "")
	if s, b := call("POST", "/platform", admin, js, mustJSON(map[string]any{"name": "acme", "users": []map[string]any{
		{"userId": "alice", "isOwner": true, "roles": []string{"clerk"}}, {"userId": "bob", "roles": []string{"clerk"}}}})); s != 204 {
		t.Fatalf("create tenant: %d %s", s, b)
	}
	call("GET", "/platform/user", "alice", "", "")
	call("GET", "/tenant/acme/users", "alice", "", "")
	call("GET", "/tenant/acme/users/bob", "alice", "", "")
	call("GET", "/tenant/acme/owners", "alice", "", "")
	call("PUT", "/tenant/acme/users", "alice", js, `{"userId":"dave","roles":["clerk"],"name":null}`)
	permit := readModel(t, "permit.xml")
	if s, b := call("POST", "/repository/deploy/permit.xml?tenant=acme", "alice", xml, permit); s != 204 {
		t.Fatalf("deploy: %d %s", s, b)
	}
	call("POST", "/repository/validate", "", xml, strings.Replace(permit, `sourceRef="pi_review"`, `sourceRef="pi_nowhere"`, 1))
	call("POST", "/repository/validate", "", xml, permit)
	call("GET", "/repository/list?tenant=acme", "alice", "", "")
	call("GET", "/repository/load/permit.xml?tenant=acme", "alice", "", "")
	s, b := call("POST", "/cases", "alice", js, mustJSON(map[string]any{"definition": "permit", "tenant": "acme",
		"inputs":   map[string]any{"Application": map[string]any{"Applicant": "Ann", "Address": "Main Street 1", "Floors": 3, "Reviewer": "alice"}},
		"caseTeam": map[string]any{"users": []map[string]any{{"userId": "alice", "isOwner": true, "caseRoles": []string{"Reviewer"}}}}}))
	var started struct{ CaseInstanceID string }
	if err := json.Unmarshal([]byte(b), &started); s != 200 || err != nil {
		t.Fatalf("start case: %d %s", s, b)
	}
	id := started.CaseInstanceID
	call("GET", "/cases?tenant=acme", "alice", "", "")
	call("GET", "/cases/"+id, "alice", "", "")
	call("GET", "/cases/nope", "alice", "", "")
	call("GET", "/cases/"+id+"/planitems", "alice", "", "")
	call("GET", "/cases/"+id+"/casefile", "alice", "", "")
	call("PUT", "/cases/"+id+"/casefile/update/Application", "alice", js, `{"Floors":4}`)
	call("GET", "/cases/"+id+"/caseteam", "alice", "", "")
	call("POST", "/cases/"+id+"/caseteam/users", "alice", js, `{"userId":"bob","caseRoles":[]}`)
	call("GET", "/cases/"+id+"/history/events", "alice", "", "")
	call("GET", "/cases/"+id+"/history/planitems", "alice", "", "")
	call("GET", "/cases/"+id+"/discretionaryitems", "alice", "", "")
	call("GET", "/cases/"+id+"/documentation/casefile", "alice", "", "")
	call("GET", "/tasks?tenant=acme", "alice", "", "")
	call("GET", "/tasks/user/count", "alice", "", "")
	s, b = call("GET", "/tasks/case/"+id, "alice", "", "")
	var tasks []struct{ ID string }
	if err := json.Unmarshal([]byte(b), &tasks); s != 200 || err != nil || len(tasks) == 0 {
		t.Fatalf("case tasks: %d %s", s, b)
	}
	call("GET", "/tasks/"+tasks[0].ID, "alice", "", "")
	call("PUT", "/tasks/"+tasks[0].ID+"/claim", "alice", "", "")
	call("PUT", "/tasks/"+tasks[0].ID, "alice", js, `{"Decision":{"Approved":true}}`)
	call("POST", "/tasks/"+tasks[0].ID+"/complete", "alice", js, `{"Decision":{"Approved":true,"Remark":"fine"}}`)
	call("PUT", "/tasks/"+tasks[0].ID+"/claim", "alice", "", "")
	call("GET", "/identifiers?tenant=acme", "alice", "", "")
	call("GET", "/identifiers/names?tenant=acme", "alice", "", "")
	call("GET", "/debug/"+id, "alice", "", "")
}

// TestAPIDocsPage checks that /api-docs serves the Redoc page and its
// script from the binary, with no outside URL.
func TestAPIDocsPage(t *testing.T) {
	env := servertest.Start(t, "sqlite")
	page := env.Do(servertest.Request{Method: "GET", Path: "/api-docs"})
	expect(t, page, 200, "")
	if !strings.Contains(page.Body, `spec-url="api-docs/swagger.json"`) || !strings.Contains(page.Body, `src="api-docs/redoc.standalone.js"`) ||
		strings.Contains(page.Body, "https://") || strings.Contains(page.Body, "http://") {
		t.Errorf("page:\n%s", page.Body)
	}
	script := env.Do(servertest.Request{Method: "GET", Path: "/api-docs/redoc.standalone.js"})
	expect(t, script, 200, "")
	if len(script.Body) < 500_000 || !strings.HasPrefix(script.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("script: %d bytes, %s", len(script.Body), script.Header.Get("Content-Type"))
	}
}
