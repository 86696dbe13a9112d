package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// health asks a running server whether it is healthy: GET /status answers
// 200 while the database and the identity provider are, 503 otherwise. It
// exists because a container image without a shell or curl still needs a
// health check: `casegraph health` is that check.
func health(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("health", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", "", "base URL of the server; default from CASEGRAPH_ADDR (CASEGRAPH_HEALTH_URL)")
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the answer")
	if err := fs.Parse(args); err != nil {
		return err
	}
	base := *url
	if base == "" {
		base = env("CASEGRAPH_HEALTH_URL", localURL(env("CASEGRAPH_ADDR", ":2027")))
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/status", nil)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("unhealthy: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("unhealthy: %s answers %d %s", req.URL, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	fmt.Fprintln(stdout, "healthy")
	return nil
}

// localURL turns a listen address into the URL of the same server from
// inside its host: an empty or wildcard host becomes the loopback address.
func localURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
