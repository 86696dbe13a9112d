package compat_test

import (
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// header checks response headers after a row.
func header(want map[string]string) func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
	return func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
		for k, v := range want {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("%s = %q, want %q", k, got, v)
			}
		}
	}
}

// TestConventions: §1.0, what holds on every route.
func TestConventions(t *testing.T) {
	const notFoundText = "The requested resource could not be found but may be available again in the future."
	// Pekko's text, listing the methods the path really has (the reference
	// always says GET, as its catch-all serves static files); Allow agrees.
	const notAllowedText = "HTTP method not allowed, supported methods: "
	allow := func(methods string) func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
		return header(map[string]string{"Allow": methods})
	}
	cors := map[string]string{
		"Access-Control-Allow-Origin":   uiOrigin,
		"Access-Control-Allow-Methods":  "GET, POST, HEAD, OPTIONS, PUT, DELETE",
		"Access-Control-Allow-Headers":  "Authorization, Content-Type, X-Requested-With, Case-Last-Modified, Tenant-Last-Modified, accept, origin",
		"Access-Control-Expose-Headers": "Case-Last-Modified, Tenant-Last-Modified",
		"Access-Control-Max-Age":        "200",
	}
	badHeader := func(name string) string { return "Header " + name + " has invalid content. Reason: " }
	forEachDB(t, []row{
		// Request bodies: application/json only; malformed is a 400.
		{name: "wrong content type", caller: caseOwner, method: "POST", path: "/cases/{case}/caseteam/users", body: `{"userId":"x"}`,
			ctype: "text/plain; charset=UTF-8", status: 400,
			text: "The request content type Some(text/plain; charset=UTF-8) is not supported, provide one of Set(application/json)"},
		{name: "wrong content type", caller: caseMember, method: "PUT", path: "/tasks/{pi:Review}/assign", body: `{"assignee":"mike"}`,
			ctype: "application/xml", status: 400,
			text: "The request content type Some(application/xml) is not supported, provide one of Set(application/json)"},
		{name: "malformed", caller: caseOwner, method: "POST", path: "/cases/{case}/caseteam/tenant-roles", body: `{"tenantRole":`,
			ctype: "application/json", status: 400, text: "The request content was malformed: ", prefix: true},
		{name: "wrong JSON type", caller: caseOwner, method: "POST", path: "/cases/{case}/caseteam/users", body: `{"userId":["x"]}`,
			ctype: "application/json", status: 400, text: "The request content was malformed: ", prefix: true},
		{name: "empty body", caller: caseOwner, method: "POST", path: "/cases", body: ``, ctype: "application/json",
			status: 400, text: "The request content was malformed: ", prefix: true},

		// Unknown routes: GET 404, anything else 405.
		{name: "unknown", caller: caseMember, method: "GET", path: "/no/such/route", status: 404, text: notFoundText},
		{name: "unknown", caller: noToken, method: "GET", path: "/cases/{case}/nothing/here", status: 404, text: notFoundText},
		{name: "unknown", caller: noToken, method: "POST", path: "/request/case/", status: 405, text: notAllowedText + "GET, HEAD", after: allow("GET, HEAD")},
		{name: "unknown", caller: caseMember, method: "PUT", path: "/no/such/route", status: 405, text: notAllowedText + "GET, HEAD", after: allow("GET, HEAD")},
		{name: "unknown", caller: caseMember, method: "DELETE", path: "/cases", status: 405, text: notAllowedText + "GET, HEAD, POST", after: allow("GET, HEAD, POST")},
		{name: "unknown", caller: caseMember, method: "POST", path: "/tasks/user/count", status: 405, text: notAllowedText + "GET, HEAD", after: allow("GET, HEAD")},

		// *-Last-Modified: any valid value is accepted, also one of another
		// case; a malformed one is a 400 on every route.
		{name: "valid Case-Last-Modified", caller: caseMember, method: "GET", path: "/cases/{case}", status: 200, json: fullCaseShape,
			header: map[string]string{"Case-Last-Modified": "2024-05-06T17:06:12.113204800Z;3e074f00_bb0d_4858_af0f_2424f8a2043a",
				"Tenant-Last-Modified": "2024-05-06T17:06:12Z;compat"}},
		{name: "malformed Case-Last-Modified", caller: caseMember, method: "GET", path: "/cases/{case}", status: 400,
			header: map[string]string{"Case-Last-Modified": "yesterday;{case}"}, text: badHeader("Case-Last-Modified"), prefix: true},
		{name: "malformed Case-Last-Modified", caller: caseMember, method: "PUT", path: "/tasks/{pi:Review}/claim", status: 400,
			header: map[string]string{"Case-Last-Modified": ";x"}, text: badHeader("Case-Last-Modified"), prefix: true},
		{name: "malformed Tenant-Last-Modified", caller: tenantUser, method: "GET", path: "/tenant/{tenant}/users", status: 400,
			header: map[string]string{"Tenant-Last-Modified": "2024-13-06T17:06:12Z;compat"}, text: badHeader("Tenant-Last-Modified"), prefix: true},

		// CORS: the reference's lists, the *-Last-Modified headers exposed.
		{name: "preflight", caller: noToken, method: "OPTIONS", path: "/cases", status: 200, empty: true,
			header: map[string]string{"Origin": "http://ui.example", "Access-Control-Request-Method": "POST"}, after: header(cors)},
		{name: "with an origin", caller: caseOwner, method: "POST", path: "/cases/{case}/planitems/{pi:Open}/suspend", fresh: true, status: 200,
			json: emptyObject, lastModified: "Case", header: map[string]string{"Origin": "http://ui.example"}, after: header(cors)},
		// Unlike the reference engine, an origin that is not configured gets
		// no CORS headers: its scripts may not read the answers.
		{name: "from an unknown origin", caller: noToken, method: "OPTIONS", path: "/cases", status: 200, empty: true,
			header: map[string]string{"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"},
			after:  header(map[string]string{"Access-Control-Allow-Origin": "", "Access-Control-Allow-Credentials": ""})},
	})
}
