package auth

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// DevIssuerName is the `iss` of development tokens.
const DevIssuerName = "casegraph-dev"

// devKeyFile is the name of the development signing key in the data dir.
const devKeyFile = "dev-signing-key.pem"

// DevIssuer signs tokens for any user id with a key kept in the data
// directory, so that a fresh checkout runs without an identity provider.
// Never use it in production: whoever can read the key can act as anyone.
type DevIssuer struct {
	// Issuer is the `iss` claim of its tokens.
	Issuer string
	key    *rsa.PrivateKey
	keyID  string
}

// LoadOrCreateDevIssuer reads the development key from dataDir, creating
// the directory and the key the first time.
func LoadOrCreateDevIssuer(dataDir string) (*DevIssuer, error) {
	path := filepath.Join(dataDir, devKeyFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return nil, fmt.Errorf("auth: create data dir: %w", err)
		}
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, fmt.Errorf("auth: generate dev key: %w", err)
		}
		data = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: mustPKCS8(key)})
		// O_EXCL: when two processes start at once, one key wins and the
		// other process reads it.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return LoadOrCreateDevIssuer(dataDir)
		}
		if err != nil {
			return nil, fmt.Errorf("auth: write dev key: %w", err)
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return nil, fmt.Errorf("auth: write dev key: %w", err)
		}
		if err := f.Close(); err != nil {
			return nil, fmt.Errorf("auth: write dev key: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("auth: read dev key: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("auth: %s is not a PEM file", path)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("auth: parse dev key %s: %w", path, err)
	}
	key, ok := parsed.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("auth: dev key %s is not an RSA key", path)
	}
	return NewDevIssuer(key), nil
}

// NewDevIssuer returns a development issuer signing with key.
func NewDevIssuer(key *rsa.PrivateKey) *DevIssuer {
	sum := sha256.Sum256(x509.MarshalPKCS1PublicKey(&key.PublicKey))
	return &DevIssuer{Issuer: DevIssuerName, key: key, keyID: base64.RawURLEncoding.EncodeToString(sum[:8])}
}

func mustPKCS8(key *rsa.PrivateKey) []byte {
	b, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		panic(err) // an RSA key always marshals
	}
	return b
}

// PublicKey returns the key that verifies the issuer's tokens.
func (d *DevIssuer) PublicKey() crypto.PublicKey { return &d.key.PublicKey }

// Token returns a signed token for userID, issued at now and valid for ttl.
func (d *DevIssuer) Token(userID string, now time.Time, ttl time.Duration) (string, error) {
	return SignToken(d.key, d.keyID, jwt.Claims{
		Issuer:   d.Issuer,
		Subject:  userID,
		IssuedAt: jwt.NewNumericDate(now),
		Expiry:   jwt.NewNumericDate(now.Add(ttl)),
	}, nil)
}

// SignToken signs claims plus extra claims with an RS256 key. It serves the
// development issuer and test issuers alike.
func SignToken(key *rsa.PrivateKey, keyID string, claims jwt.Claims, extra map[string]any) (string, error) {
	opts := (&jose.SignerOptions{}).WithType("JWT")
	if keyID != "" {
		opts = opts.WithHeader(jose.HeaderKey("kid"), keyID)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, opts)
	if err != nil {
		return "", fmt.Errorf("auth: signer: %w", err)
	}
	b := jwt.Signed(signer).Claims(claims)
	if extra != nil {
		b = b.Claims(extra)
	}
	return b.Serialize()
}
