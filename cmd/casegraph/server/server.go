package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/resolvers"
	"github.com/casegraph/casegraph/rest"
	"github.com/casegraph/casegraph/service"
	"github.com/casegraph/casegraph/telemetry"
)

// Server is an assembled CaseGraph: database, service and HTTP handler.
type Server struct {
	cfg      Config
	db       *db.DB
	svc      *service.Service
	verifier *auth.Verifier
	logger   *slog.Logger
	handler  http.Handler
	// inFlight holds a token per request being served.
	inFlight chan struct{}
	// bodies bounds the request bodies read and held at once.
	bodies *bodyBudget
	// metrics is nil when cfg.NoMetrics.
	metrics *telemetry.Metrics
	admin   http.Handler
	// dev is the development issuer; nil unless cfg.Dev.
	dev *auth.DevIssuer
}

// New opens and migrates the database and assembles the server. The caller
// must Close it.
func New(ctx context.Context, cfg Config, logger *slog.Logger) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}

	authCfg := auth.Config{Issuers: cfg.OIDCIssuers, KeysURL: cfg.OIDCKeysURL, UserIDClaim: cfg.UserIDClaim,
		Audience: cfg.OIDCAudience, Leeway: cfg.TokenLeeway}
	// The token clock stays real: a test moving case time must not expire
	// its own tokens.
	var dev *auth.DevIssuer
	if cfg.Dev {
		var err error
		if dev, err = auth.LoadOrCreateDevIssuer(cfg.DataDir); err != nil {
			return nil, err
		}
		authCfg.Dev = dev
	}
	verifier, err := auth.NewVerifier(authCfg)
	if err != nil {
		return nil, err
	}

	d, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	applied, err := d.Migrate(ctx)
	if err != nil {
		d.Close()
		return nil, err
	}
	var metrics *telemetry.Metrics
	if !cfg.NoMetrics {
		metrics = telemetry.NewMetrics()
		metrics.AddDB(d.DB.DB, string(d.Flavor))
		metrics.AddSnapshotCache(func() (int64, int64, int) {
			s := db.CachedSnapshots()
			return s.Hits, s.Misses, s.Bytes
		})
	}
	if cfg.TracerProvider != nil {
		d.DB = d.WithQueryHook(telemetry.SQLHook(cfg.TracerProvider, string(d.Flavor)))
	}
	if len(applied) > 0 {
		logger.InfoContext(ctx, "database migrated", "migrations", strings.Join(applied, ","), "database", string(d.Flavor))
	}

	anonymous, err := loadAnonymous(cfg.AnonymousConfig)
	if err != nil {
		return nil, err
	}
	var builtAt time.Time
	if cfg.Version.BuiltAt != "" {
		builtAt, _ = time.Parse(time.RFC3339, cfg.Version.BuiltAt)
	}
	svc := service.New(d, service.Config{
		PlatformOwners:       cfg.PlatformOwners,
		ClientApps:           cfg.ClientApps,
		ArchiveDir:           cfg.ArchiveDir,
		DefaultTenant:        cfg.DefaultTenant,
		Anonymous:            anonymous,
		ForceRecovery:        cfg.ForceRecovery,
		OnlyTenantUsersStart: cfg.OnlyTenantUsersStart,
		DevSignIn:            dev != nil,
		Version: service.VersionInfo{
			Name: "casegraph", Version: cfg.Version.Version, GitCommit: cfg.Version.GitCommit, BuiltAt: builtAt,
		},
		IdentityHealth:   func(context.Context) (bool, string) { return verifier.Health() },
		Logger:           logger,
		Observer:         telemetry.NewObserver(metrics, cfg.TracerProvider),
		SubscriberBuffer: cfg.LiveBuffer,
		TimerWorkers:     cfg.TimerWorkers,
		Now:              cfg.Now,
		Process: service.ProcessConfig{Timeout: cfg.ProcessTimeout, Workers: cfg.ProcessWorkers, AllowHosts: cfg.HTTPAllow,
			SMTP: service.SMTPConfig{Addr: cfg.SMTPAddr, User: cfg.SMTPUser, Password: cfg.SMTPPassword, From: cfg.SMTPFrom}},
		Limits: service.Limits{IdentifierLength: cfg.MaxIdentifierLength, TeamMembers: cfg.MaxTeamMembers,
			TenantUsers: cfg.MaxTenantUsers, RolesPerUser: cfg.MaxRolesPerUser, CaseFileBytes: cfg.MaxCaseFileBytes},
	})

	if metrics != nil {
		metrics.SetLive(svc.LiveStats)
	}
	s := &Server{cfg: cfg, db: d, svc: svc, verifier: verifier, logger: logger, inFlight: make(chan struct{}, cfg.MaxInFlight),
		bodies: &bodyBudget{max: maxBufferedBodies}, metrics: metrics, dev: dev}
	s.handler = s.routes()
	s.admin = s.adminRoutes()
	return s, nil
}

// routes builds the HTTP handler: GraphQL, GraphiQL and the REST paths,
// behind the middleware every request passes.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	api := rest.New(s.svc, s.verifier, s.logger)
	if s.svc.AnonymousEnabled() {
		api.EnableAnonymous(rest.RateLimit{PerMinute: s.cfg.AnonymousRate, Burst: s.cfg.AnonymousBurst})
	}
	api.Register(mux)
	var gqlExtensions []graphql.HandlerExtension
	if s.metrics != nil {
		gqlExtensions = append(gqlExtensions, telemetry.GraphQLMetrics(s.metrics))
		if s.cfg.AdminAddr == "" {
			mux.Handle("GET /metrics", s.metrics.Handler())
		}
	}
	if s.cfg.TracerProvider != nil {
		gqlExtensions = append(gqlExtensions, telemetry.GraphQLTracing(s.cfg.TracerProvider))
	}
	gql := resolvers.NewHandler(s.svc, s.verifier, s.logger, resolvers.Limits{MaxCost: s.cfg.GraphQLMaxCost, MaxDepth: s.cfg.GraphQLMaxDepth,
		MaxAliases: s.cfg.GraphQLMaxAliases, MaxQueryBytes: s.cfg.GraphQLMaxQueryBytes, MaxResponseBytes: s.cfg.MaxResponseBytes,
		MaxLiveConnections: s.cfg.LiveConnections, MaxLiveConnectionsPerUser: s.cfg.LiveConnectionsPerUser,
		OperationTimeout: s.cfg.RequestTimeout}, gqlExtensions...)
	mux.Handle("GET /graphql", gql)
	mux.Handle("POST /graphql", gql)
	mux.Handle("GET /graphiql", resolvers.GraphiQL("/graphql"))
	mux.Handle("GET /graphiql/", resolvers.GraphiQL("/graphql"))
	mux.Handle("GET /inbox", resolvers.Inbox())
	mux.Handle("GET /inbox/", resolvers.Inbox())
	if s.dev != nil {
		s.registerDevSignIn(mux)
	}
	// The reference engine serves static files for any GET path, so an
	// unknown GET is 404 and any other unknown request 405; clients rely
	// on the 405.
	unknown := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			writeText(w, http.StatusNotFound, "The requested resource could not be found but may be available again in the future.")
			return
		}
		methodNotAllowed(mux, w, r)
	})
	mux.Handle("/", unknown)
	return s.traced(s.middleware(rest.UncleanPaths(mux, unknown)))
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// AdminHandler is the handler of the admin listener: probes, metrics and
// profiles.
func (s *Server) AdminHandler() http.Handler { return s.admin }

// Service is the server's service layer.
func (s *Server) Service() *service.Service { return s.svc }

// DB is the server's database.
func (s *Server) DB() *db.DB { return s.db }

// Close releases the database, once the notifications of committed
// commands are sent (or given up: at most service.NotifyTimeout).
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), service.NotifyTimeout+time.Second)
	defer cancel()
	s.svc.WaitNotified(ctx)
	return s.db.Close()
}

// ListenAndServe serves on the configured address until ctx ends, then
// drains in-flight requests for up to drain before it returns.
func (s *Server) ListenAndServe(ctx context.Context, drain time.Duration) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.cfg.Addr, err)
	}
	return s.Serve(ctx, ln, drain)
}

// Serve serves on ln until ctx ends, then drains in-flight requests.
func (s *Server) Serve(ctx context.Context, ln net.Listener, drain time.Duration) error {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      120 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc, adminErr := make(chan error, 1), make(chan error, 1)
	var admin *http.Server
	if s.cfg.AdminAddr != "" {
		adminLn, err := net.Listen("tcp", s.cfg.AdminAddr)
		if err != nil {
			return fmt.Errorf("listen on %s (CASEGRAPH_ADMIN_ADDR): %w", s.cfg.AdminAddr, err)
		}
		// A CPU profile or trace runs for its seconds parameter (30 s by
		// default), so the write timeout leaves room for it.
		admin = &http.Server{Handler: s.admin, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 5 * time.Minute,
			ErrorLog: srv.ErrorLog, BaseContext: srv.BaseContext}
		defer admin.Close()
		go func() {
			if err := admin.Serve(adminLn); !errors.Is(err, http.ErrServerClosed) {
				adminErr <- fmt.Errorf("admin listener: %w", err)
			}
		}()
		s.logger.InfoContext(ctx, "admin listener (metrics, probes, pprof)", "addr", adminLn.Addr().String())
	}
	go func() { errc <- srv.Serve(ln) }()
	timersDone := make(chan struct{})
	timersCtx, stopTimers := context.WithCancel(ctx)
	go func() {
		defer close(timersDone)
		s.svc.RunTimers(timersCtx, s.cfg.TimerInterval)
	}()
	defer func() { <-timersDone }()
	callsDone := make(chan struct{})
	go func() {
		defer close(callsDone)
		// Outbox rows stored by other replicas are seen within the
		// timer interval, like their timers.
		s.svc.RunProcessCalls(timersCtx, s.cfg.TimerInterval)
	}()
	defer func() { <-callsDone }()
	liveDone := make(chan struct{})
	go func() {
		defer close(liveDone)
		s.svc.RunLive(timersCtx)
	}()
	defer func() { <-liveDone }()
	// Runs first: a listener that fails must not leave the wait above
	// blocked on a context that never ends.
	defer stopTimers()
	s.logger.InfoContext(ctx, "casegraph listening", "addr", ln.Addr().String(), "database", string(s.db.Flavor),
		"graphiql", "http://"+displayAddr(ln.Addr())+"/graphiql")

	select {
	case err := <-errc:
		return err
	case err := <-adminErr:
		_ = srv.Close()
		return err
	case <-ctx.Done():
	}
	s.logger.Info("shutting down; draining in-flight requests", "timeout", drain.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if admin != nil {
		// The probes go first, so nobody mistakes a draining replica for a
		// ready one; in-flight profiles are cut short.
		_ = admin.Close()
	}
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}
