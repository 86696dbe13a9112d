package rest

import (
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/service"
)

// EnableAnonymous serves the reference engine's anonymous case start,
// POST /request/case/{type}, rate-limited per client address, when the
// service has it configured. Call it before Register.
func (a *API) EnableAnonymous(limit RateLimit) *API {
	a.anonymous = newLimiter(limit)
	return a
}

// msgAnonymousConfig is the reference engine's text for every anonymous
// request its configuration cannot serve.
const msgAnonymousConfig = "Your request bumped into an internal configuration issue and cannot be handled"

// msgTooManyRequests answers a client address over its rate limit.
const msgTooManyRequests = "Too many requests from your address; try again later"

func (a *API) registerAnonymous(mux *recorder) {
	if a.anonymous == nil {
		return
	}
	mux.HandleFunc("POST /request/case/{type}", a.startAnonymousCase)
	// The reference serves a definition configured with url "" at
	// /request/case itself.
	mux.HandleFunc("POST /request/case", a.startAnonymousCase)
}

// startAnonymousCase starts a case of the path's request type without a
// token. It answers as the reference engine does: 200 with the new case id
// as a hand-built JSON text (labelled text/plain), 404 for an unknown type,
// 500 with one fixed text for whatever the configuration cannot serve, the
// cause logged. The caller's own mistakes (a malformed body, a bad or
// taken case id, inputs the definition refuses) are 400 as on POST /cases.
func (a *API) startAnonymousCase(w http.ResponseWriter, r *http.Request) {
	if ok, wait := a.anonymous.allow(auth.ClientAddr(r)); !ok {
		// 503 with Retry-After rather than 429: the reference engine's
		// clients know 503 (overload, identity provider down) and it never
		// answers 429.
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		writeText(w, http.StatusServiceUnavailable, msgTooManyRequests)
		return
	}
	var body struct {
		Inputs         map[string]any `json:"inputs"`
		CaseInstanceID string         `json:"caseInstanceId"`
		Debug          bool           `json:"debug"`
	}
	if err := decodeJSON(r, &body); err != nil {
		a.writeError(w, r, err)
		return
	}
	started, err := a.svc.StartAnonymousCase(r.Context(), r.PathValue("type"), service.AnonymousStartInput{
		Inputs: body.Inputs, CaseInstanceID: body.CaseInstanceID, Debug: body.Debug,
		CorrelationID: strings.TrimSpace(r.Header.Get("CorrelationId"))})
	if err != nil {
		if service.KindOf(err) == service.Internal {
			a.logger.ErrorContext(r.Context(), "anonymous request failed", "type", r.PathValue("type"), "err", err)
			writeText(w, http.StatusInternalServerError, msgAnonymousConfig)
			return
		}
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("Case-Last-Modified", started.LastModified.String())
	writeText(w, http.StatusOK, `{"caseInstanceId": "`+started.ID+`"}`)
}
