package auth

import (
	"crypto/sha256"
	"sync"
	"time"
)

// verifiedCache remembers tokens whose signature and claims checked out, so
// that a client sending the same token with every request pays for one
// signature check a minute, not one per request (an RSA verification was
// about a tenth of the server's CPU per command under load).
//
// An entry holds only what Verify returned and is used until the token
// expires or a minute has passed, whichever comes first: a token is never
// accepted after its exp, and a key the identity provider withdraws stops
// being trusted within the minute. The account behind the token is checked
// by the service on every command, cache or not. Keys are SHA-256 hashes of
// the token, so the cache holds no credential.
type verifiedCache struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]cachedIdentity
}

type cachedIdentity struct {
	who      Identity
	notAfter time.Time
}

const (
	// verifiedCacheTTL bounds how long a verified token is taken on trust.
	verifiedCacheTTL = time.Minute
	// verifiedCacheSize bounds the cache's memory (about 150 bytes an entry).
	verifiedCacheSize = 10_000
)

func (c *verifiedCache) get(raw string, now time.Time) (Identity, bool) {
	key := sha256.Sum256([]byte(raw))
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return Identity{}, false
	}
	if !now.Before(e.notAfter) {
		delete(c.entries, key)
		return Identity{}, false
	}
	return e.who, true
}

// put remembers a verified token until expires (its exp, leeway included)
// or the TTL, whichever is sooner.
func (c *verifiedCache) put(raw string, who Identity, expires, now time.Time) {
	notAfter := now.Add(verifiedCacheTTL)
	if expires.Before(notAfter) {
		notAfter = expires
	}
	if !now.Before(notAfter) {
		return
	}
	key := sha256.Sum256([]byte(raw))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = make(map[[sha256.Size]byte]cachedIdentity)
	}
	if len(c.entries) >= verifiedCacheSize {
		c.evict(now)
	}
	c.entries[key] = cachedIdentity{who: who, notAfter: notAfter}
}

// evict drops the expired entries and, if that is not enough, a quarter of
// the rest (Go's map order is random enough for that).
func (c *verifiedCache) evict(now time.Time) {
	for k, e := range c.entries {
		if !now.Before(e.notAfter) {
			delete(c.entries, k)
		}
	}
	drop := len(c.entries) - verifiedCacheSize*3/4
	for k := range c.entries {
		if drop <= 0 {
			break
		}
		delete(c.entries, k)
		drop--
	}
}
