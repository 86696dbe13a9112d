package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

func TestHelpListsCommands(t *testing.T) {
	for _, args := range [][]string{nil, {"help"}, {"-h"}, {"--help"}} {
		var out bytes.Buffer
		if err := run(context.Background(), args, &out, io.Discard); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		for _, c := range commands {
			line := ""
			for _, l := range strings.Split(out.String(), "\n") {
				if f := strings.Fields(l); len(f) > 1 && f[0] == c.name {
					line = l
				}
			}
			if !strings.Contains(line, c.summary) {
				t.Errorf("%q does not list %s with its summary:\n%s", args, c.name, out.String())
			}
		}
	}
}

func TestHelpServeListsFlagsWithVariables(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"help", "serve"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	// Every flag of the definitions appears, with the variable its usage
	// names, so a flag added later is listed without touching the help.
	n := 0
	serveFlagSet(io.Discard).VisitAll(func(f *flag.Flag) {
		n++
		m := envInUsage.FindStringSubmatch(f.Usage)
		if m == nil {
			t.Errorf("flag -%s does not name its environment variable: %q", f.Name, f.Usage)
			return
		}
		if !strings.Contains(out.String(), "-"+f.Name+" ") || !strings.Contains(out.String(), m[1]) {
			t.Errorf("help serve lacks -%s or %s:\n%s", f.Name, m[1], out.String())
		}
	})
	if n < 10 {
		t.Errorf("only %d serve flags", n)
	}
	for _, want := range []string{"CASEGRAPH_ADDR", ":2027", "CASEGRAPH_LOG_LEVEL", "DATABASE_URL"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help serve lacks %s", want)
		}
	}
	// serve -h lists the same flags on stderr and is not an error of the
	// user (main exits 0 on flag.ErrHelp).
	var errOut bytes.Buffer
	if err := run(context.Background(), []string{"serve", "-h"}, io.Discard, &errOut); !errors.Is(err, flag.ErrHelp) ||
		!strings.Contains(errOut.String(), "CASEGRAPH_OIDC_ISSUERS") {
		t.Errorf("serve -h: %v\n%s", err, errOut.String())
	}
	if err := run(context.Background(), []string{"help", "frobnicate"}, io.Discard, io.Discard); err == nil {
		t.Error("help for an unknown command succeeded")
	}
}

func TestVersionFromBuildInfo(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"casegraph ", "\nmodule:   github.com/casegraph/casegraph\n", "\nrevision: ", "\nbuilt:    ", "\ngo:       go1."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("version lacks %q:\n%s", want, out.String())
		}
	}
	// Values set by -ldflags win over the build info.
	defer func(v, c, b string) { version, commit, builtAt = v, c, b }(version, commit, builtAt)
	version, commit, builtAt = "v1.2.3", "abc123", "2026-01-02T03:04:05Z"
	out.Reset()
	printVersion(&out)
	if got := out.String(); !strings.HasPrefix(got, "casegraph v1.2.3\n") || !strings.Contains(got, "revision: abc123\n") ||
		!strings.Contains(got, "built:    2026-01-02T03:04:05Z\n") {
		t.Errorf("version with ldflags:\n%s", got)
	}
}

func TestInvalidSettingStopsStart(t *testing.T) {
	t.Setenv("CASEGRAPH_DATA_DIR", t.TempDir())
	tests := []struct{ name, value, want string }{
		{"CASEGRAPH_LOG_LEVEL", "loud", `invalid log level "loud" (CASEGRAPH_LOG_LEVEL`},
		{"CASEGRAPH_DEV", "yes", `invalid CASEGRAPH_DEV="yes"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(tt.name, tt.value)
			err := run(context.Background(), []string{"serve", "--dev", "-addr", "127.0.0.1:0"}, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("serve with %s=%s: %v", tt.name, tt.value, err)
			}
		})
	}
}

func TestHealthCommand(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/status" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
	}))
	defer srv.Close()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"health", "-url", srv.URL}, &out, io.Discard); err != nil || out.String() != "healthy\n" {
		t.Fatalf("healthy server: %v %q", err, out.String())
	}
	status = http.StatusServiceUnavailable
	if err := run(context.Background(), []string{"health", "-url", srv.URL}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("unhealthy server: %v", err)
	}
	if got := localURL(":2027"); got != "http://127.0.0.1:2027" {
		t.Errorf("localURL(:2027) = %s", got)
	}
}

// TestSettingsAreDocumented keeps the configuration tables of README.md
// and docs/configuration.md current: each names every flag of serve with
// its variable.
func TestSettingsAreDocumented(t *testing.T) {
	for _, doc := range []string{"../../README.md", "../../docs/configuration.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		serveFlagSet(io.Discard).VisitAll(func(f *flag.Flag) {
			m := envInUsage.FindStringSubmatch(f.Usage)
			if m == nil {
				return
			}
			row := fmt.Sprintf("| `%s` | `-%s` |", m[1], f.Name)
			if !strings.Contains(string(b), row) {
				t.Errorf("%s has no row %s", doc, row)
			}
		})
	}
}
