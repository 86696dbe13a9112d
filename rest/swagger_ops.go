package rest

import (
	"net/http"
)

// This file describes every REST route for the OpenAPI document: a test
// fails when a route is registered without a description here, or a
// description names no route.

var tagDescriptions = map[string]string{
	"health":        "Liveness, health report and version; no token needed",
	"platform":      "Tenants, for platform owners; the caller's own accounts",
	"tenant":        "Users and roles of a tenant, for its owners",
	"repository":    "CMMN definitions: deploy, list, load, validate",
	"cases":         "Case instances: start, read, plan items, case file, team, history, planning",
	"tasks":         "Human tasks: inbox, claim, assign, delegate, revoke, save, validate, complete",
	"debug":         "The raw event view of a case",
	"identifiers":   "Business identifiers of cases",
	"consent-group": "Consent groups of a tenant: members with group roles, managed by the group's owners",
	"storage":       "Archive, restore and delete cases and tenants",
	"request":       "Anonymous case start, when configured",
}

var pathParamDescriptions = map[string]string{
	"tenant":     "tenant name",
	"userId":     "user id",
	"fileName":   "definition file name, e.g. permit.xml (may contain /)",
	"caseId":     "case instance id",
	"mode":       "true or false",
	"planItemId": "plan item id",
	"planItem":   "plan item id or name; by name, the most recent item with that name",
	"transition": "a CMMN transition: complete, terminate, suspend, resume, reactivate, occur, manualStart, …",
	"path":       "case file path, e.g. Root/children[1]/name; absent for the whole case file",
	"memberId":   "member id: a user id, or a tenant role with ?memberType=role",
	"role":       "tenant role",
	"groupId":    "consent group id",
	"taskId":     "task id (the plan item id of the human task)",
	"modelId":    "case instance id",
	"type":       "request type: the url of a configured anonymous definition",
}

func tenantQuery() param {
	return query("tenant", "tenant; default: the caller's only tenant or the configured default tenant")
}

func pagingParams() []param {
	return []param{
		intQuery("offset", "rows to skip"),
		{name: "numberOfResults", in: "query", description: "rows to return (default 100, at most 10000)",
			schema: schema{"type": "integer", "minimum": 0, "maximum": maxPageSize}},
		query("sortBy", "field to sort on"),
		{name: "sortOrder", in: "query", description: "asc or desc", schema: schema{"type": "string", "enum": []string{"asc", "desc", "ASC", "DESC"}}},
	}
}

func healthReport() schema {
	point := obj(true, "Status", schema{"type": "string", "enum": []string{"OK", "NOK"}}, "Description", str(""))
	return obj(true, "Status", schema{"type": "string", "enum": []string{"OK", "NOK"}}, "Description", str(""),
		"measure-points", arrayOf(schema{"type": "object", "additionalProperties": point}))
}

func versionReport() schema {
	return obj(true, "name", str(""), "organization", str(""), "version", str(""), "description", str(""),
		"gitHeadCommit", str(""), "gitCurrentBranch", str(""), "gitUncommittedChanges", schema{"type": "boolean"},
		"builtAtString", str("yyyy-MM-dd HH:mm:ss.SSSZ, or empty"), "builtAtMillis", schema{"type": "integer"})
}

func tenantInput() schema {
	return obj(false, "name", str("tenant name"), "users", arrayOf(ref("TenantUserInput")))
}

// teamInputSchema is every case team format a request may carry: the
// object {users, tenantRoles, groups} of the reference engine, its legacy
// {members}, or a plain array of members.
func teamInputSchema() schema {
	return schema{"oneOf": []any{
		obj(false, "users", arrayOf(ref("CaseTeamUserInput")), "tenantRoles", arrayOf(ref("CaseTeamTenantRoleInput")),
			"groups", arrayOf(ref("CaseTeamGroupInput")), "members", arrayOf(ref("CaseTeamMemberInput"))),
		arrayOf(ref("CaseTeamMemberInput")),
	}}
}

func caseDetail() schema {
	identifier := obj(true, "name", str(""), "value", str(""))
	return schema{"allOf": []any{ref("CaseSummary"), obj(true, "identifiers", arrayOf(identifier))}}
}

func startCaseInput() schema {
	return obj(false, "definition", str("definition file name, e.g. permit.xml"), "inputs", anyObject(),
		"caseTeam", ref("CaseTeamInput"), "tenant", str(""), "caseInstanceId", str("id of the new case; default a generated one"),
		"debug", schema{"type": "boolean"})
}

var caseFileBody = map[string]any{"description": "the value: an object, a list or a scalar"}

var operations = func() map[string]operation {
	ops := map[string]operation{}
	add := func(key string, op operation) { ops[key] = op }
	for _, prefix := range []string{"", "/platform"} {
		add("GET "+prefix+"/status", operation{summary: "Liveness: OK while the database and the identity provider are healthy",
			public: true, response: str("OK"), respType: "text/plain", errors: []int{503}})
		add("GET "+prefix+"/health", operation{summary: "Health report per measure point", public: true, response: healthReport()})
		add("GET "+prefix+"/version", operation{summary: "Version of the running build", public: true, response: versionReport()})
	}

	add("POST /platform", operation{summary: "Create a tenant", body: tenantInput(), status: 204, header: "Tenant-Last-Modified", errors: []int{400}})
	add("PUT /platform/{tenant}/disable", operation{summary: "Disable a tenant", status: 204, header: "Tenant-Last-Modified", errors: []int{400, 404}})
	add("PUT /platform/{tenant}/enable", operation{summary: "Enable a tenant", status: 204, header: "Tenant-Last-Modified", errors: []int{400, 404}})
	add("GET /platform/user", operation{summary: "The caller and their tenant accounts",
		response: obj(true, "userId", str(""), "tenants", arrayOf(ref("TenantUser")), "groups", arrayOf(ref("UserConsentGroup")))})

	add("GET /tenant/{tenant}/owners", operation{summary: "Owners of a tenant", response: stringList(), errors: []int{404}})
	add("GET /tenant/{tenant}/users", operation{summary: "Enabled users of a tenant", response: []tenantUserJSON{}, errors: []int{404}})
	add("GET /tenant/{tenant}/users/{userId}", operation{summary: "One user of a tenant", response: tenantUserJSON{}, errors: []int{404}})
	add("GET /tenant/{tenant}/disabled-accounts", operation{summary: "Disabled users of a tenant", response: []tenantUserJSON{}, errors: []int{404}})
	for _, m := range []string{"POST", "PUT"} {
		add(m+" /tenant/{tenant}/users", operation{summary: "Add or change a tenant user", body: userFormat{}, status: 204,
			header: "Tenant-Last-Modified", errors: []int{400, 404}})
		add(m+" /tenant/{tenant}", operation{summary: "Replace the users of a tenant", body: tenantInput(), status: 204,
			header: "Tenant-Last-Modified", errors: []int{400, 404}})
	}
	add("DELETE /tenant/{tenant}/users/{userId}", operation{summary: "Remove a tenant user", status: 204,
		header: "Tenant-Last-Modified", errors: []int{400, 404}})
	add("POST /tenant/{tenant}/consent-groups", operation{summary: "Create a consent group (tenant owners)", body: groupFormat{},
		response: obj(true, "groupId", str("the id given, or a generated one")), header: "Consent-Group-Last-Modified",
		description: "id is optional; members need an owner and distinct user ids.", errors: []int{400, 404}})

	add("GET /consent-group/{groupId}", operation{summary: "A consent group the caller is a member of", response: groupJSON{}, errors: []int{404}})
	add("GET /consent-group/{groupId}/members/{userId}", operation{summary: "One member of a consent group", response: groupMemberJSON{}, errors: []int{404}})
	groupCommand := func(summary string, body any) operation {
		return operation{summary: summary, body: body, status: http.StatusAccepted, respType: "text/plain",
			response: str("The request has been accepted for processing, but the processing has not been completed."),
			header:   "Consent-Group-Last-Modified", errors: []int{400, 404}}
	}
	add("POST /consent-group/{groupId}", groupCommand("Replace the members of a consent group (group owners)", groupFormat{}))
	add("POST /consent-group/{groupId}/members", groupCommand("Add or replace a consent group member (group owners)", groupMemberFormat{}))
	add("DELETE /consent-group/{groupId}/members/{userId}", groupCommand("Remove a consent group member (group owners)", nil))

	add("GET /repository/list", operation{summary: "Definitions deployed to the tenant", params: []param{tenantQuery()},
		response: obj(true, "models", arrayOf(obj(true, "definitions", str("file name"), "description", str("documentation")))), errors: []int{404}})
	add("GET /repository/load/{fileName}", operation{summary: "The XML of a deployed definition", params: []param{tenantQuery()},
		response: str("CMMN XML"), respType: "text/xml", errors: []int{404, 500}})
	add("POST /repository/validate", operation{summary: "Validate a definition; stores nothing", public: true,
		body: str("CMMN XML"), bodyType: "application/xml",
		description: "200 with no body when the definition is valid; 400 with a JSON array of its problems otherwise.",
		badRequest:  arrayOf(str("a problem of the definition"))})
	add("POST /repository/deploy/{fileName}", operation{summary: "Deploy a definition (tenant owners)", params: []param{tenantQuery()},
		body: str("CMMN XML"), bodyType: "application/xml", status: 204,
		description: "An invalid definition answers 400: the reference engine's message, then each problem on its own line.",
		errors:      []int{400, 404}})

	add("POST /cases", operation{summary: "Start a case", body: startCaseInput(),
		response: obj(true, "caseInstanceId", str(""), "name", str("")), header: "Case-Last-Modified", errors: []int{400, 404}})
	add("GET /cases", operation{summary: "Cases the caller is in the team of",
		params: append([]param{tenantQuery(), query("state", "case state, e.g. Active"), query("caseName", "definition name"),
			query("definition", "definition name (same as caseName)"), query("identifiers", "name=value pairs, comma-separated")}, pagingParams()...),
		response: []caseSummary{}, errors: []int{400}})
	add("GET /cases/{caseId}", operation{summary: "A case with its plan items, team and case file", response: caseDetail(), errors: []int{404}})
	add("GET /cases/{caseId}/definition", operation{summary: "The XML of the definition the case runs on", response: str("CMMN XML"), respType: "text/xml", errors: []int{404}})
	add("PUT /cases/{caseId}/debug/{mode}", operation{summary: "Switch debug mode of a case", response: emptyObject(), header: "Case-Last-Modified", errors: []int{400, 404}})
	add("POST /cases/{caseId}/migrate-definition", operation{summary: "Move the case onto another definition",
		body: obj(false, "newDefinition", str("the new CMMN definitions document, or the name of a definition deployed to the case's tenant"),
			"newTeam", ref("CaseTeamInput")),
		description: "Any team member may migrate; a newTeam replaces the team and needs a case owner. Plan items are matched by " +
			"definition id, then by name, and keep their state; items the new definition lacks are terminated; new items start as " +
			"its plan says. 400 for a sub case, an unknown definition name, or an invalid document (the message, then each problem " +
			"on its own line).",
		response: emptyObject(), header: "Case-Last-Modified", errors: []int{400, 401, 404}})
	add("GET /cases/{caseId}/planitems", operation{summary: "Plan items of a case", response: []planItemJSON{}, errors: []int{404}})
	add("GET /cases/{caseId}/planitems/{planItemId}", operation{summary: "One plan item", response: planItemJSON{}, errors: []int{404}})
	add("POST /cases/{caseId}/planitems/{planItem}/{transition}", operation{summary: "Make a transition on a plan item",
		response: emptyObject(), header: "Case-Last-Modified", errors: []int{304, 400, 404}})
	add("GET /cases/{caseId}/casefile", operation{summary: "The case file", response: anyObject(), errors: []int{404}})
	for _, op := range []struct{ method, name, summary string }{
		{"POST", "create", "Create a case file item"}, {"PUT", "update", "Update a case file item (merge)"},
		{"PUT", "replace", "Replace a case file item"}, {"DELETE", "delete", "Delete a case file item"},
	} {
		o := operation{summary: op.summary, response: emptyObject(), header: "Case-Last-Modified", errors: []int{400, 404}}
		if op.name != "delete" {
			o.body = schema(caseFileBody)
		}
		add(op.method+" /cases/{caseId}/casefile/"+op.name, o)
		add(op.method+" /cases/{caseId}/casefile/"+op.name+"/{path}", o)
	}
	add("GET /cases/{caseId}/history/events", operation{summary: "Events of a case", response: []eventJSON{}, errors: []int{404}})
	add("GET /cases/{caseId}/history/planitems", operation{summary: "Transition history of every plan item",
		response: [][]planItemHistoryJSON{}, errors: []int{404}})
	add("GET /cases/{caseId}/history/planitems/{planItemId}", operation{summary: "Transition history of one plan item",
		response: []planItemHistoryJSON{}, errors: []int{404}})
	add("GET /cases/{caseId}/documentation/planitems/{planItemId}", operation{summary: "Documentation of a plan item; null when it has none",
		response: nullableOf(ref("Documentation")), errors: []int{404}})
	add("GET /cases/{caseId}/documentation/casefile", operation{summary: "Documentation of the case file items",
		response: arrayOf(obj(true, "path", str(""), "documentation", ref("Documentation"))), errors: []int{404}})
	add("GET /cases/{caseId}/caseteam", operation{summary: "The case team", response: teamJSON{}, errors: []int{404}})
	add("POST /cases/{caseId}/caseteam", operation{summary: "Replace the case team", body: ref("CaseTeamInput"),
		response: emptyObject(), header: "Case-Last-Modified", errors: []int{400, 404}})
	add("PUT /cases/{caseId}/caseteam", operation{summary: "Change members (deprecated format)",
		body:     schema{"oneOf": []any{ref("CaseTeamMemberInput"), arrayOf(ref("CaseTeamMemberInput"))}},
		response: emptyObject(), header: "Case-Last-Modified", errors: []int{400, 404}})
	add("DELETE /cases/{caseId}/caseteam/{memberId}", operation{summary: "Remove a member",
		params:   []param{query("memberType", "user (default) or role"), query("type", "user (default) or role")},
		response: emptyObject(), header: "Case-Last-Modified", errors: []int{400, 404}})
	add("POST /cases/{caseId}/caseteam/users", operation{summary: "Add or replace a user member", body: teamUser{},
		response: emptyObject(), header: "Case-Last-Modified", errors: []int{400, 404}})
	add("DELETE /cases/{caseId}/caseteam/users/{userId}", operation{summary: "Remove a user member",
		response: emptyObject(), header: "Case-Last-Modified", errors: []int{400, 404}})
	add("POST /cases/{caseId}/caseteam/tenant-roles", operation{summary: "Add or replace a tenant-role member", body: teamTenantRole{},
		response: emptyObject(), header: "Case-Last-Modified", errors: []int{400, 404}})
	add("DELETE /cases/{caseId}/caseteam/tenant-roles/{role}", operation{summary: "Remove a tenant-role member",
		response: emptyObject(), header: "Case-Last-Modified", errors: []int{400, 404}})
	add("POST /cases/{caseId}/caseteam/groups", operation{summary: "Add a consent group member or replace its mappings", body: teamGroup{},
		response: emptyObject(), header: "Case-Last-Modified", errors: []int{400, 404}})
	add("DELETE /cases/{caseId}/caseteam/groups/{groupId}", operation{summary: "Remove a consent group member",
		response: emptyObject(), header: "Case-Last-Modified", errors: []int{400, 404}})

	taskFilters := []param{tenantQuery(), query("identifiers", "name=value pairs, comma-separated"), query("caseName", ""),
		query("taskName", ""), query("taskState", "Unassigned, Assigned, Delegated, Completed, Terminated, Suspended"),
		query("assignee", ""), query("owner", ""), query("dueOn", "yyyy-MM-dd"), query("dueBefore", "yyyy-MM-dd"), query("dueAfter", "yyyy-MM-dd"),
		{name: "timeZone", in: "header", description: "time zone of the due date filters, e.g. Europe/Amsterdam", schema: str("")}}
	add("GET /tasks", operation{summary: "Tasks of the cases the caller is in", params: append(taskFilters, pagingParams()...),
		response: []taskJSON{}, errors: []int{400}})
	add("GET /tasks/user/count", operation{summary: "Claimed and unclaimed tasks of the caller", params: []param{tenantQuery()},
		response: obj(true, "claimed", schema{"type": "integer"}, "unclaimed", schema{"type": "integer"})})
	add("GET /tasks/case/{caseId}", operation{summary: "Tasks of a case, with mayPerform",
		params:   []param{query("includeSubCaseTasks", "true adds the tasks of its sub cases whose teams the caller is in")},
		response: []taskJSON{}, errors: []int{404}})
	add("GET /tasks/{taskId}", operation{summary: "One task", response: taskJSON{}, errors: []int{404}})
	taskCommand := func(summary string, body any) operation {
		return operation{summary: summary, body: body, status: http.StatusAccepted, response: emptyObject(),
			header: "Case-Last-Modified", errors: []int{400, 404}}
	}
	assignee := obj(false, "assignee", str("user id"))
	add("PUT /tasks/{taskId}/claim", taskCommand("Claim a task", nil))
	add("PUT /tasks/{taskId}/revoke", taskCommand("Revoke a task", nil))
	add("PUT /tasks/{taskId}/assign", taskCommand("Assign a task", assignee))
	add("PUT /tasks/{taskId}/delegate", taskCommand("Delegate a task", assignee))
	complete := taskCommand("Complete a task; claims it first when the caller is not the assignee", anyObject())
	complete.bodyNotReq = true
	add("POST /tasks/{taskId}/complete", complete)
	save := taskCommand("Save task output", anyObject())
	save.bodyNotReq = true
	add("PUT /tasks/{taskId}", save)
	add("POST /tasks/{taskId}", operation{summary: "Validate task output", body: anyObject(), bodyNotReq: true, status: http.StatusAccepted,
		response: anyObject(), description: "{} when valid; the validator's object otherwise, still 202.", errors: []int{400, 404}})

	add("GET /cases/{caseId}/discretionaryitems", operation{summary: "Discretionary items the caller may plan",
		response: obj(true, "caseInstanceId", str(""), "name", str(""), "discretionaryItems", arrayOf(obj(true,
			"name", str(""), "definitionId", str(""), "type", str(""), "parentName", str(""), "parentType", str(""), "parentId", str("")))),
		header: "Case-Last-Modified", errors: []int{404}})
	add("POST /cases/{caseId}/discretionaryitems/plan", operation{summary: "Plan a discretionary item",
		body:     obj(false, "name", str(""), "definitionId", str(""), "parentId", str(""), "planItemId", str("id of the new item; default a generated one")),
		response: obj(true, "planItemId", str(""), "planitemId", str("the same id, as the seed spelled it")),
		header:   "Case-Last-Modified", errors: []int{400, 404}})
	add("GET /debug/{modelId}", operation{summary: "Raw events of a case",
		params:   []param{intQuery("from", "first event number (the first is 1)"), intQuery("to", "last event number, included")},
		response: []eventJSON{}, errors: []int{404}})
	add("PATCH /debug/force-recovery/{caseId}", operation{summary: "Rebuild the read tables of a case from its recorded state (served only when configured)",
		response: str("Forced recovery of <caseId>"), respType: "text/plain",
		description: "Case team members only. Appends no event. 404 when CASEGRAPH_FORCE_RECOVERY is off.",
		errors:      []int{404, 500}})
	add("GET /identifiers", operation{summary: "Business identifiers of the caller's cases",
		params:   append([]param{tenantQuery(), query("name", "identifier name")}, pagingParams()...),
		response: arrayOf(obj(true, "caseInstanceId", str(""), "tenant", str(""), "name", str(""), "value", str("")))})
	add("GET /identifiers/names", operation{summary: "Names of the business identifiers", params: []param{tenantQuery()}, response: stringList()})
	accepted := func(summary string, errs ...int) operation {
		return operation{summary: summary, status: http.StatusAccepted, respType: "text/plain",
			response: str("The request has been accepted for processing, but the processing has not been completed."),
			errors:   errs}
	}
	add("PUT /storage/case/{caseId}/archive", accepted("Archive a case with its sub cases into the archive directory; case owners only", 400, 404))
	add("PUT /storage/case/{caseId}/restore", accepted("Restore an archived case; members of its archived team only", 400, 404))
	add("DELETE /storage/case/{caseId}", accepted("Delete a case with everything in it; case owners only", 400, 404))
	add("DELETE /storage/tenant/{tenant}", accepted("Delete a tenant with its users, definitions and cases; tenant owners only", 400, 404))
	for _, path := range []string{"/request/case/{type}", "/request/case"} {
		add("POST "+path, operation{summary: "Start a case anonymously, as the configured anonymous user (served only when configured)",
			public: true, body: obj(false, "inputs", anyObject(), "caseInstanceId", str("id of the new case; default a generated one"),
				"debug", schema{"type": "boolean"}),
			response: str(`{"caseInstanceId": "<id>"}`), respType: "text/plain", header: "Case-Last-Modified",
			description: "No token. The body of a 200 is a JSON text labelled text/plain, as the reference engine sends it. " +
				"404 for a type not configured; 500 `Your request bumped into an internal configuration issue and cannot be handled` " +
				"for whatever the configuration cannot serve; 503 with Retry-After when the caller's address is over its rate limit.",
			errors: []int{400, 404, 500, 503}})
	}
	return ops
}()
