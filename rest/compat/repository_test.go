package compat_test

import (
	"testing"
)

func TestRepository(t *testing.T) {
	compat := readModel(t, "compat")
	nameless := readModel(t, "nameless")
	badSentry := readModel(t, "badsentry")
	forEachDB(t, []row{
		// §1.4 list and load: any user resolved to a tenant.
		{caller: tenantUser, method: "GET", path: "/repository/list", status: 200,
			json:  obj{"models": listOf(obj{"definitions": "string", "description": "string"})},
			exact: `{"models":[{"definitions":"compat.xml","description":"A case for the REST compatibility suite."},{"definitions":"pairs.xml","description":""}]}`},
		{caller: caseMember, method: "GET", path: "/repository/list?tenant=compat", status: 200,
			json: obj{"models": list{elem: obj{"definitions": "string", "description": "string"}, n: 2}}},
		{caller: nonMember, method: "GET", path: "/repository/list", status: 401, text: "User 'nina' is not registered in a tenant"},
		{caller: tenantUser, method: "GET", path: "/repository/list?tenant=nosuch", status: 404,
			text: "An active tenant with id 'nosuch' cannot be found."},
		{caller: tenantUser, method: "GET", path: "/repository/load/compat.xml", status: 200, xml: true},
		{name: "without .xml", caller: tenantUser, method: "GET", path: "/repository/load/compat", status: 200, xml: true},
		{caller: tenantUser, method: "GET", path: "/repository/load/nope.xml", status: 404, text: "A model with name nope.xml cannot be found"},
		{caller: nonMember, method: "GET", path: "/repository/load/compat.xml", status: 401, text: "User 'nina' is not registered in a tenant"},

		// POST /repository/validate: open to anyone, XML only.
		{caller: noToken, method: "POST", path: "/repository/validate", body: compat, ctype: "application/xml", status: 200, empty: true},
		{caller: noToken, method: "POST", path: "/repository/validate", body: nameless, ctype: "application/xml", status: 400,
			textJSON: listOf("string")},
		{name: "reference messages", caller: noToken, method: "POST", path: "/repository/validate", body: nameless, ctype: "application/xml",
			status: 400, textJSON: is{[]string{"nameless.case: The HumanTask with id ht_task must have a name"}}},
		{name: "reference messages", caller: noToken, method: "POST", path: "/repository/validate", body: badSentry, ctype: "application/xml",
			status: 400, textJSON: is{[]string{"badsentry.case: A plan item with name 'Ghost' is referenced from exitCriterion s_ghost, but it does not exist in the case plan model"}}},
		{name: "wrong content type", caller: noToken, method: "POST", path: "/repository/validate", body: `{}`, ctype: "application/json", status: 400,
			text: "The request content type Some(application/json) is not supported, provide one of Set(application/xml)"},

		// POST /repository/deploy/{file}: tenant owners.
		{caller: tenantOwner, method: "POST", path: "/repository/deploy/other.xml", body: compat, ctype: "application/xml", status: 204},
		{name: "in a folder", caller: tenantOwner, method: "POST", path: "/repository/deploy/sub/folder/other.xml?tenant=compat", body: compat,
			ctype: "application/xml", status: 204},
		{caller: tenantUser, method: "POST", path: "/repository/deploy/other.xml", body: compat, ctype: "application/xml", status: 401,
			text: "User 'tess' does not have the privileges to deploy a definition"},
		{caller: nonMember, method: "POST", path: "/repository/deploy/other.xml", body: compat, ctype: "application/xml", status: 401,
			text: "User 'nina' is not registered in a tenant"},
		{name: "invalid", caller: tenantOwner, method: "POST", path: "/repository/deploy/nameless.xml", body: nameless, ctype: "application/xml",
			status: 400, text: "Cannot deploy nameless.xml: definition is invalid.", prefix: true},
		{name: "wrong content type", caller: tenantOwner, method: "POST", path: "/repository/deploy/other.xml", body: `{}`, ctype: "application/json", status: 400,
			text: "The request content type Some(application/json) is not supported, provide one of Set(application/xml)"},
	})
}
