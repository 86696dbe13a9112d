package compat_test

import (
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// transition makes a transition as caller before a row.
func transition(who caller, item, tr string) func(t *testing.T, f *fixture, c *caseRef) {
	return func(t *testing.T, f *fixture, c *caseRef) {
		mustStatus(t, f.as(t, who, "POST", "/cases/{case}/planitems/"+item+"/"+tr, nil, c), 200)
		f.refresh(t, c)
	}
}

// itemState checks the state of a plan item after a row.
func itemState(name, state string) func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
	return func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
		f.refresh(t, c)
		got := f.as(t, caseOwner, "GET", "/cases/{case}/planitems/{pi:"+name+"}", nil, c)
		var it struct{ CurrentState string }
		got.JSON(t, &it)
		if it.CurrentState != state {
			t.Errorf("%s is %s, want %s", name, it.CurrentState, state)
		}
	}
}

func TestPlanItems(t *testing.T) {
	notFound := "A case with id '{case}' cannot be found."
	forEachDB(t, []row{
		// §1.8 reads.
		{caller: caseMember, method: "GET", path: "/cases/{case}/planitems", status: 200, json: list{elem: planItemShape, n: 9}},
		{caller: nonMember, method: "GET", path: "/cases/{case}/planitems", status: 404, text: notFound},
		{caller: caseMember, method: "GET", path: "/cases/{case}/planitems/{pi:Review}", status: 200,
			json: with(planItemShape, obj{"name": is{"Review"}, "type": is{"HumanTask"}, "currentState": is{"Active"},
				"transition": is{"Start"}, "index": is{0}, "stageId": "string", "caseInstanceId": "string"})},
		{caller: caseMember, method: "GET", path: "/cases/{case}/planitems/{pi:Compat}", status: 200,
			json: with(planItemShape, obj{"type": is{"CasePlan"}, "stageId": is{""}})},
		{caller: caseMember, method: "GET", path: "/cases/{case}/planitems/{pi:Approve}", status: 200,
			json: with(planItemShape, obj{"currentState": is{"Available"}, "transition": is{"Create"}})},
		{caller: caseMember, method: "GET", path: "/cases/{case}/planitems/nosuch", status: 404, text: "A plan item with id 'nosuch' cannot be found."},
		{caller: nonMember, method: "GET", path: "/cases/{case}/planitems/{pi:Review}", status: 404, text: "A plan item with id '{pi:Review}' cannot be found."},

		// POST /cases/{id}/planitems/{item}/{transition}: by id or name.
		{caller: caseMember, method: "POST", path: "/cases/{case}/planitems/{pi:Open}/complete", fresh: true, status: 200,
			json: emptyObject, lastModified: "Case", after: itemState("Open", "Completed")},
		{name: "by name", caller: caseMember, method: "POST", path: "/cases/{case}/planitems/Open/complete", fresh: true, status: 200,
			json: emptyObject, lastModified: "Case", after: itemState("Open", "Completed")},
		{name: "any case", caller: caseMember, method: "POST", path: "/cases/{case}/planitems/{pi:Open}/Complete", fresh: true, status: 200,
			json: emptyObject, lastModified: "Case"},
		{caller: approver, method: "POST", path: "/cases/{case}/planitems/Cancel/occur", fresh: true, status: 200,
			json: emptyObject, lastModified: "Case", after: itemState("Cancelled", "Completed")},
		{name: "no effect", caller: approver, method: "POST", path: "/cases/{case}/planitems/{pi:Cancel}/occur", fresh: true, status: 304,
			before: transition(approver, "Cancel", "occur")},
		{name: "without the role", caller: caseMember, method: "POST", path: "/cases/{case}/planitems/Cancel/occur", status: 401,
			text: "User 'mike' does not have the permission to raise the event Cancel"},
		{name: "task without the role", caller: approver, method: "POST", path: "/cases/{case}/planitems/{pi:Review}/complete", status: 400,
			text: "You do not have the permission to perform the task Review"},
		{name: "unknown transition", caller: caseMember, method: "POST", path: "/cases/{case}/planitems/{pi:Review}/bogus", status: 400,
			text: "Transition null is not valid"},
		{name: "unknown item", caller: caseMember, method: "POST", path: "/cases/{case}/planitems/Nothing/complete", status: 400,
			text: "There is no plan item with identifier 'Nothing' in case {case}"},
		{name: "active children", caller: caseOwner, method: "POST", path: "/cases/{case}/planitems/{pi:Shipping}/complete", status: 400,
			text: "Cannot complete the stage as there are active items remaining"},
		{name: "surrounding stage not active", caller: caseOwner, method: "POST", path: "/cases/{case}/planitems/{pi:Pack}/complete", fresh: true,
			before: transition(caseOwner, "{pi:Shipping}", "suspend"), status: 400,
			text: "Cannot perform action 'complete' on 'Pack', since the surrounding stage is not active"},
		{caller: nonMember, method: "POST", path: "/cases/{case}/planitems/{pi:Open}/complete", status: 404, text: notFound},
		// Repetition (addendum §18): without entry criteria an item repeats
		// on complete, as a new item with the next index.
		{name: "repeats", caller: caseMember, method: "GET", path: "/cases/{case}/planitems/{pi:Note}", fresh: true,
			before: transition(caseMember, "{pi:Note}", "complete"), status: 200,
			json: with(planItemShape, obj{"name": is{"Note"}, "index": is{1}, "currentState": is{"Active"}, "isRepeating": is{true}})},
		// The case plan: suspend, resume (not defined: 304), reactivate.
		{name: "case plan", caller: caseMember, method: "POST", path: "/cases/{case}/planitems/{pi:Compat}/suspend", fresh: true, status: 200,
			json: emptyObject, lastModified: "Case", after: itemState("Compat", "Suspended")},
		{name: "case plan", caller: caseMember, method: "POST", path: "/cases/{case}/planitems/{pi:Compat}/resume", fresh: true, status: 304,
			before: transition(caseMember, "{pi:Compat}", "suspend")},
		{name: "case plan", caller: caseMember, method: "POST", path: "/cases/{case}/planitems/{pi:Compat}/reactivate", fresh: true, status: 200,
			json: emptyObject, lastModified: "Case", before: transition(caseMember, "{pi:Compat}", "suspend"), after: itemState("Compat", "Active")},
	})
}
