package compat_test

import (
	"encoding/json"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// startedCase checks a StartCase answer: its Case-Last-Modified names the
// new case.
func startedCase(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
	var started struct{ CaseInstanceID string }
	if err := json.Unmarshal([]byte(resp.Body), &started); err != nil {
		t.Fatal(err)
	}
	checkLastModified(t, resp, "Case-Last-Modified", started.CaseInstanceID)
}

// startWith is the compat StartCase with changes.
func startWith(change func(b map[string]any)) map[string]any {
	b := startBody("compat")
	change(b)
	return b
}

func team(users ...map[string]any) map[string]any { return map[string]any{"users": users} }

func TestCases(t *testing.T) {
	started := obj{"caseInstanceId": "string", "name": is{"Compat"}}
	notFound := "A case with id '{case}' cannot be found."
	forEachDB(t, []row{
		// §1.5 StartCase: any authenticated user, in an existing tenant.
		{caller: caseOwner, method: "POST", path: "/cases", body: startBody("compat"), status: 200, json: started, after: startedCase},
		{caller: caseOwner, method: "POST", path: "/cases/", body: startBody("compat"), status: 200, json: started, after: startedCase},
		{name: "with an id", caller: caseOwner, method: "POST", path: "/cases",
			body: startWith(func(b map[string]any) { b["caseInstanceId"] = "my_case_1" }), status: 200,
			exact: `{"caseInstanceId":"my_case_1","name":"Compat"}`},
		{name: "existing id", caller: caseOwner, method: "POST", path: "/cases",
			body: startWith(func(b map[string]any) { b["caseInstanceId"] = "my_case_1" }), status: 400,
			text: "Failure while handling message StartCase. Check the server logs for more details"},
		{name: "id equal to a tenant", caller: caseOwner, method: "POST", path: "/cases",
			body: startWith(func(b map[string]any) { b["caseInstanceId"] = tenant }), status: 400,
			text: "Failure while handling message StartCase. Check the server logs for more details"},
		{name: "no definition", caller: caseOwner, method: "POST", path: "/cases",
			body: startWith(func(b map[string]any) { delete(b, "definition") }), status: 400, text: "Cannot find or load definition .xml"},
		{name: "unknown definition", caller: caseOwner, method: "POST", path: "/cases",
			body: startWith(func(b map[string]any) { b["definition"] = "nope" }), status: 400, text: "Cannot find or load definition nope.xml"},
		{name: "unknown input", caller: caseOwner, method: "POST", path: "/cases",
			body:   startWith(func(b map[string]any) { b["inputs"] = map[string]any{"Nope": 1} }),
			status: 400, text: "An input parameter with name Nope is not defined in the case"},
		{name: "unknown tenant", caller: caseOwner, method: "POST", path: "/cases",
			body: startWith(func(b map[string]any) { b["tenant"] = "nosuch" }), status: 404, text: "An active tenant with id 'nosuch' cannot be found."},
		{name: "no owner", caller: caseOwner, method: "POST", path: "/cases",
			body:   startWith(func(b map[string]any) { b["caseTeam"] = team(map[string]any{"userId": "mike"}) }),
			status: 400, text: "The case team needs to have at least one owner"},
		{name: "undefined role", caller: caseOwner, method: "POST", path: "/cases",
			body: startWith(func(b map[string]any) {
				b["caseTeam"] = team(map[string]any{"userId": "carla", "isOwner": true, "caseRoles": []string{"Boss"}})
			}), status: 400, text: "The following role(s) are not defined in the case: Boss"},
		{name: "empty role", caller: caseOwner, method: "POST", path: "/cases",
			body: startWith(func(b map[string]any) {
				b["caseTeam"] = team(map[string]any{"userId": "carla", "isOwner": true, "caseRoles": []string{""}})
			}), status: 400, text: "An empty role is not permitted"},
		{name: "duplicate users", caller: caseOwner, method: "POST", path: "/cases",
			body: startWith(func(b map[string]any) {
				b["caseTeam"] = team(map[string]any{"userId": "carla", "isOwner": true}, map[string]any{"userId": "carla"})
			}), status: 400, text: "The request content was malformed: Case team contains duplicate user entries: ['carla']"},
		{name: "consent group", caller: caseOwner, method: "POST", path: "/cases",
			body: startWith(func(b map[string]any) {
				b["caseTeam"] = map[string]any{"users": []map[string]any{{"userId": "carla", "isOwner": true}},
					"groups": []map[string]any{{"groupId": "g1", "mappings": []map[string]any{{"groupRole": "x", "caseRoles": []string{}}}}}}
			}), status: 404, text: "Cannot find a consent group with id 'g1'"},
		{name: "invalid id", caller: caseOwner, method: "POST", path: "/cases",
			body: startWith(func(b map[string]any) { b["caseInstanceId"] = "zäh" }), status: 400, text: "Invalid actor path", prefix: true},
		{name: "unknown field", caller: caseOwner, method: "POST", path: "/cases", body: `{"definition":"compat","tenant":"compat","bogus":1}`,
			ctype: "application/json", status: 400, text: `The request content was malformed: Unrecognized field "bogus"`, prefix: true},
		{name: "wrong content type", caller: caseOwner, method: "POST", path: "/cases", body: `{}`, ctype: "text/plain", status: 400,
			text: "The request content type Some(text/plain) is not supported, provide one of Set(application/json)"},

		// GET /cases: the caller's cases only.
		{caller: caseMember, method: "GET", path: "/cases", status: 200, json: listOf(caseSummaryShape)},
		{caller: caseMember, method: "GET", path: "/cases/", status: 200, json: listOf(caseSummaryShape)},
		{name: "filtered and paged", caller: caseMember, method: "GET",
			path:   "/cases?tenant=compat&state=Active&caseName=omp&offset=0&numberOfResults=1&sortBy=createdOn&sortOrder=asc",
			status: 200, json: list{elem: caseSummaryShape, n: 1}},
		{caller: nonMember, method: "GET", path: "/cases", status: 200, exact: `[]`},
		{caller: tenantOwner, method: "GET", path: "/cases?tenant=compat", status: 200, exact: `[]`},

		// GET /cases/{id}: members only; others get 404.
		{caller: caseMember, method: "GET", path: "/cases/{case}", status: 200, json: fullCaseShape},
		{caller: caseOwner, method: "GET", path: "/cases/{case}", status: 200, json: fullCaseShape},
		{caller: tenantOwner, method: "GET", path: "/cases/{case}", status: 404, text: notFound},
		{caller: nonMember, method: "GET", path: "/cases/{case}", status: 404, text: notFound},
		{caller: platformOwner, method: "GET", path: "/cases/{case}", status: 404, text: notFound},
		{caller: caseMember, method: "GET", path: "/cases/nosuch", status: 404, text: "A case with id 'nosuch' cannot be found."},

		{caller: caseMember, method: "GET", path: "/cases/{case}/definition", status: 200, xml: true},
		{caller: nonMember, method: "GET", path: "/cases/{case}/definition", status: 404, text: notFound},

		// PUT /cases/{id}/debug/{mode}: any member.
		{caller: caseMember, method: "PUT", path: "/cases/{case}/debug/true", status: 200, json: emptyObject, lastModified: "Case"},
		{caller: caseOwner, method: "PUT", path: "/cases/{case}/debug/false", status: 200, json: emptyObject, lastModified: "Case"},
		{caller: nonMember, method: "PUT", path: "/cases/{case}/debug/true", status: 404, text: notFound},
		{caller: caseOwner, method: "PUT", path: "/cases/{case}/debug/maybe", status: 400, text: "Debug mode must be true or false, not 'maybe'"},

		// Last, as it gives nina a case: the starter needs no tenant membership.
		{name: "(not in the tenant)", caller: nonMember, method: "POST", path: "/cases",
			body: startWith(func(b map[string]any) { delete(b, "caseTeam") }), status: 200, json: started, after: startedCase},
	})
}
