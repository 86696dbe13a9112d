package telemetry

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/extra/bunotel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// instrumentation names CaseGraph's own tracer.
const instrumentation = "github.com/casegraph/casegraph"

// Propagator is how trace context crosses HTTP: the W3C traceparent and
// tracestate headers.
var Propagator propagation.TextMapPropagator = propagation.TraceContext{}

// TracingEnabled reports whether the standard OTEL_* variables ask for
// traces: an OTLP endpoint is set, or OTEL_TRACES_EXPORTER names an
// exporter, and the SDK is not disabled.
func TracingEnabled() bool {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") {
		return false
	}
	if e := strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER")); e != "" {
		return e != "none"
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// TracerProviderFromEnv builds the tracer provider the OTEL_* variables
// describe, or returns nil when they ask for no traces. The exporter is
// OTLP over HTTP (protobuf) or gRPC as OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
// or OTEL_EXPORTER_OTLP_PROTOCOL say; the exporters themselves read the
// endpoint, headers, timeout and TLS variables, and the SDK reads
// OTEL_TRACES_SAMPLER, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. The
// caller must Shutdown the provider to flush the last spans.
func TracerProviderFromEnv(ctx context.Context, version string) (*sdktrace.TracerProvider, error) {
	if !TracingEnabled() {
		return nil, nil
	}
	if e := strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER")); e != "" && e != "otlp" {
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%s is not supported: use otlp, or none to turn tracing off", e)
	}
	protocol := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	var (
		exp sdktrace.SpanExporter
		err error
	)
	switch protocol {
	case "", "http/protobuf":
		exp, err = otlptracehttp.New(ctx)
	case "grpc":
		exp, err = otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%s is not supported: use http/protobuf or grpc", protocol)
	}
	if err != nil {
		return nil, fmt.Errorf("tracing: OTLP exporter: %w", err)
	}
	// The environment's service name and attributes win over ours.
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "casegraph"), attribute.String("service.version", version)),
		resource.WithTelemetrySDK(), resource.WithHost(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("tracing: resource: %w", err)
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}

// SQLHook is a bun query hook that gives each SQL statement a span, as a
// child of the span already in its context (a request, a command). A
// statement with no span around it (the timer runner polling, migrations)
// gets none, so that idle polling does not flood the collector with root
// spans. Statements are recorded without their arguments.
func SQLHook(tp trace.TracerProvider, dbName string) bun.QueryHook {
	return sqlHook{inner: bunotel.NewQueryHook(bunotel.WithTracerProvider(tp), bunotel.WithDBName(dbName))}
}

type sqlHook struct{ inner *bunotel.QueryHook }

// spanKey stashes a statement's span in its bun.QueryEvent.
type spanKey struct{}

// BeforeQuery starts the statement's span but hands the caller's context
// back unchanged: bun keeps the context BEGIN returns for the whole
// transaction, which would hang every statement of a command under the
// BEGIN span instead of under the command.
func (h sqlHook) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	span := trace.SpanFromContext(h.inner.BeforeQuery(ctx, e))
	if e.Stash == nil {
		e.Stash = make(map[any]any, 1)
	}
	e.Stash[spanKey{}] = span
	return ctx
}

func (h sqlHook) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	span, ok := e.Stash[spanKey{}].(trace.Span)
	if !ok {
		return
	}
	h.inner.AfterQuery(trace.ContextWithSpan(ctx, span), e)
}
