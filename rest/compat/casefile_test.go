package compat_test

import (
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// jstr is a JSON string body (a plain string body is sent as it is).
type jstr string

const propType = "http://www.omg.org/spec/CMMN/PropertyType/"

// caseFileIs checks the whole case file after a row.
func caseFileIs(want string) func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
	return func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
		got := f.as(t, caseOwner, "GET", "/cases/{case}/casefile", nil, c)
		r := row{status: 200, exact: want, method: "GET"}
		r.check(t, c, got)
	}
}

// fileOp changes the case file as carla before a row.
func fileOp(method, op, path string, body any) func(t *testing.T, f *fixture, c *caseRef) {
	return func(t *testing.T, f *fixture, c *caseRef) {
		mustStatus(t, f.as(t, caseOwner, method, "/cases/{case}/casefile/"+op+"/"+path, body, c), 200)
	}
}

func TestCaseFile(t *testing.T) {
	notFound := "A case with id '{case}' cannot be found."
	order := `{"Code":"C-1","Amount":3,"Price":9.5,"Paid":false,"Due":"2025-01-31"}`
	changed := func(r row) row {
		r.fresh, r.status, r.json, r.lastModified = true, 200, emptyObject, "Case"
		return r
	}
	wrongType := func(prop, typ, class string) string {
		return "Property '" + prop + "' has wrong type, expecting " + propType + typ + ", found a " + class
	}
	forEachDB(t, []row{
		// §1.7
		{caller: caseMember, method: "GET", path: "/cases/{case}/casefile", status: 200, json: obj{"Order": "object"}, exact: `{"Order":` + order + `}`},
		{caller: nonMember, method: "GET", path: "/cases/{case}/casefile", status: 404, text: notFound},

		changed(row{caller: caseMember, method: "POST", path: "/cases/{case}/casefile/create/Notes", body: map[string]any{"text": "hi"},
			after: caseFileIs(`{"Order":` + order + `,"Notes":{"text":"hi"}}`)}),
		changed(row{name: "the whole file", caller: caseMember, method: "POST", path: "/cases/{case}/casefile/create", body: map[string]any{"Notes": "n"},
			after: caseFileIs(`{"Order":` + order + `,"Notes":"n"}`)}),
		changed(row{name: "the whole file", caller: caseMember, method: "POST", path: "/cases/{case}/casefile/create/", body: map[string]any{"Notes": "n"}}),
		changed(row{caller: caseMember, method: "PUT", path: "/cases/{case}/casefile/update/Order", body: map[string]any{"Amount": 4},
			after: caseFileIs(`{"Order":{"Code":"C-1","Amount":4,"Price":9.5,"Paid":false,"Due":"2025-01-31"}}`)}),
		changed(row{name: "the whole file", caller: caseMember, method: "PUT", path: "/cases/{case}/casefile/update", body: map[string]any{"Order": map[string]any{"Amount": 5}}}),
		changed(row{caller: caseMember, method: "PUT", path: "/cases/{case}/casefile/replace/Order", body: map[string]any{"Code": "C-2"},
			after: caseFileIs(`{"Order":{"Code":"C-2"}}`)}),
		changed(row{name: "the whole file", caller: caseMember, method: "PUT", path: "/cases/{case}/casefile/replace", body: map[string]any{"Order": map[string]any{"Code": "C-3"}}}),
		changed(row{caller: caseMember, method: "DELETE", path: "/cases/{case}/casefile/delete/Notes", before: fileOp("POST", "create", "Notes", jstr("x")),
			after: caseFileIs(`{"Order":` + order + `}`)}),
		changed(row{name: "an array element", caller: caseMember, method: "POST", path: "/cases/{case}/casefile/create/Order/Lines",
			body: []map[string]any{{"Sku": "a", "Qty": 1}, {"Sku": "b", "Qty": 2}}}),
		changed(row{name: "the whole file", caller: caseOwner, method: "DELETE", path: "/cases/{case}/casefile/delete"}),
		{caller: nonMember, method: "POST", path: "/cases/{case}/casefile/create/Notes", body: jstr("x"), status: 404, text: notFound},
		{caller: nonMember, method: "PUT", path: "/cases/{case}/casefile/update/Order", body: map[string]any{}, status: 404, text: notFound},
		{caller: nonMember, method: "PUT", path: "/cases/{case}/casefile/replace/Order", body: map[string]any{}, status: 404, text: notFound},
		{caller: nonMember, method: "DELETE", path: "/cases/{case}/casefile/delete/Order", status: 404, text: notFound},

		{name: "twice", caller: caseMember, method: "POST", path: "/cases/{case}/casefile/create/Notes", body: jstr("y"), fresh: true,
			before: fileOp("POST", "create", "Notes", jstr("x")), status: 400,
			text: "CreateCaseFileItem[Notes] cannot be done because item is in state Available"},
		{name: "unknown item", caller: caseMember, method: "POST", path: "/cases/{case}/casefile/create/Nope", body: map[string]any{}, status: 400,
			text: "The path 'Nope' is invalid, since the part 'Nope' is not defined in the case file"},
		{name: "wrong type", caller: caseMember, method: "PUT", path: "/cases/{case}/casefile/update/Order", body: map[string]any{"Amount": "x"},
			status: 400, text: wrongType("Amount", "integer", "StringValue")},
		{name: "malformed", caller: caseMember, method: "PUT", path: "/cases/{case}/casefile/update/Order", body: `{"Amount":`, ctype: "application/json",
			status: 400, text: "The request content was malformed: ", prefix: true},
		{name: "wrong content type", caller: caseMember, method: "PUT", path: "/cases/{case}/casefile/update/Order", body: `{}`, ctype: "text/plain",
			status: 400, text: "The request content type Some(text/plain) is not supported, provide one of Set(application/json)"},

		// Issue 13 point 1, the reference's typing (addendum §1–§4).
		changed(row{name: "boolean for a string", caller: caseMember, method: "PUT", path: "/cases/{case}/casefile/update/Order",
			body: map[string]any{"Code": false}}),
		changed(row{name: "numbers into an item without properties", caller: caseMember, method: "POST", path: "/cases/{case}/casefile/create/Tags",
			body: []int{1, 2}, after: caseFileIs(`{"Order":` + order + `,"Tags":[1,2]}`)}),
		changed(row{name: "a list for an ExactlyOne item", caller: caseMember, method: "POST", path: "/cases/{case}/casefile/create/Label",
			body: []int{1, 2}, after: caseFileIs(`{"Order":` + order + `,"Label":[1,2]}`)}),
		changed(row{name: "a single value for an array", caller: caseMember, method: "POST", path: "/cases/{case}/casefile/create/Tags",
			body: jstr("one"), after: caseFileIs(`{"Order":` + order + `,"Tags":["one"]}`)}),
		{name: "integer for a double", caller: caseMember, method: "PUT", path: "/cases/{case}/casefile/update/Order", body: map[string]any{"Price": 5},
			status: 400, text: wrongType("Price", "double", "LongValue")},
		{name: "string for a boolean", caller: caseMember, method: "PUT", path: "/cases/{case}/casefile/update/Order", body: map[string]any{"Paid": "true"},
			status: 400, text: wrongType("Paid", "boolean", "StringValue")},
		{name: "object for a string", caller: caseMember, method: "PUT", path: "/cases/{case}/casefile/update/Order", body: map[string]any{"Code": map[string]any{}},
			status: 400, text: wrongType("Code", "string", "ValueMap")},
		{name: "index equal to the length", caller: caseMember, method: "POST", path: "/cases/{case}/casefile/create/Order/Lines[1]", fresh: true,
			body: map[string]any{"Sku": "b"}, before: fileOp("POST", "create", "Order/Lines", map[string]any{"Sku": "a"}), status: 400,
			text: "The array Order/Lines has only 1 items; cannot access Order/Lines[1] (Note: index starts at 0 instead of 1)"},
		{name: "index past the length", caller: caseMember, method: "POST", path: "/cases/{case}/casefile/create/Order/Lines[3]", fresh: true,
			body: map[string]any{"Sku": "b"}, before: fileOp("POST", "create", "Order/Lines", map[string]any{"Sku": "a"}), status: 400,
			text: "The array Order/Lines has only 1 items; cannot access Order/Lines[3]"},
		{name: "index within the length", caller: caseMember, method: "POST", path: "/cases/{case}/casefile/create/Order/Lines[0]", fresh: true,
			body: map[string]any{"Sku": "b"}, before: fileOp("POST", "create", "Order/Lines", map[string]any{"Sku": "a"}), status: 400,
			text: "CreateCaseFileItem[Order/Lines[0]] cannot be done because item is in state Available"},
		{name: "index on a non-array", caller: caseMember, method: "POST", path: "/cases/{case}/casefile/create/Notes[0]", body: jstr("x"),
			status: 400, text: "The path 'Notes[0]' is invalid because the CaseFileItem is not of type array"},

		// §1.10 case-file documentation.
		{caller: caseMember, method: "GET", path: "/cases/{case}/documentation/casefile", status: 200,
			json:  listOf(obj{"path": "string", "documentation": documentationShape}),
			exact: `[{"path":"Order","documentation":{"textFormat":"text/plain","text":"The order"}}]`},
		{caller: nonMember, method: "GET", path: "/cases/{case}/documentation/casefile", status: 404, text: notFound},
	})
}
