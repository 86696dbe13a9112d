package compat_test

import "testing"

// TestStorage: the reference engine's /storage routes (§1.14). Each
// archive or delete row runs on a case of its own; the tenant goes last.
func TestStorage(t *testing.T) {
	notFound := "A case with id '{case}' cannot be found."
	accepted := "The request has been accepted for processing, but the processing has not been completed."
	noArchive := "An archive of case '{case}' cannot be found"
	archived := func(t *testing.T, f *fixture, c *caseRef) {
		mustStatus(t, f.as(t, caseOwner, "PUT", "/storage/case/{case}/archive", nil, c), 202)
	}
	forEachDB(t, []row{
		{caller: caseOwner, method: "PUT", path: "/storage/case/{case}/archive", fresh: true, status: 202, text: accepted},
		{caller: caseMember, method: "PUT", path: "/storage/case/{case}/archive", status: 401, text: "You must be case owner to perform this operation"},
		{caller: tenantOwner, method: "PUT", path: "/storage/case/{case}/archive", status: 404, text: notFound},
		{caller: nonMember, method: "PUT", path: "/storage/case/{case}/archive", status: 404, text: notFound},
		{caller: noToken, method: "PUT", path: "/storage/case/{case}/archive", status: 401, text: "Authorization token is missing"},

		{caller: caseMember, method: "PUT", path: "/storage/case/{case}/restore", fresh: true, before: archived, status: 202, text: accepted},
		{caller: caseOwner, method: "PUT", path: "/storage/case/{case}/restore", status: 404, text: noArchive},
		// The reference restores for anyone; CaseGraph for the team only.
		{caller: nonMember, method: "PUT", path: "/storage/case/{case}/restore", fresh: true, before: archived, status: 404, text: noArchive},

		{caller: caseOwner, method: "DELETE", path: "/storage/case/{case}", fresh: true, status: 202, text: accepted},
		{caller: caseMember, method: "DELETE", path: "/storage/case/{case}", status: 401, text: "You must be case owner to perform this operation"},
		{caller: nonMember, method: "DELETE", path: "/storage/case/{case}", status: 404, text: notFound},

		{caller: caseOwner, method: "DELETE", path: "/storage/tenant/{tenant}", status: 401, text: "Only tenant owners can perform this operation"},
		{caller: nonMember, method: "DELETE", path: "/storage/tenant/{tenant}", status: 404, prefix: true, text: "Tenant 'compat' does not exist"},
		{caller: tenantOwner, method: "DELETE", path: "/storage/tenant/{tenant}", status: 202, text: accepted},
	})
}
