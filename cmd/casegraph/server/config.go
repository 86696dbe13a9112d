// Package server assembles CaseGraph: it opens and migrates the database,
// builds the token verifier, the service and both front doors, and serves
// them over HTTP with graceful shutdown. cmd/casegraph fills its Config from
// flags and environment; tests build a Config and call New.
package server

import (
	"errors"
	"strings"
	"time"
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
	c.OIDCIssuers = nonEmpty(c.OIDCIssuers)
	if c.TimerInterval <= 0 {
		c.TimerInterval = 200 * time.Millisecond
	}
	if c.Dev && len(c.PlatformOwners) == 0 {
		c.PlatformOwners = []string{"admin"}
	}
	return c
}

// Validate reports a configuration the server cannot start with, naming
// the variable to set.
func (c Config) Validate() error {
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
