package service_test

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/service"
)

// logLines is a slog handler that keeps every record, for tests that
// count what a worker logs.
type logLines struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLines) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logLines) WithGroup(string) slog.Handler            { return l }
func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, r.Clone())
	return nil
}

// count is how many records at level start with prefix.
func (l *logLines) count(level slog.Level, prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.recs {
		if r.Level == level && strings.HasPrefix(r.Message, prefix) {
			n++
		}
	}
	return n
}

// attr is the value of key on the first record with message msg.
func (l *logLines) attr(msg, key string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.recs {
		if r.Message != msg {
			continue
		}
		v := ""
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == key {
				v = a.Value.String()
				return false
			}
			return true
		})
		return v
	}
	return ""
}

func (l *logLines) dump(t *testing.T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.recs {
		t.Logf("%s %s %s", r.Time.Format("15:04:05.000"), r.Level, r.Message)
	}
}

// failedQueries counts the statements that failed, a worker's attempts.
type failedQueries struct{ n atomic.Int64 }

func (f *failedQueries) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}
func (f *failedQueries) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if e.Err != nil && !errors.Is(e.Err, sql.ErrNoRows) {
		f.n.Add(1)
	}
}

// workerRig is a service over d with a due-soon alarm timer and a stored
// HTTP process call, neither handled yet: its workers are not running.
type workerRig struct {
	svc      *service.Service
	logs     *logLines
	fired    chan firing
	requests atomic.Int64
	failed   *failedQueries
}

func newWorkerRig(t *testing.T, d *db.DB) *workerRig {
	t.Helper()
	r := &workerRig{logs: &logLines{}, fired: make(chan firing, 10), failed: &failedQueries{}}
	registry := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		r.requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"rate": 3, "name": "Ann"}`))
	}))
	t.Cleanup(registry.Close)
	hooked := &db.DB{DB: d.WithQueryHook(r.failed), Flavor: d.Flavor}
	r.svc = service.New(hooked, service.Config{PlatformOwners: []string{"admin"}, Logger: slog.New(r.logs),
		TimerFired: func(tm db.DueTimer, at time.Time) { r.fired <- firing{tm, at} }})
	ctx, owner, tenant := context.Background(), true, "acme"
	if _, _, err := r.svc.CreateTenant(ctx, auth.Identity{UserID: "admin"}, "acme", []service.UserInput{{UserID: "alice", IsOwner: &owner}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alarm", "permitfee"} {
		xml, err := os.ReadFile("../testdata/cases/" + name + ".xml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.svc.DeployDefinition(ctx, alice, &tenant, name, xml); err != nil {
			t.Fatal(err)
		}
	}
	startAlarm(t, r.svc)
	if _, err := r.svc.StartCase(ctx, alice, service.StartCaseInput{Definition: "permitfee", Tenant: "acme",
		Inputs: map[string]any{"Request": map[string]any{"registry": registry.URL, "applicant": "ann", "area": 40, "urgent": true}}}); err != nil {
		t.Fatal(err)
	}
	r.failed.n.Store(0)
	return r
}

// run starts both workers as the server does, with its default interval,
// until the test ends.
func (r *workerRig) run(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); r.svc.RunTimers(ctx, 200*time.Millisecond) }()
	go func() { defer wg.Done(); r.svc.RunProcessCalls(ctx, 200*time.Millisecond) }()
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// resumes waits until the timer fired and the call was made and
// reported, and checks each happened once.
func (r *workerRig) resumes(t *testing.T, d *db.DB, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	select {
	case <-r.fired:
	case <-time.After(within):
		r.logs.dump(t)
		t.Fatalf("the timer did not fire within %v of the database coming back", within)
	}
	took := time.Since(start)
	dbtest.Until(t, within, "the process call is made and reported", func() (bool, error) {
		var n int
		err := d.NewSelect().Table("process_outbox").ColumnExpr("count(*)").Scan(context.Background(), &n)
		return n == 0 && r.requests.Load() > 0, err
	})
	if _, due, err := db.NextTimerDue(context.Background(), d); err != nil || due {
		t.Fatalf("a timer is left after it fired: %v %v", due, err)
	}
	select {
	case f := <-r.fired:
		t.Fatalf("the timer fired twice: %+v", f.timer)
	default:
	}
	if n := r.requests.Load(); n != 1 {
		t.Fatalf("the process call was made %d times", n)
	}
	return took
}

// TestWorkersPauseForDatabaseOutage: while the database cannot be reached
// the timer runner and the outbox worker each warn once, log no error,
// and look again after pauses that grow to a few seconds rather than at
// every poll; once it is back they resume within the longest pause, say
// so once, and the timer that came due meanwhile fires once and the
// waiting call is made once.
func TestWorkersPauseForDatabaseOutage(t *testing.T) {
	d, proxy := dbtest.OpenBehindProxy(t)
	r := newWorkerRig(t, d)
	proxy.SetDown(true)
	r.run(t)
	// The server's interval is 200 ms: without pauses, each worker would
	// look 15 times in this window and log an error each time.
	const window = 3 * time.Second
	time.Sleep(window)
	attempts := r.failed.n.Load()
	for _, what := range []string{"timers", "process calls"} {
		if n := r.logs.count(slog.LevelWarn, "database unavailable; "+what+" paused"); n != 1 {
			r.logs.dump(t)
			t.Fatalf("%d warnings that %s paused; want 1", n, what)
		}
	}
	if n := r.logs.count(slog.LevelError, ""); n != 0 {
		r.logs.dump(t)
		t.Fatalf("%d errors logged during the outage; want none", n)
	}
	// 100 ms doubling, with jitter down to half: at most 6 looks in 3 s
	// per worker; a look may send two statements.
	if attempts < 2 || attempts > 2*2*6 {
		t.Fatalf("%d failed statements in %v", attempts, window)
	}
	proxy.SetDown(false)
	took := r.resumes(t, d, 10*time.Second)
	if took > 5*time.Second+time.Second {
		t.Errorf("the timer fired %v after the database came back; the longest pause is 5 s", took)
	}
	dbtest.Until(t, 10*time.Second, "both workers say they resumed", func() (bool, error) {
		return r.logs.count(slog.LevelInfo, "database available again; timers resumed") == 1 &&
			r.logs.count(slog.LevelInfo, "database available again; process calls resumed") == 1, nil
	})
	down, err := time.ParseDuration(r.logs.attr("database available again; timers resumed", "down_for"))
	if err != nil || down < window {
		t.Errorf("down_for = %v (%v); the outage lasted over %v", down, err, window)
	}
	if n := r.logs.count(slog.LevelWarn, "database unavailable"); n != 2 {
		r.logs.dump(t)
		t.Errorf("%d outage warnings in all; want 2", n)
	}
	t.Logf("%d failed statements in a %v outage; timer fired %v after the database came back; down_for %v",
		attempts, window, took.Round(time.Millisecond), down)
}

// TestWorkersBackOffOnErrors: a fault that is not an outage (the workers'
// tables are missing) is logged at ERROR on every look, but the looks
// back off as for an outage, so a persistent fault cannot spin; once the
// fault is repaired, the work resumes and happens once.
func TestWorkersBackOffOnErrors(t *testing.T) {
	for _, flavor := range dbtest.Flavors() {
		t.Run(string(flavor), func(t *testing.T) {
			d := dbtest.Open(t, flavor)
			r := newWorkerRig(t, d)
			rename := func(from, to string) {
				t.Helper()
				for _, table := range []string{"case_timers", "process_outbox"} {
					if _, err := d.ExecContext(context.Background(), "ALTER TABLE "+table+from+" RENAME TO "+table+to); err != nil {
						t.Fatal(err)
					}
				}
			}
			rename("", "_away")
			r.run(t)
			const window = 3 * time.Second
			time.Sleep(window)
			timers := r.logs.count(slog.LevelError, "firing timers failed") + r.logs.count(slog.LevelError, "reading the next timer failed")
			calls := r.logs.count(slog.LevelError, "claiming a process call failed") + r.logs.count(slog.LevelError, "reading the next process call failed")
			// Without pauses: 15 looks in the window, each logging once or
			// twice; with them, at most 6 (7 for a slow clock).
			if timers < 2 || timers > 7 || calls < 2 || calls > 7 {
				r.logs.dump(t)
				t.Fatalf("%d timer errors and %d outbox errors logged in %v; want 2 to 7 each", timers, calls, window)
			}
			if n := r.logs.count(slog.LevelWarn, "database unavailable"); n != 0 {
				t.Fatalf("a missing table is not an outage, yet %d warnings say so", n)
			}
			rename("_away", "")
			took := r.resumes(t, d, 10*time.Second)
			t.Logf("%s: %d timer and %d outbox errors logged in %v; the timer fired %v after the repair",
				flavor, timers, calls, window, took.Round(time.Millisecond))
		})
	}
}

// TestProcessCallMetricsFeed: the worker tells a WorkerObserver of the
// call it made, with its kind and outcome, and of the call stored.
func TestProcessCallMetricsFeed(t *testing.T) {
	for _, flavor := range dbtest.Flavors() {
		t.Run(string(flavor), func(t *testing.T) {
			obs := &countingObserver{}
			d := dbtest.Open(t, flavor)
			registry := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusTeapot)
			}))
			t.Cleanup(registry.Close)
			svc := service.New(d, service.Config{PlatformOwners: []string{"admin"}, Observer: obs})
			ctx, owner, tenant := context.Background(), true, "acme"
			if _, _, err := svc.CreateTenant(ctx, auth.Identity{UserID: "admin"}, "acme", []service.UserInput{{UserID: "alice", IsOwner: &owner}}); err != nil {
				t.Fatal(err)
			}
			xml, err := os.ReadFile("../testdata/cases/permitfee.xml")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.DeployDefinition(ctx, alice, &tenant, "permitfee", xml); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.StartCase(ctx, alice, service.StartCaseInput{Definition: "permitfee", Tenant: "acme",
				Inputs: map[string]any{"Request": map[string]any{"registry": registry.URL, "applicant": "ann", "area": 40}}}); err != nil {
				t.Fatal(err)
			}
			if n, err := svc.RunDueCalls(ctx); n != 1 || err != nil {
				t.Fatalf("RunDueCalls = %d, %v", n, err)
			}
			obs.mu.Lock()
			defer obs.mu.Unlock()
			if obs.stored != 1 || len(obs.outcomes) != 1 || obs.outcomes[0] != "http failed" || obs.took <= 0 {
				t.Fatalf("stored %d, outcomes %v, took %v", obs.stored, obs.outcomes, obs.took)
			}
		})
	}
}

// countingObserver is a service.Observer and WorkerObserver that records
// the outbox's events.
type countingObserver struct {
	mu       sync.Mutex
	stored   int
	outcomes []string
	took     time.Duration
}

func (o *countingObserver) CommandStarted(ctx context.Context, _ string) (context.Context, func(service.CommandDone)) {
	return ctx, func(service.CommandDone) {}
}
func (o *countingObserver) TimerFired(time.Time, time.Time) {}
func (o *countingObserver) WorkerFailed(string, bool)       {}
func (o *countingObserver) WorkerPaused(string, bool)       {}
func (o *countingObserver) ProcessCallDropped(kind string)  { o.add(kind+" dropped", 0) }
func (o *countingObserver) ProcessCallsStored(n int)        { o.mu.Lock(); o.stored += n; o.mu.Unlock() }
func (o *countingObserver) ProcessCallStarted(kind string) func(string, time.Duration) {
	return func(outcome string, took time.Duration) { o.add(kind+" "+outcome, took) }
}

func (o *countingObserver) add(outcome string, took time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.outcomes = append(o.outcomes, outcome)
	o.took += took
}

var _ service.WorkerObserver = (*countingObserver)(nil)

// TestTimerHeldElsewhereDoesNotSpin: while a command of another replica
// holds the case of a due timer, the runner looks again after a short
// pause rather than at once, and fires the timer once the case is free.
func TestTimerHeldElsewhereDoesNotSpin(t *testing.T) {
	if dbtest.DatabaseURL() == "none" {
		t.Skip("needs PostgreSQL: SQLite has no row locks")
	}
	d := dbtest.Open(t, db.Postgres)
	fired := make(chan firing, 10)
	setup := alarmService(t, d, fired, true)
	id := startAlarm(t, setup)
	ctx := context.Background()
	holder, err := d.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Rollback() }()
	if _, err := holder.ExecContext(ctx, "SELECT id FROM cases WHERE id = ? FOR UPDATE", id); err != nil {
		t.Fatal(err)
	}
	dbtest.Until(t, 5*time.Second, "the alarm is due", func() (bool, error) {
		due, ok, err := db.NextTimerDue(ctx, d)
		return ok && !due.After(time.Now()), err
	})
	count := &dbtest.Statements{}
	runner := service.New(&db.DB{DB: d.WithQueryHook(count), Flavor: d.Flavor}, service.Config{
		TimerFired: func(tm db.DueTimer, at time.Time) { fired <- firing{tm, at} }})
	runTimers(t, runner, 200*time.Millisecond)
	const window = 500 * time.Millisecond
	time.Sleep(window)
	n := count.Count()
	// A look is a handful of statements; with a 10 ms pause at most 50
	// looks fit in the window, without one thousands.
	if n > 50*8 {
		t.Fatalf("%d statements in %v while the timer's case was held", n, window)
	}
	select {
	case f := <-fired:
		t.Fatalf("the timer fired while its case was held: %+v", f.timer)
	default:
	}
	if err := holder.Commit(); err != nil {
		t.Fatal(err)
	}
	if f := waitFired(t, fired); f.timer.CaseID != id {
		t.Fatalf("fired %+v", f.timer)
	}
	t.Logf("%d statements in %v while a due timer's case was held", n, window)
}
