package server

import (
	"net/http"
	"net/http/pprof"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/casegraph/casegraph/telemetry"
)

// adminRoutes is the admin listener's handler (CASEGRAPH_ADMIN_ADDR):
// liveness, readiness, metrics and profiles. It is never on the main
// listener: profiles show the server's internals and cost CPU, so only an
// address operators reach should serve them.
func (s *Server) adminRoutes() http.Handler {
	mux := http.NewServeMux()
	// The process answers: nothing more is asked, so a slow database never
	// gets a live replica restarted.
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, _ *http.Request) {
		writeText(w, http.StatusOK, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := s.svc.Readiness(r.Context()); err != nil {
			s.logger.WarnContext(r.Context(), "not ready", "err", err)
			writeText(w, http.StatusServiceUnavailable, "not ready: "+err.Error())
			return
		}
		writeText(w, http.StatusOK, "ready")
	})
	if s.metrics != nil {
		mux.Handle("GET /metrics", s.metrics.Handler())
	}
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("POST /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	return mux
}

// traced wraps h in a span per request when tracing is on, continuing
// the trace of an incoming W3C traceparent header. The middleware names
// the span after the route once the mux has matched one.
func (s *Server) traced(h http.Handler) http.Handler {
	if s.cfg.TracerProvider == nil {
		return h
	}
	return otelhttp.NewHandler(h, "http.request", otelhttp.WithTracerProvider(s.cfg.TracerProvider),
		otelhttp.WithPropagators(telemetry.Propagator))
}

// nameSpan names the request's span after the route pattern the mux
// matched ("GET /cases/{caseId}"), never after the raw path.
func nameSpan(span trace.Span, pattern string) {
	if !span.IsRecording() || pattern == "" {
		return
	}
	span.SetName(pattern)
	span.SetAttributes(attribute.String("http.route", telemetry.Route(pattern)))
}
