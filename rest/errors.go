package rest

import (
	"net/http"

	"github.com/casegraph/casegraph/service"
)

// statusOf maps each kind of service error to the reference engine's
// status: it answers 401 for "not allowed" as for "not authenticated", 404
// for what is hidden, 400 for bad input and bad state, 304 for a command
// that changed nothing, and never 403 or 409. Every kind has a status
// (TestStatusOfEveryKind): a kind missing here would write status 0.
var statusOf = map[service.Kind]int{
	service.Unauthenticated: http.StatusUnauthorized,
	service.NotAllowed:      http.StatusUnauthorized,
	service.NotFound:        http.StatusNotFound,
	service.Invalid:         http.StatusBadRequest,
	service.InvalidState:    http.StatusBadRequest,
	service.Conflict:        http.StatusServiceUnavailable,
	service.Unavailable:     http.StatusServiceUnavailable,
	service.Internal:        http.StatusInternalServerError,
	service.NotModified:     http.StatusNotModified,
}

// writeError answers err as plain text, the reference engine's error body.
// Only internal errors are logged; their cause never reaches the client.
func (a *API) writeError(w http.ResponseWriter, r *http.Request, err error) {
	kind := service.KindOf(err)
	if kind == service.Internal {
		a.logger.ErrorContext(r.Context(), "request failed", "err", err)
	}
	if statusOf[kind] == http.StatusNotModified {
		w.WriteHeader(http.StatusNotModified) // a 304 has no body
		return
	}
	if statusOf[kind] == http.StatusServiceUnavailable {
		// The database or a race will likely be over by then; clients and
		// proxies that honour it retry instead of giving up.
		w.Header().Set("Retry-After", retryAfter)
	}
	writeText(w, statusOf[kind], service.Message(err))
}

// retryAfter is the Retry-After of every 503, in seconds.
const retryAfter = "5"

// writeAuthError answers a failed authentication as service classifies
// it: 401 with the token's problem, 503 when the identity provider could
// not be reached.
func (a *API) writeAuthError(w http.ResponseWriter, r *http.Request, err error) {
	a.writeError(w, r, a.svc.AuthFailure(r.Context(), err))
}

func writeText(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg))
}
