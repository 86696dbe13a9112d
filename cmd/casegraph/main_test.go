package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// listen opens a listener on a free loopback port. The test hands the
// listener itself to the server: closing it and passing on its address
// would let another process take the port in between.
func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// TestServeDev runs the real binary's entry point in development mode: a
// token from `casegraph token admin` creates a tenant, and cancelling the
// context (SIGTERM) stops the server cleanly.
func TestServeDev(t *testing.T) {
	dir := t.TempDir()
	ln := listen(t)
	t.Setenv("CASEGRAPH_DATA_DIR", dir)
	t.Setenv("DATABASE_URL", "")
	t.Setenv("CASEGRAPH_OIDC_ISSUERS", "")
	t.Setenv("CASEGRAPH_PLATFORM_OWNERS", "")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var logs bytes.Buffer
	go func() { done <- serve(ctx, []string{"--dev"}, &logs, ln) }()

	// The listener is open before the server starts: the first request
	// waits in its backlog until the server accepts it, no polling needed.
	base := "http://" + ln.Addr().String()
	client := &http.Client{Timeout: 30 * time.Second}
	status, err := client.Get(base + "/status")
	if err != nil {
		t.Fatal(err)
	}
	status.Body.Close()
	if status.StatusCode != http.StatusOK {
		t.Fatalf("GET /status of the new server: %d", status.StatusCode)
	}
	var health bytes.Buffer
	if err := run(context.Background(), []string{"health", "-url", base}, &health, io.Discard); err != nil || health.String() != "healthy\n" {
		t.Fatalf("health of the running server: %v %q", err, health.String())
	}

	var tok bytes.Buffer
	if err := run(context.Background(), []string{"token", "admin"}, &tok, io.Discard); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", base+"/platform", strings.NewReader(`{"name":"acme","users":[{"userId":"alice","isOwner":true}]}`))
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(tok.String()))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("create tenant with a dev token: %d", resp.StatusCode)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v after shutdown", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(logs.String(), "DEVELOPMENT MODE") || !strings.Contains(logs.String(), `"request_id"`) {
		t.Errorf("logs lack the dev-mode warning or request ids:\n%s", logs.String())
	}
}

func TestServeRefusesWithoutIssuer(t *testing.T) {
	t.Setenv("CASEGRAPH_DATA_DIR", t.TempDir())
	t.Setenv("CASEGRAPH_OIDC_ISSUERS", "")
	t.Setenv("CASEGRAPH_DEV", "")
	err := run(context.Background(), []string{"serve", "-addr", "127.0.0.1:0"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "CASEGRAPH_OIDC_ISSUERS") || !strings.Contains(err.Error(), "CASEGRAPH_DEV") {
		t.Fatalf("serve without issuer: %v", err)
	}
}

func TestMigrateAndVersion(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"migrate", "-data-dir", dir}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "applied 00001") {
		t.Fatalf("first migrate printed %q", out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"migrate", "-data-dir", dir}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if out.String() != "database is up to date\n" {
		t.Fatalf("second migrate printed %q", out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"version"}, &out, io.Discard); err != nil || !strings.HasPrefix(out.String(), "casegraph ") {
		t.Fatalf("version: %q %v", out.String(), err)
	}
	if err := run(context.Background(), []string{"frobnicate"}, io.Discard, io.Discard); err == nil {
		t.Fatal("an unknown command succeeded")
	}
	if err := run(context.Background(), []string{"token"}, io.Discard, io.Discard); err == nil {
		t.Fatal("token without a user id succeeded")
	}
}

func TestValidateCommand(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"validate", "../../testdata/cases/permit.xml"}, &out, io.Discard); err != nil {
		t.Fatalf("validate permit.xml: %v\n%s", err, out.String())
	}
	if !strings.HasPrefix(out.String(), "ok ") {
		t.Fatalf("output %q", out.String())
	}

	// The project's own models: all valid but the invalid_*.xml, each of
	// which is reported with its problems.
	out.Reset()
	err := run(context.Background(), []string{"validate", "../../testdata/cmmn"}, &out, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "definitions are invalid") {
		t.Fatalf("validating testdata/cmmn: %v, but it holds invalid models", err)
	}
	checkVerdicts(t, out.String(), "/invalid_", 10)
	if !strings.Contains(out.String(), "INVALID  ../../testdata/cmmn/invalid_recursion.xml\n         - loop.case: CaseTask 'Again' leads to infinite recursion, because") {
		t.Errorf("invalid_recursion.xml was not reported with its problem:\n%s", out.String())
	}
}

// TestValidateConformanceModels validates the reference engine's own models,
// which live outside the repository: all valid but the invalid*.xml.
func TestValidateConformanceModels(t *testing.T) {
	dir := os.Getenv("CASEGRAPH_CONFORMANCE_MODELS")
	if dir == "" {
		t.Skip("set CASEGRAPH_CONFORMANCE_MODELS=<folder of the reference engine's CMMN models> to run this conformance test")
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"validate", dir}, &out, io.Discard); err == nil {
		t.Fatalf("validating %s succeeded, but it holds invalid models", dir)
	}
	checkVerdicts(t, out.String(), "/invalid", 6)
}

// checkVerdicts checks validate's output: files whose path holds
// invalidMark are INVALID (wantInvalid of them), all others ok.
func checkVerdicts(t *testing.T, out, invalidMark string, wantInvalid int) {
	t.Helper()
	invalid, ok := 0, 0
	for _, line := range strings.Split(out, "\n") {
		if file, found := strings.CutPrefix(line, "INVALID  "); found {
			invalid++
			if !strings.Contains(file, invalidMark) {
				t.Errorf("valid model rejected: %s\n%s", file, out)
			}
		}
		if file, found := strings.CutPrefix(line, "ok       "); found {
			ok++
			if strings.Contains(file, invalidMark) {
				t.Errorf("invalid model accepted: %s", file)
			}
		}
	}
	if invalid != wantInvalid || ok == 0 {
		t.Errorf("%d invalid and %d valid models, want %d invalid and some valid:\n%s", invalid, ok, wantInvalid, out)
	}
}
