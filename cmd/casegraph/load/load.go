// Package load drives a running CaseGraph server over HTTP with a mix of
// what its users do — start a case, read it nested over GraphQL, change
// its team, look at the inbox over REST and GraphQL, claim, save and
// complete a task — and reports per operation the throughput, latency
// percentiles and errors. `casegraph load` is its command line.
//
// It sets up its own tenant, users and definition (review.xml, embedded),
// named after a random run id, so it can run against a server that holds
// other data and twice against the same server.
package load

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

//go:embed review.xml
var reviewModel []byte

// Definition is the name the model is deployed under.
const Definition = "loadreview"

// The operations of a flow, in their order.
const (
	OpStartCase  = "start case (REST)"
	OpCaseRead   = "case read (GraphQL, nested)"
	OpTeamChange = "team change (REST)"
	OpInboxREST  = "inbox (REST)"
	OpInboxGraph = "inbox (GraphQL)"
	OpClaim      = "claim (REST)"
	OpSave       = "save (REST)"
	OpComplete   = "complete (REST)"
)

// maxRunUsers bounds --users; requestTimeout is the default client's;
// failPause is a user's pause after a flow that failed.
const (
	maxRunUsers    = 1000
	requestTimeout = 30 * time.Second
	failPause      = 50 * time.Millisecond
)

// Operations lists every operation a flow makes, in order.
var Operations = []string{OpStartCase, OpCaseRead, OpTeamChange, OpInboxREST, OpInboxGraph, OpClaim, OpSave, OpComplete}

// Ack is a command the server acknowledged with a 2xx.
type Ack struct {
	Op     string
	CaseID string
	// TaskID is set for task commands.
	TaskID string
	// User is the member a team change added.
	User string
}

// Config says what to drive and how hard.
type Config struct {
	// Targets are the servers' base URLs; users are spread over them.
	Targets []string
	// Users is the number of simulated users, each running flows one
	// after another.
	Users int
	// Duration bounds the run; Count, when positive, bounds the number of
	// flows across all users. The run ends at whichever comes first.
	Duration time.Duration
	Count    int
	// Token returns a bearer token for a user id.
	Token func(ctx context.Context, user string) (string, error)
	// Admin is a platform owner, who creates the run's tenant.
	Admin string
	// AllowRemote allows targets that are not on this machine.
	AllowRemote bool
	// Progress, when set, gets a line a second while the run goes.
	Progress io.Writer
	// Client sends the requests; a client with a 30 s timeout when nil.
	Client *http.Client
	// OnAck, when set, is called for every acknowledged command, from the
	// users' goroutines.
	OnAck func(Ack)
	// RunID names the tenant and users; random when empty.
	RunID string
	// Mix is what each flow does: MixFlow (the default when empty),
	// MixStart or MixClaimComplete.
	Mix string
	// Cases is, for MixClaimComplete, the number of cases each user starts
	// before the clock runs (default 100); a user whose cases are used up
	// stops.
	Cases int
}

// The mixes a run can make.
const (
	// MixFlow is a user's whole round: start, read, team change, both
	// inboxes, claim, save, complete.
	MixFlow = "flow"
	// MixStart only starts cases.
	MixStart = "start"
	// MixClaimComplete only claims and completes the Review tasks of cases
	// started before the clock runs.
	MixClaimComplete = "claim-complete"
)

// Mixes lists the mixes, the default first.
var Mixes = []string{MixFlow, MixStart, MixClaimComplete}

// maxCasesPerUser bounds --cases: the pre-started cases are held in memory.
const maxCasesPerUser = 100_000

// Result is what a run measured.
type Result struct {
	Stats   *Stats
	Elapsed time.Duration
	Flows   int64
	Tenant  string
}

// CheckTarget refuses a target that is not an http(s) URL of this machine,
// unless remote targets are allowed: a load run against someone else's
// server by a typo is an attack.
func CheckTarget(target string, allowRemote bool) error {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("target %q is not an http:// or https:// URL", target)
	}
	if allowRemote {
		return nil
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("target %q is not on this machine (loopback or localhost): pass --allow-remote to load a remote server", target)
}

func (c *Config) check() error {
	if len(c.Targets) == 0 {
		return errors.New("no target: give --target URL")
	}
	for _, t := range c.Targets {
		if err := CheckTarget(t, c.AllowRemote); err != nil {
			return err
		}
	}
	if c.Users < 1 || c.Users > maxRunUsers {
		return fmt.Errorf("users must be between 1 and %d, not %d", maxRunUsers, c.Users)
	}
	if c.Duration <= 0 && c.Count <= 0 {
		return errors.New("give a positive --duration or --count: a run must end")
	}
	if c.Count < 0 {
		return fmt.Errorf("count must not be negative, not %d", c.Count)
	}
	if c.Token == nil {
		return errors.New("no way to get tokens")
	}
	if c.Mix == "" {
		c.Mix = MixFlow
	}
	if !slices.Contains(Mixes, c.Mix) {
		return fmt.Errorf("mix %q is not one of %s", c.Mix, strings.Join(Mixes, ", "))
	}
	if c.Cases == 0 {
		c.Cases = 100
	}
	if c.Cases < 1 || c.Cases > maxCasesPerUser {
		return fmt.Errorf("cases must be between 1 and %d, not %d", maxCasesPerUser, c.Cases)
	}
	return nil
}

// Run sets up the run's tenant, users and definition, then runs flows
// until the duration passes, count flows are done or ctx ends.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: requestTimeout}
	}
	if cfg.Admin == "" {
		cfg.Admin = "admin"
	}
	if cfg.RunID == "" {
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		cfg.RunID = hex.EncodeToString(b)
	}
	r := &runner{cfg: cfg, stats: newStats(), tenant: "load-" + cfg.RunID}
	users := make([]*user, cfg.Users)
	for i := range users {
		id := fmt.Sprintf("load-%s-u%d", cfg.RunID, i+1)
		tok, err := cfg.Token(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("token for %s: %w", id, err)
		}
		users[i] = &user{id: id, token: tok, target: strings.TrimRight(cfg.Targets[i%len(cfg.Targets)], "/")}
	}
	for i, u := range users {
		u.partner = users[(i+1)%len(users)].id
	}
	if err := r.setup(ctx, users); err != nil {
		return nil, err
	}
	if cfg.Mix == MixClaimComplete {
		if err := r.prestart(ctx, users); err != nil {
			return nil, err
		}
	}

	runCtx := ctx
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
	}
	start := time.Now()
	stopProgress := r.progress(start)
	var wg sync.WaitGroup
	for _, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A claim-complete user stops when its cases are used up.
			for runCtx.Err() == nil && (cfg.Mix != MixClaimComplete || len(u.ready) > 0) && r.take() {
				if !r.mixFlow(runCtx, u) {
					// A server that is down refuses at once: pause
					// rather than spin.
					select {
					case <-runCtx.Done():
					case <-time.After(failPause):
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	stopProgress()
	return &Result{Stats: r.stats, Elapsed: elapsed, Flows: r.started.Load(), Tenant: r.tenant}, nil
}

type user struct {
	id, token, target, partner string
	// ready are the Review task ids of the user's pre-started cases, by
	// case id, for MixClaimComplete.
	ready []readyTask
}

type runner struct {
	cfg     Config
	stats   *Stats
	tenant  string
	started atomic.Int64
}

// take reserves the next flow, false once count flows are reserved.
func (r *runner) take() bool {
	n := r.started.Add(1)
	if r.cfg.Count > 0 && n > int64(r.cfg.Count) {
		r.started.Add(-1)
		return false
	}
	return true
}

// progress prints a line a second until the returned stop is called.
func (r *runner) progress(start time.Time) (stop func()) {
	if r.cfg.Progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		var last uint64
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				total, errs := r.stats.counts()
				fmt.Fprintf(r.cfg.Progress, "%4.0fs  %d requests (%d in the last second), %d flows, errors: %d\n",
					now.Sub(start).Seconds(), total, total-last, r.started.Load(), errs)
				last = total
			}
		}
	}()
	return func() { close(done); <-finished }
}

// setup creates the tenant with the run's users (the first its owner)
// and deploys the model. It fails the run on any error: without them no
// flow can succeed.
func (r *runner) setup(ctx context.Context, users []*user) error {
	admin, err := r.cfg.Token(ctx, r.cfg.Admin)
	if err != nil {
		return fmt.Errorf("token for the platform owner %s: %w", r.cfg.Admin, err)
	}
	list := make([]map[string]any, len(users))
	for i, u := range users {
		list[i] = map[string]any{"userId": u.id, "isOwner": i == 0}
	}
	first := users[0]
	admin0 := &user{id: r.cfg.Admin, token: admin, target: first.target}
	if _, err := r.call(ctx, admin0, "POST", "/platform", map[string]any{"name": r.tenant, "users": list}, http.StatusNoContent); err != nil {
		return fmt.Errorf("create tenant %s as %s: %w (is the server in --dev mode on the same data dir, with %s a platform owner? else use --token-command)",
			r.tenant, r.cfg.Admin, err, r.cfg.Admin)
	}
	if _, err := r.send(ctx, first, "POST", "/repository/deploy/"+Definition+"?tenant="+r.tenant, "application/xml",
		bytes.NewReader(reviewModel), http.StatusNoContent); err != nil {
		return fmt.Errorf("deploy the load model: %w", err)
	}
	return nil
}

// call sends a JSON request as u and wants the status; it answers the body.
func (r *runner) call(ctx context.Context, u *user, method, path string, body any, want int) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(data)
	}
	return r.send(ctx, u, method, path, "application/json", rd, want)
}

// maxBody bounds what is read of a response.
const maxBody = 4 << 20

func (r *runner) send(ctx context.Context, u *user, method, path, contentType string, body io.Reader, want int) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, u.target+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+u.token)
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := r.cfg.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, trim(data))
	}
	return data, nil
}

func trim(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
