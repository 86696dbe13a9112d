package server

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// TestLimitSettingsRefusedByName: a bad or unsafe value stops the server
// with a sentence naming its variable.
func TestLimitSettingsRefusedByName(t *testing.T) {
	for env, want := range map[string]string{
		"CASEGRAPH_MAX_TEAM_MEMBERS=lots":    "CASEGRAPH_MAX_TEAM_MEMBERS must be a whole number",
		"CASEGRAPH_REQUEST_TIMEOUT=soon":     "CASEGRAPH_REQUEST_TIMEOUT must be a duration",
		"CASEGRAPH_MAX_IN_FLIGHT=-1":         "CASEGRAPH_MAX_IN_FLIGHT must not be negative",
		"CASEGRAPH_TOKEN_LEEWAY=1h":          "CASEGRAPH_TOKEN_LEEWAY must be at most 5m",
		"CASEGRAPH_CORS_ORIGINS=example.com": "CASEGRAPH_CORS_ORIGINS holds \"example.com\"",
		"CASEGRAPH_TIMER_INTERVAL=soon":      "CASEGRAPH_TIMER_INTERVAL must be a duration",
		"CASEGRAPH_TIMER_INTERVAL=-1s":       "CASEGRAPH_TIMER_INTERVAL (-timer-interval) must be a positive duration",
		"CASEGRAPH_ADMIN_ADDR=9090":          "CASEGRAPH_ADMIN_ADDR must be a listen address",
	} {
		name, value, _ := strings.Cut(env, "=")
		t.Setenv(name, value)
		cfg := Config{Dev: true}
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		cfg.RegisterFlags(fs)
		if err := fs.Parse(nil); err != nil {
			t.Fatal(err)
		}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", env, err, want)
		}
		t.Setenv(name, "")
	}
}
