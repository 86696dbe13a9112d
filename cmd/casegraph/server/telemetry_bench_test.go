package server_test

import (
	"context"
	"net/http"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db/dbtest"
)

// BenchmarkStartCaseTelemetry measures what metrics and tracing cost a
// REST case start, on each database: off (no metrics, no tracing),
// metrics only (the default), and metrics with every span sampled and
// exported in batches (to an exporter that drops them, so the collector's
// network is not measured). Run the modes in one go (-count interleaves
// them) and compare:
//
//	go test -run '^$' -bench StartCaseTelemetry -benchtime 400x -count 3 ./cmd/casegraph/server/
func BenchmarkStartCaseTelemetry(b *testing.B) {
	for _, flavor := range dbtest.Flavors() {
		for _, mode := range []struct {
			name           string
			metrics, trace bool
		}{{"off", false, false}, {"metrics", true, false}, {"metrics+tracing", true, true}} {
			b.Run(string(flavor)+"/"+mode.name, func(b *testing.B) {
				var tp *sdktrace.TracerProvider
				if mode.trace {
					tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()),
						sdktrace.WithSampler(sdktrace.AlwaysSample()))
					b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
				}
				env := servertest.Start(b, flavor, func(c *server.Config) {
					c.NoMetrics = !mode.metrics
					if tp != nil {
						c.TracerProvider = tp
					}
				})
				setupMinimal(b, env)
				token := env.Issuer.Token("alice")
				body := map[string]any{"definition": "minimal", "tenant": "acme"}
				b.ResetTimer()
				for range b.N {
					if resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", Token: token, Body: body}); resp.Status != http.StatusOK {
						b.Fatalf("start case: %d %s", resp.Status, resp.Body)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cases/s")
			})
		}
	}
}
