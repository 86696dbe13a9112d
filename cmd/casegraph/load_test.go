package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/load"
)

// TestLoadCommand runs `casegraph load` against a --dev server on the same
// data dir: tokens come from its key, the report names every operation and
// no error.
func TestLoadCommand(t *testing.T) {
	dir := t.TempDir()
	ln := listen(t)
	t.Setenv("CASEGRAPH_DATA_DIR", dir)
	t.Setenv("DATABASE_URL", "")
	t.Setenv("CASEGRAPH_OIDC_ISSUERS", "")
	t.Setenv("CASEGRAPH_PLATFORM_OWNERS", "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, []string{"--dev"}, io.Discard, ln) }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop")
		}
	}()

	var out, progress bytes.Buffer
	err := run(context.Background(), []string{"load", "-target", "http://" + ln.Addr().String(), "-users", "2", "-count", "4", "-data-dir", dir}, &out, &progress)
	if err != nil {
		t.Fatalf("load: %v\n%s\n%s", err, out.String(), progress.String())
	}
	for _, op := range load.Operations {
		if !strings.Contains(out.String(), op) {
			t.Errorf("report lacks %q:\n%s", op, out.String())
		}
	}
	if !strings.Contains(out.String(), "\nerrors: 0\n") || !strings.Contains(out.String(), ", 4 flows") {
		t.Errorf("report:\n%s", out.String())
	}
}

func TestLoadCommandRefusesRemoteTargets(t *testing.T) {
	err := run(context.Background(), []string{"load", "-target", "http://192.0.2.7:2027", "-count", "1", "-data-dir", t.TempDir()}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--allow-remote") {
		t.Fatalf("a remote target: %v", err)
	}
	err = run(context.Background(), []string{"load", "-target", "http://127.0.0.1:1", "-token-command", "false", "-count", "1"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--token-command") {
		t.Fatalf("a failing token command: %v", err)
	}
}
