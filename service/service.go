// Package service is CaseGraph's application layer, shared by the GraphQL
// and REST front doors. Every method takes the caller's identity, decides
// whether the caller may do what it asks (authorization lives here and
// nowhere else), runs the command in one database transaction, and returns
// plain values or an *Error of a Kind the front doors map to their status
// codes.
package service

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
)

// Config configures a Service.
type Config struct {
	// PlatformOwners are the user ids that may create, enable and disable
	// tenants; compared case-insensitively. They have no rights inside a
	// tenant unless they are its users.
	PlatformOwners []string
	// ClientApps are the `client_id` values of client applications that
	// may run commands on behalf of the user their request names in
	// On-Behalf-Of.
	ClientApps []string
	// ArchiveDir is the directory archived cases are written to; empty
	// turns archiving off (Unavailable).
	ArchiveDir string
	// DefaultTenant is used when a request names no tenant. Default "world".
	DefaultTenant string
	// Anonymous, when set, turns on anonymous case start; it must pass
	// its Check.
	Anonymous *AnonymousConfig
	// ForceRecovery allows rebuilding a case's read tables from its
	// recorded state (RecoverCase); off, RecoverCase is NotFound.
	ForceRecovery bool
	// OnlyTenantUsersStart refuses a case start by anyone who is not an
	// enabled user of the case's tenant, with the answer an unknown tenant
	// gets. Off (the reference engine's way), any caller with a valid
	// token may start a case in an enabled tenant, as a user of the
	// identity provider: a citizen applying for a permit, say.
	OnlyTenantUsersStart bool
	// DevSignIn lets DevAccounts and DevAccount answer: development mode
	// only. Off, they are NotFound.
	DevSignIn bool
	// Version describes the running build.
	Version VersionInfo
	// IdentityHealth reports on the identity providers for the health
	// endpoint; nil reports nothing.
	IdentityHealth func(ctx context.Context) (ok bool, description string)
	// HTTPClient calls task validators. Default: a client with a 10-second
	// timeout.
	HTTPClient *http.Client
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Logger receives the service's logs. Default: discard.
	Logger *slog.Logger
	// Limits bound the size of what a caller may send; zero fields take
	// their defaults (DefaultLimits).
	Limits Limits
	// TimerFired, when set, is called after each timer fired, with the
	// moment it was due and the moment it fired: a signal for tests and
	// monitoring. Timers fire on several goroutines at once.
	TimerFired func(t db.DueTimer, firedAt time.Time)
	// TimerWorkers bounds the timers one replica fires at once.
	// Default DefaultTimerWorkers.
	TimerWorkers int
	// Observer, when set, watches every command and timer firing (metrics,
	// traces).
	Observer Observer
	// Process configures the calls of process tasks (HTTP, mail).
	Process ProcessConfig
	// SubscriberBuffer is how many changes a live subscriber may fall
	// behind before it is dropped. Default DefaultSubscriberBuffer.
	SubscriberBuffer int
}

// DefaultTimerWorkers is how many timers a replica fires at once unless
// configured otherwise.
const DefaultTimerWorkers = 4

// Service runs CaseGraph's commands and queries.
type Service struct {
	db                   *db.DB
	platformOwners       map[string]bool
	clientApps           map[string]bool
	archiveDir           string
	defaultTenant        string
	anonymous            *AnonymousConfig
	forceRecovery        bool
	onlyTenantUsersStart bool
	devSignIn            bool
	version              VersionInfo
	identityHealth       func(ctx context.Context) (bool, string)
	now                  func() time.Time
	logger               *slog.Logger
	definitions          *definitionCache
	httpClient           *http.Client
	limits               Limits
	timerFired           func(db.DueTimer, time.Time)
	observer             Observer
	// live fans committed changes out to this process's subscribers.
	live *hub
	// notes sends committed changes to every replica (PostgreSQL).
	notes *notifier
	// liveListening is whether RunLive listens (PostgreSQL).
	liveListening atomic.Bool
	// timerWake tells RunTimers that a command of this process stored a
	// timer, which may be due before the one it waits for. It only saves
	// waiting: which timers are due is always read from the database.
	timerWake chan struct{}
	// timerBeat is when RunTimers last completed a pass (Unix ns; 0: it
	// never ran in this process) and timerPoll its longest sleep: the
	// timer-service point of the health report reads them.
	timerBeat, timerPoll atomic.Int64
	// timerWorkers bounds the timers this process fires at once.
	timerWorkers int
	process      ProcessConfig
	httpAllow    hostAllow
	processHTTP  *http.Client
	// callWake tells RunProcessCalls that a command of this process
	// stored a call.
	callWake chan struct{}
}

// New returns a Service over an open, migrated database.
func New(d *db.DB, cfg Config) *Service {
	s := &Service{
		db:                   d,
		platformOwners:       make(map[string]bool),
		clientApps:           make(map[string]bool),
		archiveDir:           cfg.ArchiveDir,
		defaultTenant:        cfg.DefaultTenant,
		anonymous:            cfg.Anonymous,
		forceRecovery:        cfg.ForceRecovery,
		onlyTenantUsersStart: cfg.OnlyTenantUsersStart,
		devSignIn:            cfg.DevSignIn,
		version:              cfg.Version,
		identityHealth:       cfg.IdentityHealth,
		now:                  cfg.Now,
		logger:               cfg.Logger,
		definitions:          newDefinitionCache(256),
		httpClient:           cfg.HTTPClient,
		limits:               cfg.Limits.withDefaults(),
		timerFired:           cfg.TimerFired,
		timerWorkers:         cmp.Or(max(cfg.TimerWorkers, 0), DefaultTimerWorkers),
		observer:             cfg.Observer,
		live:                 newHub(cfg.SubscriberBuffer),
		timerWake:            make(chan struct{}, 1),
		process:              cfg.Process.withDefaults(),
		httpAllow:            newHostAllow(cfg.Process.AllowHosts),
		callWake:             make(chan struct{}, 1),
	}
	s.processHTTP = newProcessHTTPClient(s.httpAllow, s.process.Timeout)
	s.live.audience = s.liveAudience
	if lo, ok := s.observer.(LiveObserver); ok {
		s.live.sent = lo.LiveEventSent
	}
	if s.httpClient == nil {
		s.httpClient = &http.Client{Timeout: 10 * time.Second}
	}
	for _, o := range cfg.PlatformOwners {
		if o = strings.TrimSpace(o); o != "" {
			s.platformOwners[strings.ToLower(o)] = true
		}
	}
	for _, c := range cfg.ClientApps {
		if c = strings.TrimSpace(c); c != "" {
			s.clientApps[c] = true
		}
	}
	if s.defaultTenant == "" {
		s.defaultTenant = "world"
	}
	if s.now == nil {
		s.now = time.Now
	}
	// The databases keep microseconds: an instant read from a case's state
	// and the same instant read from a row must be equal, on both doors.
	clock := s.now
	s.now = func() time.Time { return clock().UTC().Truncate(time.Microsecond) }
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.notes = newNotifier(d, s.logger, func(since time.Time) {
		s.live.stats.resyncs.Add(1)
		s.live.deliver(Change{Missed: since})
	})
	return s
}

// maxAttempts bounds how often a command that lost an optimistic-version
// race is run again before the caller gets a Conflict.
const maxAttempts = 5

// command runs fn in one transaction and commits it. When fn (or the commit)
// fails with db.ErrStaleVersion, another command won the race: the whole
// command runs again on fresh data, a bounded number of times; so it does
// after db.ErrRetry (its connection lost its prepared writes, and nothing
// was written). Errors come back classified.
func (s *Service) command(ctx context.Context, op string, fn func(ctx context.Context, tx bun.Tx) error) (err error) {
	return s.runCommand(ctx, op, false, func(ctx context.Context, idb bun.IDB) error { return fn(ctx, idb.(bun.Tx)) })
}

// errNeedsTx is returned by a command run as one batch (oneBatchCommand)
// that finds, before it has written anything, it must write more.
var errNeedsTx = errors.New("service: the command needs a transaction")

// oneBatchCommand is command for a command whose writes are, most often,
// one case's write batch and nothing else (a start case without sub cases
// or process tasks to start, a change of a root case without effects). On
// PostgreSQL fn then runs without a transaction block: its reads run as
// they come, and the batch, a multi-statement query, is a transaction of
// its own, all applied or none. That spares the BEGIN and the COMMIT. fn
// returns errNeedsTx, before it writes, when it has more to do (it checks
// with inTx): then it runs again in a transaction, as it does after it
// lost a version race (db.ErrStaleVersion). On SQLite, where the batch
// runs statement by statement, fn always runs in one.
func (s *Service) oneBatchCommand(ctx context.Context, op string, fn func(ctx context.Context, idb bun.IDB) error) error {
	return s.runCommand(ctx, op, s.db.Flavor == db.Postgres, fn)
}

// inTx reports whether idb is a transaction (see oneBatchCommand).
func inTx(idb bun.IDB) bool {
	_, ok := idb.(bun.Tx)
	return ok
}

func (s *Service) runCommand(ctx context.Context, op string, oneBatch bool, fn func(ctx context.Context, idb bun.IDB) error) (err error) {
	retries := 0
	if s.observer != nil {
		start := time.Now()
		var done func(CommandDone)
		ctx, done = s.observer.CommandStarted(ctx, commandKind(op))
		defer func() {
			done(CommandDone{Duration: time.Since(start), Retries: retries, Outcome: Outcome(err), Err: err})
		}()
	}
	timers, calls := new(bool), new(int)
	changes := new([]Change)
	ctx = context.WithValue(ctx, timersSetKey{}, timers)
	ctx = context.WithValue(ctx, callsAddedKey{}, calls)
	ctx = context.WithValue(ctx, changesKey{}, changes)
	ctx = context.WithValue(ctx, commandIDKey{}, newUUID())
	kind := commandKind(op)
	// What an attempt noted goes with it.
	forget := func() {
		*timers, *calls = false, 0
		*changes = nil
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		retries = attempt
		forget()
		if oneBatch {
			err = fn(ctx, s.db)
			if errors.Is(err, errNeedsTx) {
				oneBatch = false
				forget()
			}
		}
		if !oneBatch {
			err = s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error { return fn(ctx, tx) })
		}
		if err == nil && *timers {
			// Only now, committed, can the timer runner see the timer.
			s.wakeTimers()
		}
		if err == nil && *calls > 0 {
			s.wakeCalls()
			if w := s.workerObserver(); w != nil {
				w.ProcessCallsStored(*calls)
			}
		}
		if err == nil {
			// After the commit: subscribers read what was committed.
			s.publish(ctx, kind, *changes)
		}
		if !errors.Is(err, db.ErrStaleVersion) && !errors.Is(err, db.ErrRetry) {
			break
		}
		if oneBatch && errors.Is(err, db.ErrStaleVersion) {
			// A race lost without the case's lock: the next attempt waits
			// for the lock instead (caseChange), so no pause.
			oneBatch = false
			s.logger.DebugContext(ctx, "command lost a version race; retrying under the case's lock", "op", op)
			continue
		}
		s.logger.DebugContext(ctx, "command lost a version race; retrying", "op", op, "attempt", attempt+1)
		// A short, growing, jittered pause lets the winner finish.
		select {
		case <-ctx.Done():
			return wrap(op, ctx.Err())
		case <-time.After(time.Duration(1+rand.IntN(5<<attempt)) * time.Millisecond):
		}
	}
	return wrap(op, err)
}

type commandIDKey struct{}

// maxCorrelationID bounds the CorrelationId header a caller may send: it
// is stored with every event.
const maxCorrelationID = 200

// correlationID is what the events of a command are tied to: the
// request's CorrelationId header, else the command's own id, as in the
// reference engine.
func correlationID(ctx context.Context, who auth.Identity) (string, error) {
	if who.CorrelationID != "" {
		if len(who.CorrelationID) > maxCorrelationID {
			return "", Ef("service.correlationID", Invalid, "The CorrelationId header must not be longer than %d characters", maxCorrelationID)
		}
		if !utf8.ValidString(who.CorrelationID) {
			// It is stored with the events: PostgreSQL would refuse it.
			return "", E("service.correlationID", Invalid, "The CorrelationId header must be UTF-8 text")
		}
		return who.CorrelationID, nil
	}
	if id, ok := ctx.Value(commandIDKey{}).(string); ok {
		return id, nil
	}
	return newUUID(), nil
}

// isPlatformOwner reports whether userID is configured as a platform owner.
func (s *Service) isPlatformOwner(userID string) bool {
	return s.platformOwners[strings.ToLower(userID)]
}

// DefaultTenant is the tenant used when a request names none.
func (s *Service) DefaultTenant() string { return s.defaultTenant }

// Identity is the verified caller of a service method.
type Identity = auth.Identity
