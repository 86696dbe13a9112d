package telemetry

import (
	"context"
	"strings"
	"testing"
)

// TestTracerProviderFromEnv: the OTEL_* variables alone turn tracing on
// and choose the exporter; what CaseGraph cannot honour stops the start.
func TestTracerProviderFromEnv(t *testing.T) {
	for _, v := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		t.Setenv(v, "")
	}
	ctx := context.Background()
	for _, c := range []struct {
		env     map[string]string
		on      bool
		wantErr string
	}{
		{env: nil, on: false},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, on: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, on: false},
		{env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, on: false},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, wantErr: "OTEL_TRACES_EXPORTER=zipkin is not supported"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
			wantErr: "OTEL_EXPORTER_OTLP_PROTOCOL=http/json is not supported"},
	} {
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		tp, err := TracerProviderFromEnv(ctx, "test")
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: %v, want %q", c.env, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%v: %v", c.env, err)
		case (tp != nil) != c.on:
			t.Errorf("%v: tracing on = %v, want %v", c.env, tp != nil, c.on)
		}
		if tp != nil {
			_ = tp.Shutdown(ctx)
		}
		for k := range c.env {
			t.Setenv(k, "")
		}
	}
}
