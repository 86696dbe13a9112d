package compat_test

import (
	"testing"
)

func TestIdentifiers(t *testing.T) {
	forEachDB(t, []row{
		// §1.13: the business identifiers of the caller's cases.
		{caller: caseMember, method: "GET", path: "/identifiers", status: 200, json: listOf(identifierShape),
			exact: `[{"caseInstanceId":"{case}","tenant":"compat","name":"Code","value":"C-1"}]`},
		{name: "filtered", caller: caseMember, method: "GET", path: "/identifiers?tenant=compat&name=Code&offset=0&numberOfResults=10&sortBy=value&sortOrder=asc",
			status: 200, json: list{elem: identifierShape, n: 1}},
		{caller: nonMember, method: "GET", path: "/identifiers", status: 200, exact: `[]`},
		{caller: tenantOwner, method: "GET", path: "/identifiers", status: 200, exact: `[]`},
		{caller: caseMember, method: "GET", path: "/identifiers/names", status: 200, json: listOf("string"), exact: `["Code"]`},
		{caller: caseMember, method: "GET", path: "/identifiers/names?tenant=compat", status: 200, exact: `["Code"]`},
		{caller: nonMember, method: "GET", path: "/identifiers/names", status: 200, exact: `[]`},
		// The identifier filter of the case and task lists.
		{name: "by identifier", caller: caseMember, method: "GET", path: "/cases?identifiers=Code%3DC-1", status: 200, json: list{elem: caseSummaryShape, n: 1}},
		{name: "by identifier", caller: caseMember, method: "GET", path: "/cases?identifiers=Code%3DC-2", status: 200, exact: `[]`},
		{name: "by identifier", caller: caseMember, method: "GET", path: "/tasks?identifiers=Code%3DC-1&taskName=Review", status: 200, json: list{elem: taskShape, n: 1}},
	})
}
