// Package telemetry makes CaseGraph observable: Prometheus metrics in a
// private registry, OpenTelemetry traces configured by the standard OTEL_*
// environment variables, and the gqlgen extensions and service observer
// that feed both. The service layer sees only its own service.Observer;
// nothing here decides anything about a request.
package telemetry

import (
	"database/sql"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds CaseGraph's Prometheus metrics in a registry of its own:
// several servers in one process (tests) must not collide in the global
// one. The zero value is not usable; call NewMetrics.
type Metrics struct {
	reg *prometheus.Registry

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	httpInFlight prometheus.Gauge

	gqlOperations *prometheus.CounterVec
	gqlDuration   *prometheus.HistogramVec
	gqlErrors     *prometheus.CounterVec
	gqlNames      *boundedNames

	commands        *prometheus.CounterVec
	commandDuration *prometheus.HistogramVec
	commandRetries  *prometheus.CounterVec

	timerFirings prometheus.Counter
	timerLag     prometheus.Histogram

	live      *liveCollector
	liveDelay prometheus.Histogram

	outbox *outboxMetrics // telemetry/outbox.go
}

// latencyBuckets span a cached read (a millisecond) to a request at its
// deadline (30 s).
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// NewMetrics registers every CaseGraph metric, and the Go runtime and
// process collectors, in a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), gqlNames: newBoundedNames(maxOperationNames)}
	f := func(c prometheus.Collector) { m.reg.MustRegister(c) }
	f(collectors.NewGoCollector())
	f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	m.httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "casegraph_http_requests_total",
		Help: "HTTP requests answered, by route pattern, method and status."}, []string{"route", "method", "status"})
	m.httpDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "casegraph_http_request_duration_seconds",
		Help: "Time to answer an HTTP request, by route pattern and method.", Buckets: latencyBuckets}, []string{"route", "method"})
	m.httpInFlight = prometheus.NewGauge(prometheus.GaugeOpts{Name: "casegraph_http_requests_in_flight",
		Help: "HTTP requests being served now."})
	m.gqlOperations = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "casegraph_graphql_operations_total",
		Help: "GraphQL operations executed, by operation name and outcome (ok or error)."}, []string{"operation", "outcome"})
	m.gqlDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "casegraph_graphql_operation_duration_seconds",
		Help: "Time to execute a GraphQL operation, by operation name.", Buckets: latencyBuckets}, []string{"operation"})
	m.gqlErrors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "casegraph_graphql_errors_total",
		Help: "Errors in GraphQL responses, by operation name and extensions.code."}, []string{"operation", "code"})
	m.commands = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "casegraph_commands_total",
		Help: "Commands run, by kind and outcome (ok or the error kind)."}, []string{"kind", "outcome"})
	m.commandDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "casegraph_command_duration_seconds",
		Help: "Time to run a command, retries included, by kind.", Buckets: latencyBuckets}, []string{"kind"})
	m.commandRetries = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "casegraph_command_retries_total",
		Help: "Commands run again after losing a version race (serialization conflict), by kind."}, []string{"kind"})
	m.timerFirings = prometheus.NewCounter(prometheus.CounterOpts{Name: "casegraph_timer_firings_total",
		Help: "Timers fired by this process."})
	m.timerLag = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "casegraph_timer_lag_seconds",
		Help: "How late a timer fired after its due moment.", Buckets: []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}})
	m.live = newLiveCollector()
	m.liveDelay = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "casegraph_live_delay_seconds",
		Help:    "Time from this process hearing a change to its event handed to a live connection (the subscriber's reads included).",
		Buckets: liveDelayBuckets})
	for _, c := range []prometheus.Collector{m.httpRequests, m.httpDuration, m.httpInFlight, m.gqlOperations, m.gqlDuration,
		m.gqlErrors, m.commands, m.commandDuration, m.commandRetries, m.timerFirings, m.timerLag, m.live, m.liveDelay} {
		f(c)
	}
	m.outbox = newOutboxMetrics(m.reg)
	return m
}

// AddDB exports the statistics of a database pool (open, idle and in-use
// connections, waits for a free one) as go_sql_* with db_name=name.
func (m *Metrics) AddDB(pool *sql.DB, name string) {
	m.reg.MustRegister(collectors.NewDBStatsCollector(pool, name))
}

// AddSnapshotCache exports the figures of the process's cache of case
// states (db.CachedSnapshots) read by stats: reads that started from a
// kept state, reads that decoded their snapshot, and the bytes kept.
func (m *Metrics) AddSnapshotCache(stats func() (hits, misses int64, bytes int)) {
	m.reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "casegraph_case_cache_hits_total",
			Help: "Case reads that started from the state this process wrote instead of decoding the snapshot."},
			func() float64 { h, _, _ := stats(); return float64(h) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "casegraph_case_cache_misses_total",
			Help: "Case reads that decoded the case's snapshot."},
			func() float64 { _, miss, _ := stats(); return float64(miss) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "casegraph_case_cache_bytes",
			Help: "Bytes of case snapshots whose decoded states the process keeps."},
			func() float64 { _, _, b := stats(); return float64(b) }))
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, MaxRequestsInFlight: 4})
}

// Registry is the registry the metrics live in.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// RequestStarted counts a request in flight; done records it once answered,
// with the route pattern the mux matched ("" when none did).
func (m *Metrics) RequestStarted() (done func(pattern, method string, status int, d time.Duration)) {
	m.httpInFlight.Inc()
	return func(pattern, method string, status int, d time.Duration) {
		m.httpInFlight.Dec()
		route, method := Route(pattern), methodLabel(method)
		m.httpRequests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
		m.httpDuration.WithLabelValues(route, method).Observe(d.Seconds())
	}
}

// Route is the route label of a ServeMux pattern: its path part ("GET
// /cases/{caseId}" is "/cases/{caseId}"), or "unmatched" for a request
// answered before routing (refused by the middleware).
func Route(pattern string) string {
	if pattern == "" {
		return "unmatched"
	}
	if i := strings.IndexByte(pattern, ' '); i >= 0 {
		pattern = strings.TrimLeft(pattern[i+1:], " ")
	}
	return pattern
}

// methodLabel keeps the method label to the methods HTTP defines: any
// other string a client sends is "other".
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// command records a finished command.
func (m *Metrics) command(kind, outcome string, d time.Duration, retries int) {
	m.commands.WithLabelValues(kind, outcome).Inc()
	m.commandDuration.WithLabelValues(kind).Observe(d.Seconds())
	if retries > 0 {
		m.commandRetries.WithLabelValues(kind).Add(float64(retries))
	}
}

// timerFired records a timer firing lag after its due moment.
func (m *Metrics) timerFired(lag time.Duration) {
	m.timerFirings.Inc()
	m.timerLag.Observe(max(lag, 0).Seconds())
}

// maxOperationNames bounds the GraphQL operation names that become label
// values: clients choose the names, so past this many every new name is
// "other".
const maxOperationNames = 100

// boundedNames admits the first max well-formed names it sees.
type boundedNames struct {
	mu   sync.RWMutex
	max  int
	seen map[string]bool
}

func newBoundedNames(max int) *boundedNames {
	return &boundedNames{max: max, seen: make(map[string]bool)}
}

// label is the label value for an operation name: "anonymous" for none,
// "other" for a name that is malformed or came after the set was full.
func (b *boundedNames) label(name string) string {
	if name == "" {
		return "anonymous"
	}
	if !graphQLName(name) {
		return "other"
	}
	b.mu.RLock()
	ok := b.seen[name]
	b.mu.RUnlock()
	if ok {
		return name
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seen[name] {
		return name
	}
	if len(b.seen) >= b.max {
		return "other"
	}
	b.seen[name] = true
	return name
}

// graphQLName reports whether s is a GraphQL name of at most 64 bytes.
func graphQLName(s string) bool {
	if len(s) > 64 {
		return false
	}
	for i, c := range s {
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// errorCode keeps an extensions.code label to the shape of the codes the
// server sends (UPPER_SNAKE): anything else is "OTHER".
func errorCode(v any) string {
	s, _ := v.(string)
	if s == "" {
		return "NONE"
	}
	if len(s) > 40 {
		return "OTHER"
	}
	for _, c := range s {
		if c != '_' && (c < 'A' || c > 'Z') {
			return "OTHER"
		}
	}
	return s
}
