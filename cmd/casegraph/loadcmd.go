package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/cmd/casegraph/load"
)

// loadFlagSet defines the flags of `casegraph load`; the flags that hold
// their values are filled into cfg, the token options into the pointers.
func loadFlagSet(w io.Writer, cfg *load.Config, targets, dataDir, tokenCmd *string) *flag.FlagSet {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.StringVar(targets, "target", "http://127.0.0.1:2027", "base URL of the server; comma-separated for several replicas")
	fs.IntVar(&cfg.Users, "users", 8, "simulated users, each running one flow after another")
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "how long to run (0: until --count flows)")
	fs.IntVar(&cfg.Count, "count", 0, "stop after this many flows in all (0: until --duration)")
	fs.StringVar(dataDir, "data-dir", env("CASEGRAPH_DATA_DIR", "./data"), "data dir of a --dev server, whose key signs the users' tokens (CASEGRAPH_DATA_DIR)")
	fs.StringVar(tokenCmd, "token-command", "", "command printing a token for the user id given as its last argument (run by sh); instead of the dev key")
	fs.StringVar(&cfg.Admin, "admin", "admin", "platform owner who creates the run's tenant")
	fs.StringVar(&cfg.Mix, "mix", load.MixFlow, "what each flow does: "+strings.Join(load.Mixes, ", "))
	fs.IntVar(&cfg.Cases, "cases", 100, "with --mix claim-complete: cases each user starts before the clock runs")
	fs.BoolVar(&cfg.AllowRemote, "allow-remote", false, "allow a target that is not on this machine")
	return fs
}

func loadUsage(w io.Writer) *flag.FlagSet {
	var (
		cfg                        load.Config
		targets, dataDir, tokenCmd string
	)
	return loadFlagSet(w, &cfg, &targets, &dataDir, &tokenCmd)
}

// loadCommand runs `casegraph load`: progress to stderr, the report to
// stdout. It fails when any request failed, so a script can tell.
func loadCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		cfg                        load.Config
		targets, dataDir, tokenCmd string
	)
	fs := loadFlagSet(stderr, &cfg, &targets, &dataDir, &tokenCmd)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: casegraph load [flags]\n\n")
		printFlags(stderr, fs)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	for _, t := range strings.Split(targets, ",") {
		if t = strings.TrimSpace(t); t != "" {
			cfg.Targets = append(cfg.Targets, t)
		}
	}
	// Checked before a key is read or a command run.
	for _, t := range cfg.Targets {
		if err := load.CheckTarget(t, cfg.AllowRemote); err != nil {
			return err
		}
	}
	if tokenCmd != "" {
		cfg.Token = commandTokens(tokenCmd)
	} else {
		dev, err := auth.LoadOrCreateDevIssuer(dataDir)
		if err != nil {
			return err
		}
		cfg.Token = func(_ context.Context, user string) (string, error) {
			return dev.Token(user, time.Now(), 24*time.Hour)
		}
	}
	cfg.Progress = stderr
	fmt.Fprintf(stderr, "casegraph load: %s mix, %d users against %s, for %s or %d flows\n", cfg.Mix, cfg.Users, strings.Join(cfg.Targets, ", "), cfg.Duration, cfg.Count)
	res, err := load.Run(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "tenant %s, %d users, %d flows\n", res.Tenant, cfg.Users, res.Flows)
	res.Stats.Report(stdout, res.Elapsed)
	if n := res.Stats.Errors(); n > 0 {
		return fmt.Errorf("%d requests failed", n)
	}
	return nil
}

// commandTokens asks cmd for each user's token once: `sh -c 'CMD "$1"'`,
// so that CMD may be a pipeline and the user id is never parsed by the
// shell.
func commandTokens(cmd string) func(context.Context, string) (string, error) {
	var (
		mu    sync.Mutex
		cache = map[string]string{}
	)
	return func(ctx context.Context, user string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if tok, ok := cache[user]; ok {
			return tok, nil
		}
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		var out, errOut bytes.Buffer
		c := exec.CommandContext(ctx, "sh", "-c", cmd+` "$1"`, "sh", user)
		c.Stdout, c.Stderr = &out, &errOut
		if err := c.Run(); err != nil {
			return "", fmt.Errorf("--token-command for %s: %v: %s", user, err, strings.TrimSpace(errOut.String()))
		}
		tok := strings.TrimSpace(out.String())
		if tok == "" || strings.ContainsAny(tok, " \n\t") {
			return "", errors.New("--token-command printed no single token for " + user)
		}
		cache[user] = tok
		return tok, nil
	}
}
