package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/casegraph/casegraph/service"
)

// NewObserver is the service.Observer that feeds m and traces commands
// with tp; either may be nil. It returns nil when both are, so the service
// pays nothing when neither is on.
func NewObserver(m *Metrics, tp trace.TracerProvider) service.Observer {
	if m == nil && tp == nil {
		return nil
	}
	o := observer{m: m}
	if tp != nil {
		o.tracer = tp.Tracer(instrumentation)
	}
	return o
}

type observer struct {
	m      *Metrics
	tracer trace.Tracer
}

func (o observer) CommandStarted(ctx context.Context, kind string) (context.Context, func(service.CommandDone)) {
	var span trace.Span
	if o.tracer != nil {
		ctx, span = o.tracer.Start(ctx, "command "+kind, trace.WithAttributes(attribute.String("casegraph.command", kind)))
	}
	return ctx, func(d service.CommandDone) {
		if o.m != nil {
			o.m.command(kind, d.Outcome, d.Duration, d.Retries)
		}
		if span == nil {
			return
		}
		span.SetAttributes(attribute.String("casegraph.outcome", d.Outcome), attribute.Int("casegraph.retries", d.Retries))
		// A caller's mistake (not found, invalid, not allowed) is the
		// command answering as it should; only a failure of the server
		// marks the span.
		switch service.KindOf(d.Err) {
		case service.Internal, service.Unavailable, service.Conflict:
			if d.Err != nil {
				span.RecordError(d.Err)
				span.SetStatus(codes.Error, d.Outcome)
			}
		}
		span.End()
	}
}

func (o observer) LiveEventSent(delay time.Duration) {
	if o.m != nil {
		o.m.liveEventSent(delay.Seconds())
	}
}

func (o observer) TimerFired(due, firedAt time.Time) {
	if o.m != nil {
		o.m.timerFired(firedAt.Sub(due))
	}
}
