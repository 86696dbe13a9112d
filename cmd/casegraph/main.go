// Command casegraph runs the CaseGraph case-management engine.
//
// Run "casegraph help" for the commands and "casegraph help serve" for the
// server's flags and their environment variables; docs/configuration.md
// describes every setting.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/telemetry"
)

// Set at build time with -ldflags "-X main.version=… -X main.commit=… -X main.builtAt=…".
var (
	version = "dev"
	commit  = ""
	builtAt = ""
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // the flags were listed, as asked
		}
		fmt.Fprintln(os.Stderr, "casegraph:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		printUsage(stdout)
		return nil
	}
	// Flags without a command are the server's flags, as before there were
	// other commands.
	cmd := "serve"
	if len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, stderr, nil)
	case "migrate":
		return migrate(ctx, args, stdout, stderr)
	case "token":
		return token(args, stdout, stderr)
	case "validate":
		return validate(args, stdout)
	case "load":
		return loadCommand(ctx, args, stdout, stderr)
	case "health":
		return health(ctx, args, stdout, stderr)
	case "version":
		printVersion(stdout)
		return nil
	case "help":
		return help(args, stdout)
	}
	return fmt.Errorf("unknown command %q; run \"casegraph help\" for the list", cmd)
}

// parseConfig reads the server configuration from flags, each defaulting to
// its environment variable, and refuses a value it cannot use, naming it.
func parseConfig(name string, args []string, stderr io.Writer) (server.Config, slog.Level, error) {
	fs, finish := configFlags(name, stderr)
	if err := fs.Parse(args); err != nil {
		return server.Config{}, 0, err
	}
	if fs.NArg() > 0 {
		return server.Config{}, 0, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	return finish()
}

// configFlags defines the flags of serve and migrate on a new flag set;
// finish, called after parsing, returns the configuration they give. The
// usage of every flag ends with its environment variable in parentheses:
// `casegraph help serve` lists the variables from there.
func configFlags(name string, stderr io.Writer) (fs *flag.FlagSet, finish func() (server.Config, slog.Level, error)) {
	fs = flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: casegraph %s [flags]\n\n", name)
		printFlags(stderr, fs)
	}
	var (
		cfg                       server.Config
		owners, issuers, logLevel string
		clientApps                string
		dev                       bool
	)
	fs.StringVar(&cfg.Addr, "addr", env("CASEGRAPH_ADDR", ":2027"), "listen address (CASEGRAPH_ADDR)")
	fs.StringVar(&cfg.DatabaseURL, "database-url", env("DATABASE_URL", ""), "postgres:// URL; empty for embedded SQLite (DATABASE_URL)")
	fs.StringVar(&cfg.DataDir, "data-dir", env("CASEGRAPH_DATA_DIR", "./data"), "directory of the SQLite file and the dev key (CASEGRAPH_DATA_DIR)")
	fs.StringVar(&owners, "platform-owners", env("CASEGRAPH_PLATFORM_OWNERS", ""), "comma-separated platform owner user ids (CASEGRAPH_PLATFORM_OWNERS)")
	fs.StringVar(&clientApps, "client-apps", env("CASEGRAPH_CLIENT_APPS", ""),
		"comma-separated client_id values of applications that may act On-Behalf-Of a user (CASEGRAPH_CLIENT_APPS)")
	fs.StringVar(&cfg.ArchiveDir, "archive-dir", env("CASEGRAPH_ARCHIVE_DIR", ""),
		"directory of archived cases' JSON documents; default the data dir's archive/ (CASEGRAPH_ARCHIVE_DIR)")
	fs.StringVar(&cfg.AnonymousConfig, "anonymous-config", env("CASEGRAPH_ANONYMOUS_CONFIG", ""),
		"JSON file configuring anonymous case start (POST /request/case/{type}); empty: off (CASEGRAPH_ANONYMOUS_CONFIG)")
	fs.BoolVar(&cfg.ForceRecovery, "force-recovery", envBool("CASEGRAPH_FORCE_RECOVERY"),
		"serve PATCH /debug/force-recovery/{caseId}, rebuilding a case's read tables from its recorded state (CASEGRAPH_FORCE_RECOVERY)")
	fs.BoolVar(&cfg.OnlyTenantUsersStart, "only-tenant-users-start", envBool("CASEGRAPH_ONLY_TENANT_USERS_START"),
		"only enabled users of a tenant may start cases in it; default: anyone with a valid token, as the reference engine (CASEGRAPH_ONLY_TENANT_USERS_START)")
	fs.StringVar(&issuers, "oidc-issuers", env("CASEGRAPH_OIDC_ISSUERS", ""), "comma-separated trusted issuer URLs (CASEGRAPH_OIDC_ISSUERS)")
	fs.StringVar(&cfg.OIDCKeysURL, "oidc-keys-url", env("CASEGRAPH_OIDC_KEYS_URL", ""), "static JWKS URL for a single issuer (CASEGRAPH_OIDC_KEYS_URL)")
	fs.StringVar(&cfg.UserIDClaim, "user-id-claim", env("CASEGRAPH_USER_ID_CLAIM", "sub"), "token claim holding the user id (CASEGRAPH_USER_ID_CLAIM)")
	fs.StringVar(&cfg.DefaultTenant, "default-tenant", env("CASEGRAPH_DEFAULT_TENANT", "world"), "tenant used when a request names none (CASEGRAPH_DEFAULT_TENANT)")
	fs.BoolVar(&dev, "dev", envBool("CASEGRAPH_DEV"), "development mode: trust a local signing key; platform owner defaults to admin (CASEGRAPH_DEV)")
	fs.StringVar(&logLevel, "log-level", env("CASEGRAPH_LOG_LEVEL", "info"), "debug, info, warn or error (CASEGRAPH_LOG_LEVEL)")
	cfg.RegisterFlags(fs)
	return fs, func() (server.Config, slog.Level, error) {
		if err := checkEnvBools("CASEGRAPH_DEV", "CASEGRAPH_FORCE_RECOVERY", "CASEGRAPH_ONLY_TENANT_USERS_START"); err != nil {
			return server.Config{}, 0, err
		}
		var level slog.Level
		if err := level.UnmarshalText([]byte(logLevel)); err != nil {
			return server.Config{}, 0, fmt.Errorf("invalid log level %q (CASEGRAPH_LOG_LEVEL or -log-level): use debug, info, warn or error", logLevel)
		}
		cfg.PlatformOwners = server.SplitList(owners)
		cfg.ClientApps = server.SplitList(clientApps)
		cfg.OIDCIssuers = server.SplitList(issuers)
		cfg.Dev = dev
		cfg.Version = buildInfo()
		return cfg, level, nil
	}
}

// serve runs the server until ctx ends: on ln when it is given (a test
// hands over a listener it opened on :0, so no other process can take the
// port in between), else on the configured address.
func serve(ctx context.Context, args []string, stderr io.Writer, ln net.Listener) error {
	cfg, level, err := parseConfig("serve", args, stderr)
	if err != nil {
		return err
	}
	logger := newLogger(stderr, level)
	if cfg.Dev {
		logger.Warn("DEVELOPMENT MODE: tokens signed with the local key in the data dir are trusted; " +
			"anyone who can read that key can act as any user. Never use --dev in production.")
	}
	tp, err := telemetry.TracerProviderFromEnv(ctx, cfg.Version.Version)
	if err != nil {
		return err
	}
	if tp != nil {
		cfg.TracerProvider = tp
		logger.Info("tracing on: spans go to the OTLP endpoint of the OTEL_* variables")
		defer func() {
			// The last batch of spans is flushed before the process ends.
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := tp.Shutdown(sctx); err != nil {
				logger.Warn("flushing the last spans failed", "err", err)
			}
		}()
	}
	srv, err := server.New(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer srv.Close()
	if ln != nil {
		return srv.Serve(ctx, ln, 30*time.Second)
	}
	return srv.ListenAndServe(ctx, 30*time.Second)
}

func migrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, _, err := parseConfig("migrate", args, stderr)
	if err != nil {
		return err
	}
	d, err := db.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return err
	}
	defer d.Close()
	applied, err := d.Migrate(ctx)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		fmt.Fprintln(stdout, "database is up to date")
	}
	for _, name := range applied {
		fmt.Fprintln(stdout, "applied", name)
	}
	return nil
}

func token(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", env("CASEGRAPH_DATA_DIR", "./data"), "directory of the dev key (CASEGRAPH_DATA_DIR)")
	ttl := fs.Duration("ttl", 24*time.Hour, "how long the token is valid")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: casegraph token [-data-dir DIR] [-ttl 24h] USERID")
	}
	dev, err := auth.LoadOrCreateDevIssuer(*dataDir)
	if err != nil {
		return err
	}
	tok, err := dev.Token(fs.Arg(0), time.Now(), *ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
	return nil
}

// newLogger logs JSON, or text when stderr is a terminal.
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewJSONHandler(w, opts)
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			h = slog.NewTextHandler(w, opts)
		}
	}
	return slog.New(server.LogHandler(h))
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

// envBool reads a boolean variable; checkEnvBools refuses one that is not
// a boolean, so that a typo never silently means false.
func envBool(name string) bool {
	b, _ := strconv.ParseBool(os.Getenv(name))
	return b
}

func checkEnvBools(names ...string) error {
	for _, name := range names {
		if v := os.Getenv(name); v != "" {
			if _, err := strconv.ParseBool(v); err != nil {
				return fmt.Errorf("invalid %s=%q: use true or false", name, v)
			}
		}
	}
	return nil
}
