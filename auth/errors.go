package auth

import (
	"errors"
	"fmt"
)

// ErrIDPUnreachable is returned (wrapped) when an issuer's discovery
// document or keys cannot be fetched: the token may be fine, the server
// cannot tell, so the front doors answer 503 rather than 401.
var ErrIDPUnreachable = errors.New("identity provider unreachable")

// TokenError is a token that cannot be accepted. Its message is the one the
// reference engine sends with its 401.
type TokenError struct {
	Msg string
}

func (e *TokenError) Error() string { return e.Msg }

func tokenErrorf(format string, args ...any) error {
	return &TokenError{Msg: fmt.Sprintf(format, args...)}
}

// Messages of the reference engine for the common token failures.
var (
	errMissingToken = &TokenError{Msg: "Authorization token is missing"}
	errNoIssuer     = &TokenError{Msg: "Authorization token has no issuer and cannot be verified"}
	errExpired      = &TokenError{Msg: "JWT Token failure: token is expired"}
)
