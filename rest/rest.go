// Package rest serves the reference engine's REST paths over package
// service, with its status codes, plain-text error bodies, JSON shapes and
// *-Last-Modified headers, so that the reference engine's clients work
// unchanged. Handlers are thin: they decode, call one service method, and
// encode; who may do what is decided in service.
package rest

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/service"
)

// Authenticator verifies the caller of a request.
type Authenticator interface {
	Authenticate(r *http.Request) (auth.Identity, error)
}

// API is the REST front door.
type API struct {
	svc    *service.Service
	authn  Authenticator
	logger *slog.Logger
	// patterns are the routes Register added, for the API description.
	patterns []string
	// anonymous limits the anonymous case starts per client address; nil
	// when anonymous start is off, and its routes are not served.
	anonymous *limiter
}

// New returns the REST API over svc.
func New(svc *service.Service, authn Authenticator, logger *slog.Logger) *API {
	return &API{svc: svc, authn: authn, logger: logger}
}

// Register adds the REST routes to mux.
func (a *API) Register(m *http.ServeMux) {
	mux := &recorder{mux: m, api: a}
	// Health and version answer at the root (the reference engine) and
	// under /platform (its guide); neither needs a token.
	for _, prefix := range []string{"", "/platform"} {
		mux.HandleFunc("GET "+prefix+"/status", a.status)
		mux.HandleFunc("GET "+prefix+"/health", a.health)
		mux.HandleFunc("GET "+prefix+"/version", a.version)
	}

	mux.Handle("POST /platform", a.authed(a.createTenant))
	mux.Handle("POST /platform/{$}", a.authed(a.createTenant))
	mux.Handle("PUT /platform/{tenant}/disable", a.authed(a.disableTenant))
	mux.Handle("PUT /platform/{tenant}/enable", a.authed(a.enableTenant))
	mux.Handle("GET /platform/user", a.authed(a.platformUser))

	mux.Handle("GET /tenant/{tenant}/owners", a.authed(a.tenantOwners))
	mux.Handle("GET /tenant/{tenant}/users", a.authed(a.tenantUsers))
	mux.Handle("GET /tenant/{tenant}/users/{userId}", a.authed(a.tenantUser))
	mux.Handle("GET /tenant/{tenant}/disabled-accounts", a.authed(a.disabledAccounts))
	mux.Handle("POST /tenant/{tenant}/users", a.authed(a.setTenantUser))
	mux.Handle("PUT /tenant/{tenant}/users", a.authed(a.setTenantUser))
	mux.Handle("DELETE /tenant/{tenant}/users/{userId}", a.authed(a.removeTenantUser))
	mux.Handle("POST /tenant/{tenant}", a.authed(a.replaceTenant))
	mux.Handle("PUT /tenant/{tenant}", a.authed(a.replaceTenant))
	mux.Handle("POST /tenant/{tenant}/consent-groups", a.authed(a.createConsentGroup))

	mux.Handle("GET /consent-group/{groupId}", a.authed(a.getConsentGroup))
	mux.Handle("POST /consent-group/{groupId}", a.authed(a.replaceConsentGroup))
	mux.Handle("GET /consent-group/{groupId}/members/{userId}", a.authed(a.getConsentGroupMember))
	mux.Handle("POST /consent-group/{groupId}/members", a.authed(a.setConsentGroupMember))
	mux.Handle("DELETE /consent-group/{groupId}/members/{userId}", a.authed(a.removeConsentGroupMember))

	mux.Handle("GET /repository/list", a.authed(a.listDefinitions))
	mux.Handle("GET /repository/load/{fileName...}", a.authed(a.loadDefinition))
	mux.HandleFunc("POST /repository/validate", a.validateDefinition)
	mux.Handle("POST /repository/deploy/{fileName...}", a.authed(a.deployDefinition))

	mux.Handle("POST /cases", a.authed(a.startCase))
	mux.Handle("POST /cases/{$}", a.authed(a.startCase))
	mux.Handle("GET /cases", a.authed(a.listCases))
	mux.Handle("GET /cases/{$}", a.authed(a.listCases))
	mux.Handle("GET /cases/{caseId}", a.authed(a.getCase))
	mux.Handle("GET /cases/{caseId}/definition", a.authed(a.caseDefinition))
	mux.Handle("PUT /cases/{caseId}/debug/{mode}", a.authed(a.setDebug))
	mux.Handle("POST /cases/{caseId}/migrate-definition", a.authed(a.migrateDefinition))
	mux.Handle("GET /cases/{caseId}/planitems", a.authed(a.planItems))
	mux.Handle("GET /cases/{caseId}/planitems/{planItemId}", a.authed(a.planItem))
	mux.Handle("POST /cases/{caseId}/planitems/{planItem}/{transition}", a.authed(a.makeTransition))
	mux.Handle("GET /cases/{caseId}/casefile", a.authed(a.caseFile))
	for _, op := range caseFileOps {
		h := a.authed(a.changeCaseFile(op.op))
		mux.Handle(op.method+" /cases/{caseId}/casefile/"+op.name, h)
		mux.Handle(op.method+" /cases/{caseId}/casefile/"+op.name+"/{path...}", h)
	}
	mux.Handle("GET /cases/{caseId}/history/events", a.authed(a.caseHistoryEvents))
	mux.Handle("GET /cases/{caseId}/history/planitems", a.authed(a.planItemsHistory))
	mux.Handle("GET /cases/{caseId}/history/planitems/{planItemId}", a.authed(a.planItemHistory))
	mux.Handle("GET /cases/{caseId}/documentation/planitems/{planItemId}", a.authed(a.planItemDocumentation))
	mux.Handle("GET /cases/{caseId}/documentation/casefile", a.authed(a.caseFileDocumentation))
	mux.Handle("GET /cases/{caseId}/caseteam", a.authed(a.getCaseTeam))
	mux.Handle("POST /cases/{caseId}/caseteam", a.authed(a.setCaseTeam))
	mux.Handle("PUT /cases/{caseId}/caseteam", a.authed(a.upsertCaseTeam))
	mux.Handle("DELETE /cases/{caseId}/caseteam/{memberId}", a.authed(a.removeTeamMember("", "memberId")))
	mux.Handle("POST /cases/{caseId}/caseteam/users", a.authed(a.setTeamUser))
	mux.Handle("DELETE /cases/{caseId}/caseteam/users/{userId}", a.authed(a.removeTeamMember(service.UserMember, "userId")))
	mux.Handle("POST /cases/{caseId}/caseteam/tenant-roles", a.authed(a.setTeamTenantRole))
	mux.Handle("DELETE /cases/{caseId}/caseteam/tenant-roles/{role}", a.authed(a.removeTeamMember(service.RoleMember, "role")))
	mux.Handle("POST /cases/{caseId}/caseteam/groups", a.authed(a.setTeamGroup))
	mux.Handle("DELETE /cases/{caseId}/caseteam/groups/{groupId}", a.authed(a.removeTeamMember(service.GroupTeamMember, "groupId")))
	mux.Handle("GET /tasks", a.authed(a.listTasks))
	mux.Handle("GET /tasks/{$}", a.authed(a.listTasks))
	mux.Handle("GET /tasks/user/count", a.authed(a.countTasks))
	mux.Handle("GET /tasks/case/{caseId}", a.authed(a.caseTasks))
	mux.Handle("GET /tasks/{taskId}", a.authed(a.getTask))
	mux.Handle("PUT /tasks/{taskId}/claim", a.authed(a.taskAction(a.claimTask)))
	mux.Handle("PUT /tasks/{taskId}/revoke", a.authed(a.taskAction(a.revokeTask)))
	mux.Handle("PUT /tasks/{taskId}/assign", a.authed(a.taskAction(a.assignTask)))
	mux.Handle("PUT /tasks/{taskId}/delegate", a.authed(a.taskAction(a.delegateTask)))
	mux.Handle("POST /tasks/{taskId}/complete", a.authed(a.taskAction(a.completeTask)))
	mux.Handle("PUT /tasks/{taskId}", a.authed(a.taskAction(a.saveTask)))
	mux.Handle("POST /tasks/{taskId}", a.authed(a.validateTask))
	mux.Handle("GET /cases/{caseId}/discretionaryitems", a.authed(a.discretionaryItems))
	mux.Handle("POST /cases/{caseId}/discretionaryitems/plan", a.authed(a.planDiscretionaryItem))
	mux.Handle("GET /debug/{modelId}", a.authed(a.debugEvents))
	mux.Handle("PATCH /debug/force-recovery/{caseId}", a.authed(a.forceRecovery))
	mux.Handle("GET /identifiers", a.authed(a.identifiers))
	mux.Handle("GET /identifiers/names", a.authed(a.identifierNames))
	mux.HandleFunc("GET /api-docs/swagger.json", a.swagger)
	mux.HandleFunc("GET /api-docs", a.apiDocs)
	mux.HandleFunc("GET /api-docs/redoc.standalone.js", a.apiDocsScript)
	a.registerStorage(mux)
	a.registerAnonymous(mux)
}

// authedHandler is a handler that runs for a verified caller.
type authedHandler func(w http.ResponseWriter, r *http.Request, who auth.Identity)

// authed verifies the caller's token before h runs.
func (a *API) authed(h authedHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who, err := a.authn.Authenticate(r)
		if err != nil {
			a.writeAuthError(w, r, err)
			return
		}
		h(w, withSemicolons(r.WithContext(auth.NewContext(r.Context(), who))), who)
	})
}

// withSemicolons keeps a ';' in the query as part of its value: the
// reference engine's clients separate several values of one filter with it
// (taskState=Assigned;Unassigned), and net/url drops a pair holding a raw
// ';' altogether. r is the request's own copy from WithContext.
func withSemicolons(r *http.Request) *http.Request {
	if strings.Contains(r.URL.RawQuery, ";") {
		u := *r.URL
		u.RawQuery = strings.ReplaceAll(u.RawQuery, ";", "%3B")
		r.URL = &u
	}
	return r
}
