package telemetry

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/casegraph/casegraph/service"
)

// outboxMetrics are the metrics of the background workers: the process
// call outbox and the timer runner's failures. The worker counts them as
// it goes, so none costs a query: the outbox's depth is not measured (a
// COUNT per scrape would grow with the backlog it measures), but whether
// it grows is the rate of calls stored less the rate of calls settled.
type outboxMetrics struct {
	callsStored   prometheus.Counter
	calls         *prometheus.CounterVec
	callDuration  *prometheus.HistogramVec
	callsInFlight prometheus.Gauge

	workerFailures *prometheus.CounterVec
	workerPaused   *prometheus.GaugeVec
}

// callBuckets span a local service (5 ms) to the default call time-out
// (30 s) and beyond.
var callBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// The label values the metrics start with, so that a rate over them is
// zero rather than absent before the first call.
var (
	callKinds    = []string{"http", "mail"}
	callOutcomes = []string{"ok", "failed", "retried", "dropped"}
	workers      = []string{"timers", "process_calls"}
)

func newOutboxMetrics(reg prometheus.Registerer) *outboxMetrics {
	o := &outboxMetrics{
		callsStored: prometheus.NewCounter(prometheus.CounterOpts{Name: "casegraph_process_calls_stored_total",
			Help: "Process calls committed to the outbox by commands of this process."}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "casegraph_process_calls_total",
			Help: "Process calls this process's outbox worker handled, by kind (http, mail) and outcome: ok or failed " +
				"(made, outcome recorded on the task), retried (made, outcome not recorded: made again when its lease " +
				"ends), dropped (not made: its task no longer waits for it)."}, []string{"kind", "outcome"}),
		callDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "casegraph_process_call_duration_seconds",
			Help: "Time to make a process call (the HTTP request or the mail), by kind.", Buckets: callBuckets}, []string{"kind"}),
		callsInFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "casegraph_process_calls_in_flight",
			Help: "Process calls this process is making or reporting now."}),
		workerFailures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "casegraph_worker_failures_total",
			Help: "Failed passes of a background worker (timers, process_calls), by reason: unavailable (the database " +
				"could not be reached) or error."}, []string{"worker", "reason"}),
		workerPaused: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "casegraph_worker_paused",
			Help: "1 while a background worker (timers, process_calls) waits out a database outage."}, []string{"worker"}),
	}
	for _, k := range callKinds {
		o.callDuration.WithLabelValues(k)
		for _, out := range callOutcomes {
			o.calls.WithLabelValues(k, out)
		}
	}
	for _, w := range workers {
		o.workerPaused.WithLabelValues(w)
		o.workerFailures.WithLabelValues(w, "unavailable")
		o.workerFailures.WithLabelValues(w, "error")
	}
	for _, c := range []prometheus.Collector{o.callsStored, o.calls, o.callDuration, o.callsInFlight, o.workerFailures, o.workerPaused} {
		reg.MustRegister(c)
	}
	return o
}

// The observer feeds them: it is the service's WorkerObserver too.
var _ service.WorkerObserver = observer{}

func (o observer) WorkerFailed(worker string, unavailable bool) {
	if o.m == nil {
		return
	}
	reason := "error"
	if unavailable {
		reason = "unavailable"
	}
	o.m.outbox.workerFailures.WithLabelValues(worker, reason).Inc()
}

func (o observer) WorkerPaused(worker string, paused bool) {
	if o.m == nil {
		return
	}
	v := 0.0
	if paused {
		v = 1
	}
	o.m.outbox.workerPaused.WithLabelValues(worker).Set(v)
}

func (o observer) ProcessCallsStored(n int) {
	if o.m != nil {
		o.m.outbox.callsStored.Add(float64(n))
	}
}

func (o observer) ProcessCallStarted(kind string) func(outcome string, took time.Duration) {
	if o.m == nil {
		return func(string, time.Duration) {}
	}
	m := o.m.outbox
	m.callsInFlight.Inc()
	return func(outcome string, took time.Duration) {
		m.callsInFlight.Dec()
		m.callDuration.WithLabelValues(kind).Observe(took.Seconds())
		m.calls.WithLabelValues(kind, outcome).Inc()
	}
}

func (o observer) ProcessCallDropped(kind string) {
	if o.m != nil {
		o.m.outbox.calls.WithLabelValues(kind, "dropped").Inc()
	}
}
