package auth_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/casegraph/casegraph/auth"
)

func TestDevIssuerKeepsItsKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	first, err := auth.LoadOrCreateDevIssuer(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "dev-signing-key.pem"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, mode %v; want 0600", err, st.Mode())
	}
	second, err := auth.LoadOrCreateDevIssuer(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A token minted by one process (casegraph token) verifies in another
	// (casegraph serve).
	tok, err := first.Token("alice", time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	v, err := auth.NewVerifier(auth.Config{Dev: second})
	if err != nil {
		t.Fatal(err)
	}
	id, err := v.Verify(context.Background(), tok)
	if err != nil || id.UserID != "alice" {
		t.Fatalf("verify dev token: %+v %v", id, err)
	}

	expired, _ := first.Token("alice", time.Now().Add(-48*time.Hour), 24*time.Hour)
	_, err = v.Verify(context.Background(), expired)
	var te *auth.TokenError
	if !errors.As(err, &te) || te.Msg != "JWT Token failure: token is expired" {
		t.Fatalf("expired dev token: %v", err)
	}
}

func TestNewVerifierNeedsAnIssuer(t *testing.T) {
	if _, err := auth.NewVerifier(auth.Config{}); err == nil {
		t.Fatal("a verifier without issuers was built")
	}
	if _, err := auth.NewVerifier(auth.Config{Issuers: []string{"a", "b"}, KeysURL: "http://keys"}); err == nil {
		t.Fatal("a static keys URL with two issuers was accepted")
	}
}
