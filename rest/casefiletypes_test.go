package rest_test

import (
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// TestCaseFileTypesTheReferenceWay pins addendum §1-§4 over REST: the
// values the reference engine's clients send are accepted, its messages
// refuse the others, and a create with an index always fails.
func TestCaseFileTypesTheReferenceWay(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "typed.xml", readModel(t, "typed.xml")), 204, "")
		const typeURI = "http://www.omg.org/spec/CMMN/PropertyType/"
		start := func(order string) *servertest.Response {
			return env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice",
				Body: `{"definition":"typed","tenant":"acme","inputs":{"Order":` + order + `}}`})
		}
		expect(t, start(`{"Discount":5}`), 400, "Property 'Discount' has wrong type, expecting "+typeURI+"double, found a LongValue")
		expect(t, start(`{"Paid":"true"}`), 400, "Property 'Paid' has wrong type, expecting "+typeURI+"boolean, found a StringValue")
		resp := start(`{"Customer":false,"Discount":5.0,"Lines":2,"Extra":{"any":"thing"}}`)
		expect(t, resp, 200, "")
		var started struct{ CaseInstanceID string }
		resp.JSON(t, &started)
		id := started.CaseInstanceID

		file := func(op, method, path, body string) *servertest.Response {
			return env.Do(servertest.Request{Method: method, Path: "/cases/" + id + "/casefile/" + op + "/" + path, User: "alice", Body: body})
		}
		expect(t, file("create", "POST", "Tags", `[1, 2]`), 200, "")
		expect(t, file("create", "POST", "Tags", `"three"`), 200, "")
		expect(t, file("create", "POST", "Note", `["a", {"b": 1}]`), 200, "")
		expect(t, file("update", "PUT", "Order", `{"Lines":2.5}`), 400, "Property 'Lines' has wrong type, expecting "+typeURI+"integer, found a DoubleValue")
		expect(t, file("update", "PUT", "Order", `{"Customer":[1]}`), 400, "Property 'Customer' has wrong type, expecting "+typeURI+"string, found a ValueList")
		expect(t, file("update", "PUT", "Order", `{"Discount":1e1,"Customer":12}`), 200, "")

		expect(t, file("create", "POST", "Tags[3]", `4`), 400, "The array Tags has only 3 items; cannot access Tags[3] (Note: index starts at 0 instead of 1)")
		expect(t, file("create", "POST", "Tags[7]", `4`), 400, "The array Tags has only 3 items; cannot access Tags[7]")
		expect(t, file("create", "POST", "Tags[1]", `4`), 400, "CreateCaseFileItem[Tags[1]] cannot be done because item is in state Available")
		expect(t, file("create", "POST", "Note[0]", `4`), 400, "The path 'Note[0]' is invalid because the CaseFileItem is not of type array")

		resp = env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/casefile", User: "alice"})
		expect(t, resp, 200, "")
		var got map[string]any
		resp.JSON(t, &got)
		if tags, _ := got["Tags"].([]any); len(tags) != 3 || tags[0] != 1.0 || tags[2] != "three" {
			t.Errorf("Tags = %v", got["Tags"])
		}
		if note, _ := got["Note"].([]any); len(note) != 2 {
			t.Errorf("Note = %v", got["Note"])
		}
		if order, _ := got["Order"].(map[string]any); order["Customer"] != 12.0 || order["Discount"] != 10.0 {
			t.Errorf("Order = %v", got["Order"])
		}
	})
}
