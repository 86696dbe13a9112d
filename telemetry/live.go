package telemetry

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/casegraph/casegraph/service"
)

// liveDelayBuckets span an event read and sent within half a millisecond
// of its change being heard to one that waited seconds behind a queue.
var liveDelayBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}

// liveCollector exports the service's live-update figures as they are at
// each scrape: the service counts them itself (Service.LiveStats), so a
// subscription costs no label lookups.
type liveCollector struct {
	stats atomic.Pointer[func() service.LiveStats]

	connections, subscriptions, changes, skipped, audienceReads, audienceAll, events, dropped, slow, resyncs, notifyFailures *prometheus.Desc
}

func newLiveCollector() *liveCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	return &liveCollector{
		connections:   d("casegraph_live_connections", "Open live (WebSocket) connections."),
		subscriptions: d("casegraph_live_subscriptions", "Running live subscriptions, by kind (task: taskChanged, case: caseChanged).", "kind"),
		changes:       d("casegraph_live_changes_total", "Committed changes this process heard (from any replica)."),
		skipped: d("casegraph_live_changes_skipped_total",
			"Changes a subscription skipped without reading, its user not reachable by the case's team."),
		audienceReads: d("casegraph_live_audience_reads_total", "Reads of who a change may concern (at most one per change)."),
		audienceAll: d("casegraph_live_audience_fallbacks_total",
			"Changes every subscription read because who they concern could not be read or was too many."),
		events:  d("casegraph_live_events_total", "Events handed to live connections."),
		dropped: d("casegraph_live_events_dropped_total", "Changes thrown away with the queues of subscriptions dropped for falling behind."),
		slow:    d("casegraph_live_slow_subscribers_total", "Subscriptions dropped (their connection closed with 4008) for falling behind."),
		resyncs: d("casegraph_live_resyncs_total",
			"Times every subscription read again what it may have missed: the PostgreSQL listening connection was opened again, or changes could not be notified."),
		notifyFailures: d("casegraph_live_notify_failures_total",
			"Notifications of committed changes this process could not send to the replicas (each followed by a resync)."),
	}
}

func (c *liveCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.connections, c.subscriptions, c.changes, c.skipped, c.audienceReads, c.audienceAll,
		c.events, c.dropped, c.slow, c.resyncs, c.notifyFailures} {
		ch <- d
	}
}

func (c *liveCollector) Collect(ch chan<- prometheus.Metric) {
	var s service.LiveStats
	if f := c.stats.Load(); f != nil {
		s = (*f)()
	}
	gauge := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
	}
	counter := func(d *prometheus.Desc, v uint64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v))
	}
	gauge(c.connections, s.Connections)
	gauge(c.subscriptions, s.TaskSubscriptions, "task")
	gauge(c.subscriptions, s.CaseSubscriptions, "case")
	counter(c.changes, s.Changes)
	counter(c.skipped, s.Skipped)
	counter(c.audienceReads, s.AudienceReads)
	counter(c.audienceAll, s.AudienceAll)
	counter(c.events, s.Events)
	counter(c.dropped, s.Dropped)
	counter(c.slow, s.SlowDropped)
	counter(c.resyncs, s.Resyncs)
	counter(c.notifyFailures, s.NotifyFailures)
}

// SetLive makes the live-update metrics report stats (Service.LiveStats);
// until then they are zero.
func (m *Metrics) SetLive(stats func() service.LiveStats) {
	m.live.stats.Store(&stats)
}

// liveEventSent records the delay of one live event.
func (m *Metrics) liveEventSent(delay float64) {
	m.liveDelay.Observe(delay)
}
