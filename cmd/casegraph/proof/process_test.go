package proof_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/casegraph/casegraph/auth"
)

// binary is the casegraph binary the tests run, built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "casegraph-proof-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "casegraph")
	build := exec.Command("go", "build", "-o", binary, "github.com/casegraph/casegraph/cmd/casegraph")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building casegraph:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is a casegraph process in development mode.
type server struct {
	t      *testing.T
	cmd    *exec.Cmd
	addr   string
	logs   *lockedBuffer
	exited chan struct{}
}

// URL is the server's base URL.
func (s *server) URL() string { return "http://" + s.addr }

// freeAddr finds a free loopback port. Closing the listener before the
// server binds it leaves a short window; the test's own processes are the
// only ones that take ports here.
func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err) // no free loopback port: nothing here can run
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// startServer runs casegraph serve --dev on the database, with its
// development key in dataDir, on addr (a free port when empty), and waits
// until it answers /status. env adds NAME=value settings.
func startServer(t *testing.T, databaseURL, dataDir, addr string, env ...string) *server {
	t.Helper()
	s, err := spawn(t, databaseURL, dataDir, addr, env...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// spawn is startServer for any goroutine: it fails with an error, not the
// test.
func spawn(t *testing.T, databaseURL, dataDir, addr string, extra ...string) (*server, error) {
	if addr == "" {
		addr = freeAddr()
	}
	cmd := exec.Command(binary, "serve")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CASEGRAPH_") && !strings.HasPrefix(kv, "DATABASE_URL=") && !strings.HasPrefix(kv, "OTEL_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env,
		"CASEGRAPH_DEV=true",
		"DATABASE_URL="+databaseURL,
		"CASEGRAPH_DATA_DIR="+dataDir,
		"CASEGRAPH_ADDR="+addr,
		"CASEGRAPH_TIMER_INTERVAL=100ms",
		"CASEGRAPH_LOG_LEVEL=warn",
		"CASEGRAPH_MAX_IN_FLIGHT=256",
	)
	cmd.Env = append(cmd.Env, extra...)
	s := &server{t: t, cmd: cmd, addr: addr, logs: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.logs, s.logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		_ = cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		s.kill()
		if t.Failed() {
			t.Logf("logs of the server on %s:\n%s", addr, s.logs.String())
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("the server on %s exited at start:\n%s", addr, s.logs.String())
		default:
		}
		resp, err := client.Get(s.URL() + "/status")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the server on %s did not get ready in a minute:\n%s", addr, s.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kill ends the process at once, as a crash or an OOM kill would.
func (s *server) kill() {
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

// stop asks the process to drain and exit, as an orchestrator does.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.t.Errorf("the server on %s did not stop on SIGTERM", s.addr)
		s.kill()
	}
}

// tokens mints development tokens with the key the servers trust, writing
// it into dataDir before any server starts.
func tokens(t *testing.T, dataDir string) func(context.Context, string) (string, error) {
	t.Helper()
	dev, err := auth.LoadOrCreateDevIssuer(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	return func(_ context.Context, user string) (string, error) {
		return dev.Token(user, time.Now(), time.Hour)
	}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	// A server that logs without end must not fill the test's memory.
	if b.buf.Len() > 1<<20 {
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
