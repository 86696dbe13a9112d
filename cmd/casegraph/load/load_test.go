package load_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/load"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// TestRunReportsEveryOperation drives a test server with a short run and
// reads the report: every operation, no error, and an acknowledgement for
// every command of every flow.
func TestRunReportsEveryOperation(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		var (
			mu   sync.Mutex
			acks = map[string]int{}
		)
		var progress, out bytes.Buffer
		res, err := load.Run(context.Background(), load.Config{
			Targets:  []string{env.URL},
			Users:    3,
			Count:    6,
			Duration: time.Minute,
			Admin:    servertest.PlatformOwner,
			Token: func(_ context.Context, user string) (string, error) {
				return env.Issuer.Token(user), nil
			},
			Progress: &progress,
			OnAck: func(a load.Ack) {
				mu.Lock()
				acks[a.Op]++
				mu.Unlock()
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		res.Stats.Report(&out, res.Elapsed)
		report := out.String()
		t.Log(report)
		for _, op := range load.Operations {
			if !strings.Contains(report, op) {
				t.Errorf("report lacks %q:\n%s", op, report)
			}
		}
		if !strings.Contains(report, "\nerrors: 0\n") || res.Stats.Errors() != 0 {
			t.Fatalf("the run had errors:\n%s", report)
		}
		if res.Flows != 6 {
			t.Errorf("%d flows ran, want 6", res.Flows)
		}
		for _, op := range []string{load.OpStartCase, load.OpTeamChange, load.OpClaim, load.OpSave, load.OpComplete} {
			if acks[op] != 6 {
				t.Errorf("%d acknowledgements of %s, want 6", acks[op], op)
			}
		}
		// The run's cases are there for their owners: the last user's
		// inbox holds the Approve tasks its completions opened.
		resp := env.Do(servertest.Request{Method: "GET", Path: "/tasks?tenant=" + res.Tenant + "&taskName=Approve", User: "load-" + strings.TrimPrefix(res.Tenant, "load-") + "-u1"})
		if resp.Status != 200 || !strings.Contains(resp.Body, `"taskName":"Approve"`) {
			t.Errorf("the first user's Approve tasks: %d %.300s", resp.Status, resp.Body)
		}
	})
}

func TestRefusesRemoteTargets(t *testing.T) {
	for _, target := range []string{"http://10.0.0.1:2027", "http://example.com", "https://192.168.1.5", "http://[2001:db8::1]:80"} {
		_, err := load.Run(context.Background(), load.Config{Targets: []string{target}, Users: 1, Count: 1,
			Token: func(context.Context, string) (string, error) {
				t.Fatal("a token was asked for a refused target")
				return "", nil
			}})
		if err == nil || !strings.Contains(err.Error(), "--allow-remote") {
			t.Errorf("%s: %v, want a refusal naming --allow-remote", target, err)
		}
		if err := load.CheckTarget(target, true); err != nil {
			t.Errorf("%s with remote allowed: %v", target, err)
		}
	}
	for _, target := range []string{"http://127.0.0.1:2027", "http://localhost:1", "http://[::1]:2027", "https://127.5.0.1"} {
		if err := load.CheckTarget(target, false); err != nil {
			t.Errorf("%s: %v", target, err)
		}
	}
	for _, target := range []string{"ftp://127.0.0.1", "127.0.0.1:2027", ""} {
		if err := load.CheckTarget(target, true); err == nil {
			t.Errorf("%q was accepted as a target", target)
		}
	}
}

func TestRefusesARunWithoutEnd(t *testing.T) {
	_, err := load.Run(context.Background(), load.Config{Targets: []string{"http://127.0.0.1:1"}, Users: 1,
		Token: func(context.Context, string) (string, error) { return "", nil }})
	if err == nil || !strings.Contains(err.Error(), "--duration or --count") {
		t.Fatalf("a run without duration or count: %v", err)
	}
}

// TestMixes runs the start and claim-complete mixes: each makes only its
// own operations, and claim-complete claims and completes exactly the
// cases it started before the clock ran.
func TestMixes(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		for _, tc := range []struct {
			mix  string
			want []string
		}{
			{load.MixStart, []string{load.OpStartCase}},
			{load.MixClaimComplete, []string{load.OpClaim, load.OpComplete}},
		} {
			var (
				mu   sync.Mutex
				acks = map[string]int{}
			)
			res, err := load.Run(context.Background(), load.Config{
				Targets: []string{env.URL}, Users: 2, Count: 10, Duration: time.Minute, Cases: 3, Mix: tc.mix,
				Admin: servertest.PlatformOwner,
				Token: func(_ context.Context, user string) (string, error) { return env.Issuer.Token(user), nil },
				OnAck: func(a load.Ack) { mu.Lock(); acks[a.Op]++; mu.Unlock() },
			})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			res.Stats.Report(&out, res.Elapsed)
			report := out.String()
			if res.Stats.Errors() != 0 {
				t.Fatalf("%s: the run had errors:\n%s", tc.mix, report)
			}
			for _, op := range load.Operations {
				if slices.Contains(tc.want, op) != strings.Contains(report, op) {
					t.Errorf("%s: report and %q disagree:\n%s", tc.mix, op, report)
				}
			}
			switch tc.mix {
			case load.MixStart:
				if res.Flows != 10 || acks[load.OpStartCase] != 10 {
					t.Errorf("start: %d flows, %d starts, want 10 each", res.Flows, acks[load.OpStartCase])
				}
			case load.MixClaimComplete:
				// Two users with three cases each: six flows, then they stop.
				if res.Flows != 6 || acks[load.OpStartCase] != 6 || acks[load.OpClaim] != 6 || acks[load.OpComplete] != 6 || acks[load.OpSave] != 0 {
					t.Errorf("claim-complete: %d flows, acks %v, want 6 flows and 6 starts, claims and completions", res.Flows, acks)
				}
			}
		}
	})
}

func TestRefusesUnknownMix(t *testing.T) {
	_, err := load.Run(context.Background(), load.Config{Targets: []string{"http://127.0.0.1:1"}, Users: 1, Count: 1, Mix: "everything",
		Token: func(context.Context, string) (string, error) { return "", nil }})
	if err == nil || !strings.Contains(err.Error(), `mix "everything" is not one of flow, start, claim-complete`) {
		t.Errorf("unknown mix: %v", err)
	}
}
