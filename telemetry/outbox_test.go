package telemetry

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/casegraph/casegraph/service"
)

// TestOutboxMetrics: the observer the server installs counts the outbox's
// calls by kind and outcome, times them, tracks the ones in flight and the
// workers' failures and pauses.
func TestOutboxMetrics(t *testing.T) {
	m := NewMetrics()
	w, ok := NewObserver(m, nil).(service.WorkerObserver)
	if !ok {
		t.Fatal("the observer is no service.WorkerObserver: the service would feed no outbox metric")
	}
	o := m.outbox
	w.ProcessCallsStored(3)
	done := w.ProcessCallStarted("http")
	if got := value(t, o.callsInFlight); got != 1 {
		t.Fatalf("in flight during a call = %v", got)
	}
	done("ok", 250*time.Millisecond)
	w.ProcessCallStarted("mail")("retried", time.Second)
	w.ProcessCallDropped("http")
	w.WorkerFailed("timers", true)
	w.WorkerFailed("timers", true)
	w.WorkerFailed("process_calls", false)
	w.WorkerPaused("timers", true)
	for name, c := range map[string]struct{ got, want float64 }{
		"stored":               {value(t, o.callsStored), 3},
		"http ok":              {value(t, o.calls.WithLabelValues("http", "ok")), 1},
		"mail retried":         {value(t, o.calls.WithLabelValues("mail", "retried")), 1},
		"http dropped":         {value(t, o.calls.WithLabelValues("http", "dropped")), 1},
		"http failed":          {value(t, o.calls.WithLabelValues("http", "failed")), 0},
		"in flight":            {value(t, o.callsInFlight), 0},
		"timers unavailable":   {value(t, o.workerFailures.WithLabelValues("timers", "unavailable")), 2},
		"process_calls error":  {value(t, o.workerFailures.WithLabelValues("process_calls", "error")), 1},
		"timers paused":        {value(t, o.workerPaused.WithLabelValues("timers")), 1},
		"process_calls paused": {value(t, o.workerPaused.WithLabelValues("process_calls")), 0},
		"call time samples":    {samples(t, o.callDuration.WithLabelValues("http")) + samples(t, o.callDuration.WithLabelValues("mail")), 2},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", name, c.got, c.want)
		}
	}
	w.WorkerPaused("timers", false)
	if got := value(t, o.workerPaused.WithLabelValues("timers")); got != 0 {
		t.Errorf("timers paused after resuming = %v", got)
	}
	// Tracing alone: the outbox events cost nothing and do not panic.
	var quiet observer
	quiet.ProcessCallStarted("http")("ok", time.Millisecond)
	quiet.WorkerFailed("timers", false)
}

// value reads a counter or gauge.
func value(t *testing.T, c prometheus.Metric) float64 {
	t.Helper()
	var out dto.Metric
	if err := c.Write(&out); err != nil {
		t.Fatal(err)
	}
	if out.Counter != nil {
		return out.Counter.GetValue()
	}
	return out.Gauge.GetValue()
}

// samples is how many observations a histogram holds.
func samples(t *testing.T, o prometheus.Observer) float64 {
	t.Helper()
	var out dto.Metric
	if err := o.(prometheus.Metric).Write(&out); err != nil {
		t.Fatal(err)
	}
	return float64(out.Histogram.GetSampleCount())
}
