package compat_test

import (
	"testing"
)

func TestPlanning(t *testing.T) {
	notFound := "A case with id '{case}' cannot be found."
	extra := func(planItemID string) map[string]any {
		b := map[string]any{"name": "Extra", "definitionId": "di_extra", "parentId": "{pi:Compat}"}
		if planItemID != "" {
			b["planItemId"] = planItemID
		}
		return b
	}
	forEachDB(t, []row{
		// §1.9
		{caller: approver, method: "GET", path: "/cases/{case}/discretionaryitems", status: 200, lastModified: "Case",
			json: obj{"caseInstanceId": "string", "name": is{"Compat"}, "discretionaryItems": listOf(obj{"name": "string", "definitionId": "string",
				"type": "string", "parentName": "string", "parentType": "string", "parentId": "string"})},
			exact: `{"caseInstanceId":"{case}","name":"Compat","discretionaryItems":[{"name":"Extra","definitionId":"di_extra","type":"HumanTask",` +
				`"parentName":"Compat","parentType":"CasePlan","parentId":"{pi:Compat}"}]}`},
		{caller: caseMember, method: "GET", path: "/cases/{case}/discretionaryitems", status: 200, lastModified: "Case",
			json: obj{"caseInstanceId": "string", "name": is{"Compat"}, "discretionaryItems": list{elem: "any", n: 0}}},
		{caller: nonMember, method: "GET", path: "/cases/{case}/discretionaryitems", status: 404, text: notFound},
		// The seed told users planitemId; both spellings are sent.
		{caller: approver, method: "POST", path: "/cases/{case}/discretionaryitems/plan", body: extra(""), fresh: true, status: 200,
			lastModified: "Case", json: obj{"planItemId": "string", "planitemId": opt{"string"}}},
		{name: "with an id", caller: caseOwner, method: "POST", path: "/cases/{case}/discretionaryitems/plan", body: extra("my_extra_1"), fresh: true,
			status: 200, lastModified: "Case", exact: `{"planItemId":"my_extra_1","planitemId":"my_extra_1"}`},
		{name: "an id in use", caller: caseOwner, method: "POST", path: "/cases/{case}/discretionaryitems/plan", body: extra("{pi:Review}"), status: 400,
			text: "Cannot plan a discretionary item named 'Extra' with the specified id {pi:Review}, because the case already has a plan item with that id"},
		{name: "without the role", caller: caseMember, method: "POST", path: "/cases/{case}/discretionaryitems/plan", body: extra(""), status: 400,
			text: "No authorization available to plan a discretionary item named 'Extra'"},
		{caller: nonMember, method: "POST", path: "/cases/{case}/discretionaryitems/plan", body: extra(""), status: 404, text: notFound},
		{name: "malformed", caller: caseOwner, method: "POST", path: "/cases/{case}/discretionaryitems/plan", body: `{"name":`, ctype: "application/json",
			status: 400, text: "The request content was malformed: ", prefix: true},
	})
}
