package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/graph/client"
)

// TestTraceFromDoorToSQL: a GraphQL mutation sent with a W3C traceparent
// makes one trace under the caller's span: the HTTP span, the operation,
// its root field, the command and the command's SQL, each the child of
// the one before.
func TestTraceFromDoorToSQL(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		spans := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
		t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
		env = servertest.Start(t, env.Flavor, func(c *server.Config) { c.TracerProvider = tp })
		setupMinimal(t, env)
		spans.Reset()

		const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
		hc := &headerClient{header: map[string][]string{"Traceparent": {"00-" + traceID + "-" + parentID + "-01"}}, token: env.Issuer.Token("alice")}
		if _, err := client.StartCase(context.Background(), hc.client(env.URL), client.StartCaseInput{Definition: "minimal", Tenant: ptr("acme")}); err != nil {
			t.Fatal(err)
		}
		if got := hc.last.Get("X-Request-Id"); got != traceID {
			t.Errorf("X-Request-Id = %q, want the trace id", got)
		}
		if got := hc.last.Get("X-Trace-Id"); got != traceID {
			t.Errorf("X-Trace-Id = %q, want the trace id", got)
		}

		// The HTTP span ends after the answer is written.
		var httpSpan tracetest.SpanStub
		// The HTTP span ends after the answer is written, so it may
		// reach the exporter after the client has read it.
		dbtest.Until(t, 5*time.Second, "the HTTP span is exported", func() (bool, error) {
			for _, s := range spans.GetSpans() {
				if s.SpanKind == trace.SpanKindServer {
					httpSpan = s
				}
			}
			return httpSpan.Name != "", nil
		})
		all := spans.GetSpans()
		byName := map[string][]tracetest.SpanStub{}
		for _, s := range all {
			if s.SpanContext.TraceID().String() != traceID {
				t.Errorf("span %q is in trace %s, not the caller's", s.Name, s.SpanContext.TraceID())
			}
			byName[s.Name] = append(byName[s.Name], s)
		}
		one := func(name string) tracetest.SpanStub {
			t.Helper()
			if len(byName[name]) != 1 {
				t.Fatalf("%d spans named %q; spans: %v", len(byName[name]), name, names(all))
			}
			return byName[name][0]
		}
		if httpSpan.Name != "POST /graphql" {
			t.Fatalf("HTTP span named %q, want the route pattern; spans: %v", httpSpan.Name, names(all))
		}
		if !httpSpan.Parent.IsRemote() || httpSpan.Parent.SpanID().String() != parentID {
			t.Errorf("HTTP span's parent %v, want the caller's span %s", httpSpan.Parent.SpanID(), parentID)
		}
		op := one("graphql mutation StartCase")
		field := one("graphql.field Mutation.startCase")
		cmd := one("command StartCase")
		for _, link := range []struct {
			child, parent tracetest.SpanStub
		}{{op, httpSpan}, {field, op}, {cmd, field}} {
			if link.child.Parent.SpanID() != link.parent.SpanContext.SpanID() {
				t.Errorf("span %q has parent %s, want %q (%s)", link.child.Name, link.child.Parent.SpanID(), link.parent.Name, link.parent.SpanContext.SpanID())
			}
		}
		sqlUnderCommand := 0
		for _, s := range all {
			if s.SpanKind == trace.SpanKindClient && s.Parent.SpanID() == cmd.SpanContext.SpanID() {
				sqlUnderCommand++
				if !hasAttr(s, "db.statement") {
					t.Errorf("SQL span %q has no db.statement", s.Name)
				}
			}
		}
		if sqlUnderCommand < 2 { // a start case: its checks, then its write batch
			t.Errorf("%d SQL spans under the command, want the command's statements; spans: %v", sqlUnderCommand, names(all))
		}
	})
}

func hasAttr(s tracetest.SpanStub, key string) bool {
	for _, a := range s.Attributes {
		if string(a.Key) == key {
			return true
		}
	}
	return false
}

func names(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

// TestLogsCarryTraceID: a line logged in a traced request names the trace.
func TestLogsCarryTraceID(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(server.LogHandler(slog.NewTextHandler(&buf, nil)))
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("test").Start(context.Background(), "request")
	logger.InfoContext(ctx, "inside")
	span.End()
	logger.Info("outside")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "trace_id="+span.SpanContext().TraceID().String()) || strings.Contains(lines[1], "trace_id") {
		t.Errorf("log lines:\n%s", buf.String())
	}
}
