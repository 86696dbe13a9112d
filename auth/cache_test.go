package auth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestVerifiedTokenStillExpires: a token served from the cache is refused
// the moment its exp passes, as an uncached one is.
func TestVerifiedTokenStillExpires(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	dev := NewDevIssuer(key)
	now := time.Now()
	v, err := NewVerifier(Config{Dev: dev, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := dev.Token("alice", now, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		who, err := v.Verify(context.Background(), tok)
		if err != nil || who.UserID != "alice" {
			t.Fatalf("verify: %+v, %v", who, err)
		}
	}
	if n := len(v.verified.entries); n != 1 {
		t.Fatalf("%d cached tokens, want 1", n)
	}
	now = now.Add(31 * time.Second)
	if _, err := v.Verify(context.Background(), tok); !errors.Is(err, errExpired) {
		t.Fatalf("expired token: %v, want %v", err, errExpired)
	}
	// A bad token is never cached.
	if _, err := v.Verify(context.Background(), tok[:len(tok)-4]+"AAAA"); err == nil {
		t.Fatal("a tampered token verified")
	}
	if n := len(v.verified.entries); n != 0 {
		t.Fatalf("%d cached tokens after expiry and a bad token, want 0", n)
	}
}

// TestVerifiedCacheIsBounded: however many distinct tokens arrive, the
// cache holds at most verifiedCacheSize, and an entry lives at most the TTL.
func TestVerifiedCacheIsBounded(t *testing.T) {
	var c verifiedCache
	now := time.Now()
	for i := range verifiedCacheSize * 3 {
		c.put(fmt.Sprint("token-", i), Identity{UserID: "u"}, now.Add(time.Hour), now)
		if len(c.entries) > verifiedCacheSize {
			t.Fatalf("%d entries after %d puts", len(c.entries), i+1)
		}
	}
	c.put("fresh", Identity{UserID: "bob"}, now.Add(time.Hour), now)
	if who, ok := c.get("fresh", now.Add(verifiedCacheTTL-time.Second)); !ok || who.UserID != "bob" {
		t.Fatalf("fresh entry: %+v %v", who, ok)
	}
	if _, ok := c.get("fresh", now.Add(verifiedCacheTTL)); ok {
		t.Fatal("an entry outlived the TTL")
	}
	c.put("short", Identity{UserID: "carol"}, now.Add(time.Second), now)
	if _, ok := c.get("short", now.Add(time.Second)); ok {
		t.Fatal("an entry outlived its token's expiry")
	}
}
