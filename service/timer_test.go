package service_test

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/service"
)

type firing struct {
	timer   db.DueTimer
	firedAt time.Time
}

// alarmService is a service over d that reports fired timers on fired;
// the first one made creates tenant acme and deploys alarm.xml.
func alarmService(t *testing.T, d *db.DB, fired chan<- firing, setup bool) *service.Service {
	t.Helper()
	svc := service.New(d, service.Config{PlatformOwners: []string{"admin"},
		TimerFired: func(tm db.DueTimer, at time.Time) { fired <- firing{tm, at} }})
	if !setup {
		return svc
	}
	owner, tenant := true, "acme"
	if _, _, err := svc.CreateTenant(context.Background(), auth.Identity{UserID: "admin"}, "acme", []service.UserInput{{UserID: "alice", IsOwner: &owner}}); err != nil {
		t.Fatal(err)
	}
	xml, err := os.ReadFile("../testdata/cases/alarm.xml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.DeployDefinition(context.Background(), alice, &tenant, "alarm", xml); err != nil {
		t.Fatal(err)
	}
	return svc
}

func runTimers(t *testing.T, svc *service.Service, poll time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); svc.RunTimers(ctx, poll) }()
	t.Cleanup(func() { cancel(); <-done })
}

func startAlarm(t *testing.T, svc *service.Service) string {
	t.Helper()
	started, err := svc.StartCase(context.Background(), alice, service.StartCaseInput{Definition: "alarm", Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	return started.ID
}

func waitFired(t *testing.T, fired <-chan firing) firing {
	t.Helper()
	select {
	case f := <-fired:
		return f
	case <-time.After(30 * time.Second):
		// Far beyond the half second the timer needs, far below the hour
		// the runner polls at: only scheduling fires it in time.
		t.Fatal("the timer did not fire")
	}
	return firing{}
}

// TestTimerFiresAtItsMoment: the runner polls only once an hour, yet a
// timer stored by a command of the same process fires at its moment: the
// command wakes the runner, which sleeps until the timer is due.
func TestTimerFiresAtItsMoment(t *testing.T) {
	for _, flavor := range []db.Dialect{db.Postgres, db.SQLite} {
		t.Run(string(flavor), func(t *testing.T) {
			fired := make(chan firing, 10)
			svc := alarmService(t, dbtest.Open(t, flavor), fired, true)
			runTimers(t, svc, time.Hour)
			id := startAlarm(t, svc)
			f := waitFired(t, fired)
			if f.timer.CaseID != id || f.firedAt.Before(f.timer.DueAt) {
				t.Fatalf("fired %+v at %v", f.timer, f.firedAt)
			}
			t.Logf("%s: the PT0.5S timer fired %v after its moment", flavor, f.firedAt.Sub(f.timer.DueAt))
			c, err := svc.GetCase(context.Background(), alice, id)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range c.State.PlanItems {
				if p.Name == "Wake up" && p.State != "Active" {
					t.Fatalf("Wake up is %s after the alarm", p.State)
				}
			}
		})
	}
}

// TestTimersOfOtherReplicas: two replicas on one database, one storing
// timers and both running timers: each timer fires once, the ones stored
// by the other replica found by polling.
func TestTimersOfOtherReplicas(t *testing.T) {
	for _, flavor := range []db.Dialect{db.Postgres, db.SQLite} {
		t.Run(string(flavor), func(t *testing.T) {
			d := dbtest.Open(t, flavor)
			fired := make(chan firing, 100)
			writer := alarmService(t, d, fired, true)
			other := alarmService(t, d, fired, false)
			runTimers(t, writer, 50*time.Millisecond)
			runTimers(t, other, 50*time.Millisecond)
			want := map[string]bool{}
			for range 10 {
				want[startAlarm(t, writer)] = true
			}
			seen := map[string]bool{}
			var worst time.Duration
			for range len(want) {
				f := waitFired(t, fired)
				if !want[f.timer.CaseID] || seen[f.timer.CaseID] {
					t.Fatalf("unexpected or second firing of %s", f.timer.CaseID)
				}
				seen[f.timer.CaseID] = true
				worst = max(worst, f.firedAt.Sub(f.timer.DueAt))
			}
			select {
			case f := <-fired:
				t.Fatalf("a timer fired twice: %+v", f.timer)
			case <-time.After(200 * time.Millisecond):
			}
			t.Logf("%s: 10 timers over 2 replicas, each fired once, at most %v late", flavor, worst)
		})
	}
}

// peakObserver records how many timer firings ran at once, at most.
type peakObserver struct {
	mu           sync.Mutex
	active, peak int
}

func (o *peakObserver) CommandStarted(ctx context.Context, kind string) (context.Context, func(service.CommandDone)) {
	if kind != "FireDueTimers" {
		return ctx, func(service.CommandDone) {}
	}
	o.mu.Lock()
	o.active++
	o.peak = max(o.peak, o.active)
	o.mu.Unlock()
	return ctx, func(service.CommandDone) {
		o.mu.Lock()
		o.active--
		o.mu.Unlock()
	}
}

func (o *peakObserver) TimerFired(time.Time, time.Time) {}

// TestTimersFireInParallel: timers that fall due together fire on several
// workers, each exactly once, up to TimerWorkers at a time: one worker
// alone fell ever further behind a load that set a timer per case started
// faster than it fired them.
func TestTimersFireInParallel(t *testing.T) {
	d := dbtest.Open(t, db.Postgres)
	fired := make(chan firing, 100)
	alarmService(t, d, fired, true)
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	obs := &peakObserver{}
	svc := service.New(d, service.Config{PlatformOwners: []string{"admin"}, TimerWorkers: 3, Observer: obs,
		Now:        func() time.Time { return time.Unix(0, clock.Load()) },
		TimerFired: func(tm db.DueTimer, at time.Time) { fired <- firing{tm, at} }})
	const cases = 60
	for range cases {
		startAlarm(t, svc)
	}
	clock.Add(int64(time.Hour)) // every alarm is due
	n, err := svc.FireDueTimers(context.Background())
	if err != nil || n != cases {
		t.Fatalf("FireDueTimers = %d, %v; want %d fired", n, err, cases)
	}
	seen := map[string]bool{}
	for range cases {
		f := <-fired
		if seen[f.timer.CaseID] {
			t.Fatalf("the timer of %s fired twice", f.timer.CaseID)
		}
		seen[f.timer.CaseID] = true
	}
	if len(fired) != 0 {
		t.Fatalf("%d more firings than timers", len(fired))
	}
	if obs.peak < 2 || obs.peak > 3 {
		t.Fatalf("at most %d timers fired at once, want 2 or 3 (TimerWorkers 3)", obs.peak)
	}
	var left int
	if err := d.NewRaw("SELECT count(*) FROM case_timers").Scan(context.Background(), &left); err != nil || left != 0 {
		t.Fatalf("%d timers left (%v), want none", left, err)
	}
	// Nothing due: one look, nothing fired.
	if n, err := svc.FireDueTimers(context.Background()); n != 0 || err != nil {
		t.Fatalf("FireDueTimers with nothing due = %d, %v", n, err)
	}
}
