package server_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

// telemetryModes are the configurations the overhead is measured in:
// nothing, metrics only (the default), and metrics with every span
// sampled and exported in batches (to an exporter that drops them, so the
// collector's network is not measured).
var telemetryModes = []struct {
	name           string
	metrics, trace bool
}{{"off", false, false}, {"metrics", true, false}, {"metrics+tracing", true, true}}

// startTelemetryEnv starts a server in mode with tenant acme and the
// minimal model, and returns it with a token of alice.
func startTelemetryEnv(tb testing.TB, flavor db.Dialect, metrics, traced bool) (*servertest.Env, string) {
	var tp *sdktrace.TracerProvider
	if traced {
		tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()), sdktrace.WithSampler(sdktrace.AlwaysSample()))
		tb.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	}
	env := servertest.Start(tb, flavor, func(c *server.Config) {
		c.NoMetrics = !metrics
		if tp != nil {
			c.TracerProvider = tp
		}
	})
	setupMinimal(tb, env)
	return env, env.Issuer.Token("alice")
}

func startCases(tb testing.TB, env *servertest.Env, token string, n int) {
	body := map[string]any{"definition": "minimal", "tenant": "acme"}
	for range n {
		if resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", Token: token, Body: body}); resp.Status != http.StatusOK {
			tb.Fatalf("start case: %d %s", resp.Status, resp.Body)
		}
	}
}

// BenchmarkStartCaseTelemetry times a REST case start in each mode:
//
//	go test -run '^$' -bench StartCaseTelemetry ./cmd/casegraph/server/
func BenchmarkStartCaseTelemetry(b *testing.B) {
	for _, flavor := range dbtest.Flavors() {
		for _, mode := range telemetryModes {
			b.Run(string(flavor)+"/"+mode.name, func(b *testing.B) {
				env, token := startTelemetryEnv(b, flavor, mode.metrics, mode.trace)
				b.ResetTimer()
				startCases(b, env, token, b.N)
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cases/s")
			})
		}
	}
}

// TestStartCaseOverhead compares the modes in one run on a shared, noisy
// machine: the three servers of a database take turns, batch by batch, so
// that load from elsewhere hits every mode alike, and the median batch of
// each is reported. It runs only when CASEGRAPH_OVERHEAD is set (a number
// of rounds, default 15):
//
//	CASEGRAPH_OVERHEAD=15 go test -run StartCaseOverhead -v ./cmd/casegraph/server/
func TestStartCaseOverhead(t *testing.T) {
	if os.Getenv("CASEGRAPH_OVERHEAD") == "" {
		t.Skip("set CASEGRAPH_OVERHEAD to measure")
	}
	rounds := 15
	fmt.Sscan(os.Getenv("CASEGRAPH_OVERHEAD"), &rounds)
	const batch = 40
	var report strings.Builder
	for _, flavor := range dbtest.Flavors() {
		type server struct {
			env   *servertest.Env
			token string
			took  []time.Duration
			cpu   []time.Duration
		}
		servers := make([]*server, len(telemetryModes))
		for i, m := range telemetryModes {
			env, token := startTelemetryEnv(t, flavor, m.metrics, m.trace)
			startCases(t, env, token, 10) // warm up
			servers[i] = &server{env: env, token: token}
		}
		for r := range rounds {
			for i := range servers {
				s := servers[(i+r)%len(servers)]
				start, cpu := time.Now(), cpuTime()
				startCases(t, s.env, s.token, batch)
				s.took = append(s.took, time.Since(start))
				s.cpu = append(s.cpu, cpuTime()-cpu)
			}
		}
		base, baseCPU := median(servers[0].took), median(servers[0].cpu)
		for i, s := range servers {
			m, c := median(s.took), median(s.cpu)
			fmt.Fprintf(&report, "| %s | %s | %.0f | %.2f (%+.0f%%) | %.2f (%+.0f%%) |\n", flavor, telemetryModes[i].name,
				float64(batch)/m.Seconds(), float64(m.Microseconds())/1000/batch, 100*(float64(m)/float64(base)-1),
				float64(c.Microseconds())/1000/batch, 100*(float64(c)/float64(baseCPU)-1))
		}
	}
	t.Logf("\n| database | mode | cases/s (median batch) | wall ms per case (vs off) | CPU ms per case (vs off) |\n|---|---|---|---|---|\n%s",
		report.String())
}

// cpuTime is the CPU time this process (test client and server alike)
// has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
