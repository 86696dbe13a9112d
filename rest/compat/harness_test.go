package compat_test

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// tenant is the tenant every fixture creates.
const tenant = "compat"

// The callers of a row. Each is a distinct user of the fixture, so that a
// row says which kind of caller the reference engine answers as it does.
type caller int

const (
	platformOwner caller = iota + 1 // admin: platform owner, in no tenant
	tenantOwner                     // tom: owner of the tenant, not in the case team
	tenantUser                      // tess: user of the tenant, not in the case team
	caseOwner                       // carla: tenant user, owner of the case (no case role)
	caseMember                      // mike: tenant user, case member with role Clerk
	nonMember                       // nina: known to no tenant and to no case
	noToken                         // no Authorization header
	badToken                        // a bearer that is not a JWT
	emptySub                        // a valid token whose sub is ""
	approver                        // abe: tenant user, case member with role Approver
)

var userOf = map[caller]string{
	platformOwner: servertest.PlatformOwner,
	tenantOwner:   "tom",
	tenantUser:    "tess",
	caseOwner:     "carla",
	caseMember:    "mike",
	nonMember:     "nina",
	approver:      "abe",
}

func (c caller) String() string {
	switch c {
	case noToken:
		return "no token"
	case badToken:
		return "bad token"
	case emptySub:
		return "empty sub"
	}
	return userOf[c]
}

// row is one request and what the reference engine answers to it.
type row struct {
	// name tells rows of the same route and caller apart.
	name   string
	caller caller
	method string
	// path may hold {case}, {tenant} and {pi:NAME} (the id of the plan
	// item NAME in the row's case).
	path   string
	body   any // a string is sent as it is, anything else as JSON
	ctype  string
	header map[string]string

	status int
	// text is the exact plain-text body of an error (prefix: the start).
	text   string
	prefix bool
	// json is the shape of a JSON body (see shape.go); exact, when set, is
	// the body as JSON, compared as values.
	json  any
	exact string
	// xml: the body is an XML document (text/xml).
	xml bool
	// textJSON is the shape of a JSON text sent as plain text (the
	// reference engine's validation errors).
	textJSON any
	// empty: the body is empty.
	empty bool
	// lastModified is "Case" or "Tenant": the response carries that
	// *-Last-Modified header as <ISO instant>;<case id or tenant>.
	lastModified string

	// fresh runs the row on a case of its own, started for it; model
	// names the definition ("compat" when empty).
	fresh bool
	model string
	// before prepares the row's case; after checks more than the answer.
	before func(t *testing.T, f *fixture, c *caseRef)
	after  func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response)
	// pending skips the row with this reason: reference behaviour that
	// CaseGraph does not have yet. COMPAT_RUN_PENDING=1 runs them anyway,
	// to see which a fix has made pass.
	pending string
}

// fixture is one server and database with the tenant, the models and a
// shared case, for all rows of one table.
type fixture struct {
	env    *servertest.Env
	shared *caseRef
}

// caseRef is a started case and the ids of its plan items by name.
type caseRef struct {
	id    string
	items map[string]string
	lm    string // the Case-Last-Modified of the start
}

// newFixture creates the tenant (tom owner with role ops; tess with ops;
// carla, mike and abe plain users;
// dan disabled), deploys the suite's models and starts
// the shared case.
func newFixture(t *testing.T, env *servertest.Env) *fixture {
	t.Helper()
	f := &fixture{env: env}
	resp := env.Do(servertest.Request{Method: "POST", Path: "/platform", User: servertest.PlatformOwner, Body: map[string]any{
		"name": tenant, "users": []map[string]any{
			{"userId": "tom", "isOwner": true, "roles": []string{"ops"}, "name": "Tom", "email": "tom@example.com"},
			{"userId": "tess", "roles": []string{"ops"}},
			{"userId": "carla"}, {"userId": "mike"}, {"userId": "abe"}, {"userId": "dan", "enabled": false},
		}}})
	mustStatus(t, resp, http.StatusNoContent)
	for _, m := range []string{"compat", "pairs"} {
		mustStatus(t, f.deploy(t, m), http.StatusNoContent)
	}
	f.shared = f.start(t)
	recordRoutes(t, env)
	return f
}

func (f *fixture) deploy(t *testing.T, model string) *servertest.Response {
	return f.env.Do(servertest.Request{Method: "POST", Path: "/repository/deploy/" + model + ".xml?tenant=" + tenant,
		User: "tom", Body: readModel(t, model), ContentType: "application/xml"})
}

func readModel(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name + ".xml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// startBody is the StartCase of a model: carla owner, mike Clerk and abe
// Approver (members without roles in the models without roles).
func startBody(definition string) map[string]any {
	body := map[string]any{
		"definition": definition, "tenant": tenant,
		"caseTeam": map[string]any{"users": []map[string]any{
			{"userId": "carla", "isOwner": true},
			{"userId": "mike", "caseRoles": []string{"Clerk"}},
			{"userId": "abe", "caseRoles": []string{"Approver"}},
		}},
	}
	if definition != "compat" {
		// The other models have no case roles.
		body["caseTeam"] = map[string]any{"users": []map[string]any{
			{"userId": "carla", "isOwner": true}, {"userId": "mike"}, {"userId": "abe"}}}
	} else {
		body["inputs"] = map[string]any{"Order": map[string]any{"Code": "C-1", "Amount": 3, "Price": 9.5, "Paid": false, "Due": "2025-01-31"}}
	}
	return body
}

// start starts a compat case as carla.
func (f *fixture) start(t *testing.T) *caseRef { return f.startModel(t, "compat") }

func (f *fixture) startModel(t *testing.T, definition string) *caseRef {
	t.Helper()
	resp := f.env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "carla", Body: startBody(definition)})
	mustStatus(t, resp, http.StatusOK)
	var started struct{ CaseInstanceID string }
	resp.JSON(t, &started)
	c := &caseRef{id: started.CaseInstanceID, lm: resp.Header.Get("Case-Last-Modified")}
	f.refresh(t, c)
	return c
}

// refresh reads the case's plan item ids again; a later item of the same
// name (a repetition) wins.
func (f *fixture) refresh(t *testing.T, c *caseRef) {
	t.Helper()
	resp := f.env.Do(servertest.Request{Method: "GET", Path: "/cases/" + c.id + "/planitems", User: "carla"})
	mustStatus(t, resp, http.StatusOK)
	var items []struct{ ID, Name string }
	resp.JSON(t, &items)
	c.items = map[string]string{}
	for _, it := range items {
		c.items[it.Name] = it.ID
	}
}

// as sends a request as caller on case c, outside the table: for setup.
func (f *fixture) as(t *testing.T, who caller, method, path string, body any, c *caseRef) *servertest.Response {
	t.Helper()
	return f.send(t, row{caller: who, method: method, path: path, body: body}, c)
}

var placeholder = regexp.MustCompile(`\{pi:([^}]+)\}`)

func (f *fixture) expand(t *testing.T, path string, c *caseRef) string {
	t.Helper()
	path = strings.NewReplacer("{case}", c.id, "{tenant}", tenant).Replace(path)
	return placeholder.ReplaceAllStringFunc(path, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		id, ok := c.items[name]
		if !ok {
			t.Fatalf("the case has no plan item %q", name)
		}
		return id
	})
}

func (f *fixture) send(t *testing.T, r row, c *caseRef) *servertest.Response {
	t.Helper()
	req := servertest.Request{Method: r.method, Path: f.expand(t, r.path, c), Body: r.body, ContentType: r.ctype, Header: r.header}
	if _, raw := r.body.(string); !raw && r.body != nil {
		// Placeholders may stand in a JSON body too.
		b, err := json.Marshal(r.body)
		if err != nil {
			t.Fatal(err)
		}
		req.Body, req.ContentType = f.expand(t, string(b), c), cmpOr(r.ctype, "application/json")
	}
	switch r.caller {
	case noToken:
	case badToken:
		req.Token = "not-a-jwt"
	case emptySub:
		req.Token = f.env.Issuer.SignRaw(map[string]any{"iss": f.env.Issuer.URL, "sub": "", "exp": time.Now().Add(time.Hour).Unix()})
	default:
		req.User = userOf[r.caller]
	}
	if req.Method == "" {
		t.Fatalf("row without a method")
	}
	return f.env.Do(req)
}

func (r row) title() string {
	s := r.method + " " + r.path + " as " + r.caller.String()
	if r.name != "" {
		s += " " + r.name
	}
	return s
}

// run runs the rows in order, each a subtest.
func (f *fixture) run(t *testing.T, rows []row) {
	t.Helper()
	for _, r := range rows {
		covered(r)
		t.Run(r.title(), func(t *testing.T) {
			if r.pending != "" && os.Getenv("COMPAT_RUN_PENDING") == "" {
				t.Skip("pending: " + r.pending)
			}
			c := f.shared
			if r.fresh || r.model != "" {
				c = f.startModel(t, cmpOr(r.model, "compat"))
			}
			if r.before != nil {
				r.before(t, f, c)
			}
			resp := f.send(t, r, c)
			r.text = f.expand(t, r.text, c)
			r.exact = f.expand(t, r.exact, c)
			r.check(t, c, resp)
			if r.after != nil && !t.Failed() {
				r.after(t, f, c, resp)
			}
		})
	}
}

func (r row) check(t *testing.T, c *caseRef, resp *servertest.Response) {
	t.Helper()
	if resp.Status != r.status {
		t.Fatalf("status %d, want %d; body %q", resp.Status, r.status, resp.Body)
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case r.text != "":
		if ct != "text/plain; charset=UTF-8" {
			t.Errorf("Content-Type %q, want text/plain; charset=UTF-8", ct)
		}
		if r.prefix && !strings.HasPrefix(resp.Body, r.text) || !r.prefix && resp.Body != r.text {
			t.Errorf("body %q, want %q", resp.Body, r.text)
		}
	case r.json != nil || r.exact != "":
		if ct != "application/json" {
			t.Errorf("Content-Type %q, want application/json exactly", ct)
		}
		var v any
		if err := json.Unmarshal([]byte(resp.Body), &v); err != nil {
			t.Fatalf("body is not JSON (%v): %q", err, resp.Body)
		}
		if r.json != nil {
			if err := match(r.json, v, "$"); err != nil {
				t.Errorf("JSON shape: %v\nbody %s", err, resp.Body)
			}
		}
		if r.exact != "" {
			var want any
			if err := json.Unmarshal([]byte(r.exact), &want); err != nil {
				t.Fatalf("the row's exact body is not JSON: %v", err)
			}
			if !jsonEqual(v, want) {
				t.Errorf("body %s, want %s", resp.Body, r.exact)
			}
		}
	case r.textJSON != nil:
		// The reference sends this JSON through its string marshaller,
		// labelled as any error text.
		if ct != "text/plain; charset=UTF-8" {
			t.Errorf("Content-Type %q, want text/plain; charset=UTF-8", ct)
		}
		var v any
		if err := json.Unmarshal([]byte(resp.Body), &v); err != nil {
			t.Fatalf("body is not JSON text (%v): %q", err, resp.Body)
		}
		if err := match(r.textJSON, v, "$"); err != nil {
			t.Errorf("JSON shape: %v\nbody %s", err, resp.Body)
		}
	case r.xml:
		if !strings.HasPrefix(ct, "text/xml") || !strings.HasPrefix(strings.TrimSpace(resp.Body), "<") {
			t.Errorf("want an XML document, got %q: %.80q", ct, resp.Body)
		}
	case r.empty || r.status == http.StatusNoContent || r.status == http.StatusNotModified:
		if resp.Body != "" {
			t.Errorf("body %q, want none", resp.Body)
		}
	default:
		t.Fatalf("the row says nothing about the body %q", resp.Body)
	}
	if r.lastModified != "" {
		id := c.id
		if r.lastModified == "Tenant" {
			id = tenant
		}
		checkLastModified(t, resp, r.lastModified+"-Last-Modified", id)
	}
}

// checkLastModified: the header is <ISO-8601 instant>;<id>, the instant
// recent.
func checkLastModified(t *testing.T, resp *servertest.Response, name, id string) {
	t.Helper()
	v := resp.Header.Get(name)
	instant, got, ok := strings.Cut(v, ";")
	if !ok || got != id {
		t.Errorf("%s = %q, want <instant>;%s", name, v, id)
		return
	}
	at, err := time.Parse(time.RFC3339Nano, instant)
	if err != nil || !strings.HasSuffix(instant, "Z") {
		t.Errorf("%s instant %q is not an ISO-8601 UTC instant: %v", name, instant, err)
		return
	}
	if d := time.Since(at); d < -time.Minute || d > 10*time.Minute {
		t.Errorf("%s instant %s is not recent", name, instant)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func mustStatus(t *testing.T, resp *servertest.Response, status int) {
	t.Helper()
	if resp.Status != status {
		t.Fatalf("status %d, want %d; body %q", resp.Status, status, resp.Body)
	}
}

// uiOrigin is the browser origin the fixture's servers allow (CORS).
const uiOrigin = "http://ui.example"

// forEachDB runs rows on a fresh fixture per database.
func forEachDB(t *testing.T, rows []row) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		newFixture(t, env).run(t, rows)
	}, func(c *server.Config) { c.CORSOrigins = []string{uiOrigin} })
}
