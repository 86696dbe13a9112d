// Package server assembles CaseGraph: it opens and migrates the database,
// builds the token verifier, the service and both front doors, and serves
// them over HTTP with graceful shutdown. cmd/casegraph fills its Config from
// flags and environment; tests build a Config and call New.
package server

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// Config is the whole configuration of a CaseGraph server. Only
// cmd/casegraph reads flags and environment to fill it.
type Config struct {
	// Addr is the listen address. Default ":2027", the reference engine's
	// port. (CASEGRAPH_ADDR)
	Addr string
	// DatabaseURL selects the database: empty for the embedded SQLite file
	// casegraph.db in DataDir, postgres://… for PostgreSQL. (DATABASE_URL)
	DatabaseURL string
	// DataDir holds the SQLite file and the development signing key.
	// Default "./data". (CASEGRAPH_DATA_DIR)
	DataDir string
	// PlatformOwners may create, enable and disable tenants. Default: none,
	// or "admin" in development mode. (CASEGRAPH_PLATFORM_OWNERS)
	PlatformOwners []string
	// ClientApps are the client applications (a token's `client_id`
	// claim) that may run commands on behalf of the user named in a
	// request's On-Behalf-Of header. Default: none. (CASEGRAPH_CLIENT_APPS)
	ClientApps []string
	// ArchiveDir receives the JSON documents of archived cases (PUT
	// /storage/case/{id}/archive). Default DataDir/archive.
	// (CASEGRAPH_ARCHIVE_DIR)
	ArchiveDir string
	// AnonymousConfig names a JSON file that turns on anonymous case start
	// (POST /request/case/{type}): the anonymous user and the definitions
	// it may start, as docs/configuration.md shows. Default: none, and the
	// route is not served. (CASEGRAPH_ANONYMOUS_CONFIG)
	AnonymousConfig string
	// ForceRecovery serves PATCH /debug/force-recovery/{caseId}, which
	// rebuilds a case's read tables from its recorded state. Default false: the
	// route answers 404, as the reference engine's does when debug events
	// are not open. (CASEGRAPH_FORCE_RECOVERY)
	ForceRecovery bool
	// OnlyTenantUsersStart lets only enabled users of a tenant start cases
	// in it; others get the answer of an unknown tenant. Default false:
	// anyone with a valid token may, as in the reference engine.
	// (CASEGRAPH_ONLY_TENANT_USERS_START)
	OnlyTenantUsersStart bool
	// OIDCIssuers are the trusted token issuers, matched exactly against
	// `iss`. (CASEGRAPH_OIDC_ISSUERS)
	OIDCIssuers []string
	// OIDCKeysURL is a JWKS URL used instead of discovery, for a single
	// issuer. (CASEGRAPH_OIDC_KEYS_URL)
	OIDCKeysURL string
	// UserIDClaim is the token claim holding the user id. Default "sub".
	// (CASEGRAPH_USER_ID_CLAIM)
	UserIDClaim string
	// DefaultTenant is used when a request names no tenant. Default
	// "world". (CASEGRAPH_DEFAULT_TENANT)
	DefaultTenant string
	// Dev trusts a development issuer whose key is kept in DataDir, so that
	// `casegraph token USER` can mint tokens. Never in production.
	// (CASEGRAPH_DEV)
	Dev bool
	// Version describes the build; filled by cmd/casegraph.
	Version VersionInfo
	// Now is the clock; tests set it to move time. Default time.Now.
	Now func() time.Time
	// TimerInterval bounds how long the timer runner sleeps between looks
	// at the timers. Timers stored through this server wake it at once and
	// fire at their moment; the interval is the longest a timer stored
	// through another replica, due sooner than that, can be late. Default
	// 200ms.
	TimerInterval time.Duration
	// TimerWorkers bounds the timers one replica fires at once. Default
	// 4. (CASEGRAPH_TIMER_WORKERS)
	TimerWorkers int
	// AdminAddr, when set, is the address of a second listener serving
	// /metrics, /livez, /readyz and net/http/pprof, for operators only;
	// /metrics then leaves the main listener. Default empty: no admin
	// listener. (CASEGRAPH_ADMIN_ADDR)
	AdminAddr string
	// ProcessTimeout bounds one process-task call (an HTTP request, a
	// mail). Default 30s. (CASEGRAPH_PROCESS_TIMEOUT)
	ProcessTimeout time.Duration
	// ProcessWorkers bounds the process-task calls one replica makes at
	// once. Default 4. (CASEGRAPH_PROCESS_WORKERS)
	ProcessWorkers int
	// HTTPAllow lists the hosts HTTP process tasks may call: host,
	// host:port, *.domain. Empty: any host but link-local addresses.
	// (CASEGRAPH_HTTP_ALLOW)
	HTTPAllow []string
	// SMTPAddr, SMTPUser, SMTPPassword and SMTPFrom configure the mail
	// server of mail process tasks. (CASEGRAPH_SMTP_ADDR, _USER,
	// _PASSWORD, _FROM)
	SMTPAddr, SMTPUser, SMTPPassword, SMTPFrom string
	// TracerProvider receives a span per request, GraphQL operation,
	// command and SQL statement. Nil turns tracing off; cmd/casegraph
	// builds one from the OTEL_* variables.
	TracerProvider trace.TracerProvider
	// NoMetrics turns the Prometheus metrics off (no /metrics): the
	// overhead benchmark compares a server with and without them.
	NoMetrics bool

	// Limits is the rest of the configuration: what one request may send
	// and cost. Every field has a variable and a flag (RegisterFlags).
	Limits

	// flagErrs are environment values RegisterFlags could not read; Validate
	// reports them.
	flagErrs []error
}

// Limits bound what a caller may send and make the server do, and how the
// server treats its clients and its database. Zero fields take the
// defaults below.
type Limits struct {
	// MaxIdentifierLength bounds user ids, role names, tenant and definition
	// names, in bytes. Default 255. (CASEGRAPH_MAX_IDENTIFIER_LENGTH)
	MaxIdentifierLength int
	// MaxTeamMembers bounds one case team. Default 1000.
	// (CASEGRAPH_MAX_TEAM_MEMBERS)
	MaxTeamMembers int
	// MaxTenantUsers bounds the users of one tenant request. Default 1000.
	// (CASEGRAPH_MAX_TENANT_USERS)
	MaxTenantUsers int
	// MaxRolesPerUser bounds the roles of one user or team member. Default
	// 100. (CASEGRAPH_MAX_ROLES_PER_USER)
	MaxRolesPerUser int
	// MaxCaseFileBytes bounds a case file's JSON. Default 4 MiB.
	// (CASEGRAPH_MAX_CASE_FILE_BYTES)
	MaxCaseFileBytes int

	// GraphQLMaxCost is the cost budget of one GraphQL operation (lists
	// cost their page size, heavy fields their size class, aliases
	// multiply). Default 1000000. (CASEGRAPH_GRAPHQL_MAX_COST)
	GraphQLMaxCost int
	// GraphQLMaxDepth bounds selection nesting; introspection is exempt.
	// Default 12. (CASEGRAPH_GRAPHQL_MAX_DEPTH)
	GraphQLMaxDepth int
	// GraphQLMaxAliases bounds the aliased fields of one operation. Default
	// 100. (CASEGRAPH_GRAPHQL_MAX_ALIASES)
	GraphQLMaxAliases int
	// GraphQLMaxQueryBytes bounds the query document. Default 64 KiB.
	// (CASEGRAPH_GRAPHQL_MAX_QUERY_BYTES)
	GraphQLMaxQueryBytes int

	// RequestTimeout is the deadline of one request, honoured by every
	// database call. Default 30s. (CASEGRAPH_REQUEST_TIMEOUT)
	RequestTimeout time.Duration
	// MaxResponseBytes is the response-size budget of one GraphQL request,
	// charged as heavy fields resolve. Default 16 MiB.
	// (CASEGRAPH_MAX_RESPONSE_BYTES)
	MaxResponseBytes int
	// MaxInFlight bounds the requests served at once; more get 503 with
	// Retry-After. Default 64. (CASEGRAPH_MAX_IN_FLIGHT)
	MaxInFlight int
	// LiveConnections bounds the open subscription WebSockets of one
	// server; more are refused with 503. Default 10000.
	// (CASEGRAPH_LIVE_CONNECTIONS)
	LiveConnections int
	// LiveConnectionsPerUser bounds those of one user; more are closed
	// with code 4429. Default 20. (CASEGRAPH_LIVE_CONNECTIONS_PER_USER)
	LiveConnectionsPerUser int
	// LiveBuffer is how many changes a subscriber may fall behind before
	// it is disconnected (code 4008). Default 256. (CASEGRAPH_LIVE_BUFFER)
	LiveBuffer int

	// DatabaseWait is how long the server waits for its database at start,
	// retrying with backoff. Default 60s. (CASEGRAPH_DATABASE_WAIT)
	DatabaseWait time.Duration

	// CORSOrigins are the browser origins allowed to call with
	// credentials; "*" allows any origin, without credentials. Default
	// none (development mode: http://localhost and 127.0.0.1 on any port).
	// (CASEGRAPH_CORS_ORIGINS)
	CORSOrigins []string
	// OIDCAudience, when set, must be among a token's `aud`.
	// (CASEGRAPH_OIDC_AUDIENCE)
	OIDCAudience string
	// TokenLeeway is the clock skew allowed on `exp`, `nbf` and `iat`.
	// Default 30s. (CASEGRAPH_TOKEN_LEEWAY)
	TokenLeeway time.Duration

	// AnonymousRate is how many anonymous case starts one client address
	// may make a minute, on average. Default 10. (CASEGRAPH_ANONYMOUS_RATE)
	AnonymousRate int
	// AnonymousBurst is how many anonymous case starts one client address
	// may make at once. Default 5. (CASEGRAPH_ANONYMOUS_BURST)
	AnonymousBurst int
}

// DefaultLimits are the limits of a server that configures none.
var DefaultLimits = Limits{
	MaxIdentifierLength: 255, MaxTeamMembers: 1000, MaxTenantUsers: 1000, MaxRolesPerUser: 100, MaxCaseFileBytes: 4 << 20,
	GraphQLMaxCost: 1000000, GraphQLMaxDepth: 12, GraphQLMaxAliases: 100, GraphQLMaxQueryBytes: 64 << 10,
	RequestTimeout: 30 * time.Second, MaxResponseBytes: 16 << 20, MaxInFlight: 64,
	LiveConnections: 10000, LiveConnectionsPerUser: 20, LiveBuffer: 256,
	DatabaseWait: 60 * time.Second, TokenLeeway: 30 * time.Second,
	AnonymousRate: 10, AnonymousBurst: 5,
}

// RegisterFlags adds a flag for every Limits field to fs, each defaulting
// to its environment variable, then to DefaultLimits.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	d := DefaultLimits
	intFlag := func(p *int, name, env string, def int, usage string) {
		envFlag(c, fs, p, name, env, def, usage, strconv.Atoi, "a whole number")
	}
	durFlag := func(p *time.Duration, name, env string, def time.Duration, usage string) {
		envFlag(c, fs, p, name, env, def, usage, time.ParseDuration, "a duration such as 30s or 2m")
	}
	durFlag(&c.TimerInterval, "timer-interval", "CASEGRAPH_TIMER_INTERVAL", 200*time.Millisecond,
		"longest sleep of the timer runner; bounds the delay of timers stored by other replicas")
	intFlag(&c.TimerWorkers, "timer-workers", "CASEGRAPH_TIMER_WORKERS", 4, "most timers this replica fires at once")
	envFlag(c, fs, &c.AdminAddr, "admin-addr", "CASEGRAPH_ADMIN_ADDR", "",
		"address of the admin listener (metrics, probes, pprof); empty: none", parseAddr, "a listen address such as 127.0.0.1:9090")
	durFlag(&c.ProcessTimeout, "process-timeout", "CASEGRAPH_PROCESS_TIMEOUT", 30*time.Second, "deadline of one process-task call (HTTP request, mail)")
	intFlag(&c.ProcessWorkers, "process-workers", "CASEGRAPH_PROCESS_WORKERS", 4, "most process-task calls this replica makes at once")
	fs.Func("http-allow", "comma-separated hosts HTTP process tasks may call: host, host:port, *.domain (CASEGRAPH_HTTP_ALLOW)", func(v string) error {
		c.HTTPAllow = SplitList(v)
		return nil
	})
	c.HTTPAllow = SplitList(os.Getenv("CASEGRAPH_HTTP_ALLOW"))
	strFlag := func(p *string, name, env, usage string) {
		envFlag(c, fs, p, name, env, "", usage, func(s string) (string, error) { return s, nil }, "text")
	}
	strFlag(&c.SMTPAddr, "smtp-addr", "CASEGRAPH_SMTP_ADDR", "host:port of the mail server of mail process tasks; empty: mail tasks fail")
	strFlag(&c.SMTPUser, "smtp-user", "CASEGRAPH_SMTP_USER", "user for PLAIN authentication at the mail server")
	strFlag(&c.SMTPPassword, "smtp-password", "CASEGRAPH_SMTP_PASSWORD", "password for the mail server (prefer the variable)")
	strFlag(&c.SMTPFrom, "smtp-from", "CASEGRAPH_SMTP_FROM", "sender of mails whose process gives none")
	l := &c.Limits
	intFlag(&l.MaxIdentifierLength, "max-identifier-length", "CASEGRAPH_MAX_IDENTIFIER_LENGTH", d.MaxIdentifierLength, "longest user id, role, tenant or definition name in bytes")
	intFlag(&l.MaxTeamMembers, "max-team-members", "CASEGRAPH_MAX_TEAM_MEMBERS", d.MaxTeamMembers, "most members of one case team")
	intFlag(&l.MaxTenantUsers, "max-tenant-users", "CASEGRAPH_MAX_TENANT_USERS", d.MaxTenantUsers, "most users in one tenant request")
	intFlag(&l.MaxRolesPerUser, "max-roles-per-user", "CASEGRAPH_MAX_ROLES_PER_USER", d.MaxRolesPerUser, "most roles of one user or team member")
	intFlag(&l.MaxCaseFileBytes, "max-case-file-bytes", "CASEGRAPH_MAX_CASE_FILE_BYTES", d.MaxCaseFileBytes, "largest case file JSON in bytes")
	intFlag(&l.GraphQLMaxCost, "graphql-max-cost", "CASEGRAPH_GRAPHQL_MAX_COST", d.GraphQLMaxCost, "cost budget of one GraphQL operation")
	intFlag(&l.GraphQLMaxDepth, "graphql-max-depth", "CASEGRAPH_GRAPHQL_MAX_DEPTH", d.GraphQLMaxDepth, "deepest GraphQL selection nesting")
	intFlag(&l.GraphQLMaxAliases, "graphql-max-aliases", "CASEGRAPH_GRAPHQL_MAX_ALIASES", d.GraphQLMaxAliases, "most aliased fields in one GraphQL operation")
	intFlag(&l.GraphQLMaxQueryBytes, "graphql-max-query-bytes", "CASEGRAPH_GRAPHQL_MAX_QUERY_BYTES", d.GraphQLMaxQueryBytes, "largest GraphQL query document in bytes")
	durFlag(&l.RequestTimeout, "request-timeout", "CASEGRAPH_REQUEST_TIMEOUT", d.RequestTimeout, "deadline of one request")
	intFlag(&l.MaxResponseBytes, "max-response-bytes", "CASEGRAPH_MAX_RESPONSE_BYTES", d.MaxResponseBytes, "response-size budget of one GraphQL request in bytes")
	intFlag(&l.MaxInFlight, "max-in-flight", "CASEGRAPH_MAX_IN_FLIGHT", d.MaxInFlight, "most requests served at once; more get 503")
	intFlag(&l.LiveConnections, "live-connections", "CASEGRAPH_LIVE_CONNECTIONS", d.LiveConnections, "most open subscription WebSockets; more get 503")
	intFlag(&l.LiveConnectionsPerUser, "live-connections-per-user", "CASEGRAPH_LIVE_CONNECTIONS_PER_USER", d.LiveConnectionsPerUser, "most open subscription WebSockets of one user")
	intFlag(&l.LiveBuffer, "live-buffer", "CASEGRAPH_LIVE_BUFFER", d.LiveBuffer, "changes a subscriber may fall behind before it is disconnected")
	durFlag(&l.DatabaseWait, "database-wait", "CASEGRAPH_DATABASE_WAIT", d.DatabaseWait, "how long to wait for the database at start")
	intFlag(&l.AnonymousRate, "anonymous-rate", "CASEGRAPH_ANONYMOUS_RATE", d.AnonymousRate, "anonymous case starts a minute per client address")
	intFlag(&l.AnonymousBurst, "anonymous-burst", "CASEGRAPH_ANONYMOUS_BURST", d.AnonymousBurst, "anonymous case starts at once per client address")
	durFlag(&l.TokenLeeway, "token-leeway", "CASEGRAPH_TOKEN_LEEWAY", d.TokenLeeway, "clock skew allowed on token exp, nbf and iat")
	fs.StringVar(&l.OIDCAudience, "oidc-audience", os.Getenv("CASEGRAPH_OIDC_AUDIENCE"), "required token audience (CASEGRAPH_OIDC_AUDIENCE)")
	fs.Func("cors-origins", "comma-separated browser origins allowed to call (CASEGRAPH_CORS_ORIGINS)", func(v string) error {
		l.CORSOrigins = SplitList(v)
		return nil
	})
	l.CORSOrigins = SplitList(os.Getenv("CASEGRAPH_CORS_ORIGINS"))
}

// envFlag defines the flag name on fs, defaulting to the value of the
// environment variable env, else to def. A variable parse cannot read is
// kept for Validate, which refuses it naming the variable.
func envFlag[T any](c *Config, fs *flag.FlagSet, p *T, name, env string, def T, usage string, parse func(string) (T, error), want string) {
	v := def
	if s, ok := os.LookupEnv(env); ok && s != "" {
		n, err := parse(s)
		if err != nil {
			c.flagErrs = append(c.flagErrs, fmt.Errorf("%s must be %s, not %q", env, want, s))
		}
		v = n
	}
	*p = v
	fs.Var(&valueFlag[T]{p: p, parse: parse}, name, usage+" ("+env+")")
}

// parseAddr accepts a listen address host:port (host may be empty).
func parseAddr(s string) (string, error) {
	if _, _, err := net.SplitHostPort(s); err != nil {
		return "", err
	}
	return s, nil
}

// valueFlag is a flag.Value of any type parse reads.
type valueFlag[T any] struct {
	p     *T
	parse func(string) (T, error)
}

func (f *valueFlag[T]) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return fmt.Sprint(*f.p)
}

func (f *valueFlag[T]) Set(s string) error {
	v, err := f.parse(s)
	if err != nil {
		return err
	}
	*f.p = v
	return nil
}

// validate refuses a negative or unsafe setting, naming its variable.
func (l Limits) validate() error {
	for _, v := range []struct {
		name string
		n    int64
	}{
		{"CASEGRAPH_MAX_IDENTIFIER_LENGTH", int64(l.MaxIdentifierLength)}, {"CASEGRAPH_MAX_TEAM_MEMBERS", int64(l.MaxTeamMembers)},
		{"CASEGRAPH_MAX_TENANT_USERS", int64(l.MaxTenantUsers)}, {"CASEGRAPH_MAX_ROLES_PER_USER", int64(l.MaxRolesPerUser)},
		{"CASEGRAPH_MAX_CASE_FILE_BYTES", int64(l.MaxCaseFileBytes)}, {"CASEGRAPH_GRAPHQL_MAX_COST", int64(l.GraphQLMaxCost)},
		{"CASEGRAPH_GRAPHQL_MAX_DEPTH", int64(l.GraphQLMaxDepth)}, {"CASEGRAPH_GRAPHQL_MAX_ALIASES", int64(l.GraphQLMaxAliases)},
		{"CASEGRAPH_GRAPHQL_MAX_QUERY_BYTES", int64(l.GraphQLMaxQueryBytes)}, {"CASEGRAPH_REQUEST_TIMEOUT", int64(l.RequestTimeout)},
		{"CASEGRAPH_MAX_RESPONSE_BYTES", int64(l.MaxResponseBytes)}, {"CASEGRAPH_MAX_IN_FLIGHT", int64(l.MaxInFlight)},
		{"CASEGRAPH_LIVE_CONNECTIONS", int64(l.LiveConnections)}, {"CASEGRAPH_LIVE_CONNECTIONS_PER_USER", int64(l.LiveConnectionsPerUser)},
		{"CASEGRAPH_LIVE_BUFFER", int64(l.LiveBuffer)},
		{"CASEGRAPH_DATABASE_WAIT", int64(l.DatabaseWait)}, {"CASEGRAPH_TOKEN_LEEWAY", int64(l.TokenLeeway)},
		{"CASEGRAPH_ANONYMOUS_RATE", int64(l.AnonymousRate)}, {"CASEGRAPH_ANONYMOUS_BURST", int64(l.AnonymousBurst)},
	} {
		if v.n < 0 {
			return fmt.Errorf("%s must not be negative", v.name)
		}
	}
	if l.TokenLeeway > 5*time.Minute {
		return errors.New("CASEGRAPH_TOKEN_LEEWAY must be at most 5m: a larger skew would accept long-expired tokens")
	}
	if l.MaxIdentifierLength > 0 && l.MaxIdentifierLength < 16 {
		return errors.New("CASEGRAPH_MAX_IDENTIFIER_LENGTH must be at least 16, or user ids of common identity providers are refused")
	}
	for _, o := range l.CORSOrigins {
		if o == "*" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("CASEGRAPH_CORS_ORIGINS holds %q, which is not an origin such as https://app.example.com", o)
		}
	}
	return nil
}

// withDefaults fills the zero fields with DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	fill := func(p *int, def int) {
		if *p <= 0 {
			*p = def
		}
	}
	fillD := func(p *time.Duration, def time.Duration) {
		if *p <= 0 {
			*p = def
		}
	}
	fill(&l.MaxIdentifierLength, d.MaxIdentifierLength)
	fill(&l.MaxTeamMembers, d.MaxTeamMembers)
	fill(&l.MaxTenantUsers, d.MaxTenantUsers)
	fill(&l.MaxRolesPerUser, d.MaxRolesPerUser)
	fill(&l.MaxCaseFileBytes, d.MaxCaseFileBytes)
	fill(&l.GraphQLMaxCost, d.GraphQLMaxCost)
	fill(&l.GraphQLMaxDepth, d.GraphQLMaxDepth)
	fill(&l.GraphQLMaxAliases, d.GraphQLMaxAliases)
	fill(&l.GraphQLMaxQueryBytes, d.GraphQLMaxQueryBytes)
	fillD(&l.RequestTimeout, d.RequestTimeout)
	fill(&l.MaxResponseBytes, d.MaxResponseBytes)
	fill(&l.MaxInFlight, d.MaxInFlight)
	fill(&l.LiveConnections, d.LiveConnections)
	fill(&l.LiveConnectionsPerUser, d.LiveConnectionsPerUser)
	fill(&l.LiveBuffer, d.LiveBuffer)
	fillD(&l.DatabaseWait, d.DatabaseWait)
	fillD(&l.TokenLeeway, d.TokenLeeway)
	fill(&l.AnonymousRate, d.AnonymousRate)
	fill(&l.AnonymousBurst, d.AnonymousBurst)
	for i, o := range l.CORSOrigins {
		l.CORSOrigins[i] = strings.TrimRight(o, "/")
	}
	return l
}

// VersionInfo describes the running build.
type VersionInfo struct {
	Version   string
	GitCommit string
	BuiltAt   string // RFC 3339, or empty
}

// withDefaults returns c with every empty field at its default.
func (c Config) withDefaults() Config {
	if c.Addr == "" {
		c.Addr = ":2027"
	}
	if c.DataDir == "" {
		c.DataDir = "./data"
	}
	if c.UserIDClaim == "" {
		c.UserIDClaim = "sub"
	}
	if c.DefaultTenant == "" {
		c.DefaultTenant = "world"
	}
	c.PlatformOwners = nonEmpty(c.PlatformOwners)
	c.ClientApps = nonEmpty(c.ClientApps)
	if c.ArchiveDir == "" {
		c.ArchiveDir = filepath.Join(c.DataDir, "archive")
	}
	c.OIDCIssuers = nonEmpty(c.OIDCIssuers)
	if c.TimerInterval <= 0 {
		c.TimerInterval = 200 * time.Millisecond
	}
	if c.Dev && len(c.PlatformOwners) == 0 {
		c.PlatformOwners = []string{"admin"}
	}
	c.Limits = c.Limits.withDefaults()
	return c
}

// Validate reports a configuration the server cannot start with, naming
// the variable to set.
func (c Config) Validate() error {
	if len(c.flagErrs) > 0 {
		return c.flagErrs[0]
	}
	if err := c.Limits.validate(); err != nil {
		return err
	}
	if c.ProcessTimeout < 0 {
		return fmt.Errorf("CASEGRAPH_PROCESS_TIMEOUT (-process-timeout) must be a positive duration such as 30s, not %s", c.ProcessTimeout)
	}
	if c.ProcessWorkers < 0 || c.ProcessWorkers > 1000 {
		return fmt.Errorf("CASEGRAPH_PROCESS_WORKERS (-process-workers) must be between 1 and 1000, not %d", c.ProcessWorkers)
	}
	if c.TimerWorkers < 0 || c.TimerWorkers > 1000 {
		return fmt.Errorf("CASEGRAPH_TIMER_WORKERS (-timer-workers) must be between 1 and 1000, not %d", c.TimerWorkers)
	}
	if c.TimerInterval < 0 {
		return fmt.Errorf("CASEGRAPH_TIMER_INTERVAL (-timer-interval) must be a positive duration such as 200ms, not %s", c.TimerInterval)
	}
	if c.AdminAddr != "" {
		if _, err := parseAddr(c.AdminAddr); err != nil {
			return fmt.Errorf("CASEGRAPH_ADMIN_ADDR must be a listen address such as 127.0.0.1:9090, not %q", c.AdminAddr)
		}
	}
	c = c.withDefaults()
	if len(c.OIDCIssuers) == 0 && !c.Dev {
		return errors.New("no token issuer is configured: set CASEGRAPH_OIDC_ISSUERS to your identity provider's issuer URL " +
			"(optionally CASEGRAPH_OIDC_KEYS_URL for a static JWKS), or run with CASEGRAPH_DEV=true (serve --dev) for local development")
	}
	if c.OIDCKeysURL != "" && len(c.OIDCIssuers) != 1 {
		return errors.New("CASEGRAPH_OIDC_KEYS_URL needs exactly one issuer in CASEGRAPH_OIDC_ISSUERS")
	}
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") &&
		!strings.HasPrefix(c.DatabaseURL, "sqlite:") && !strings.HasPrefix(c.DatabaseURL, "file:") {
		return errors.New("DATABASE_URL must be a postgres:// URL, or empty for the embedded SQLite file")
	}
	if _, err := loadAnonymous(c.AnonymousConfig); err != nil {
		return err
	}
	return nil
}

// SplitList splits a comma-separated configuration value.
func SplitList(v string) []string {
	return nonEmpty(strings.Split(v, ","))
}

func nonEmpty(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
