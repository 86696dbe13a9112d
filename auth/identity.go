// Package auth verifies OIDC bearer tokens and carries the caller's identity
// through a request. It decides who is calling, never what the caller may
// do: that is package service's job.
package auth

import "context"

// Identity is the verified caller of a request.
type Identity struct {
	// UserID is the value of the configured user-id claim, used verbatim.
	UserID string
	// CorrelationID is the request's CorrelationId header: stored with
	// every event the request causes. Empty when the request sent none.
	CorrelationID string
	// ClientID is the token's `client_id` claim: set for a client
	// application's (system account's) token, empty for a user's.
	ClientID string
	// OnBehalfOf is the request's On-Behalf-Of header: the user a client
	// application asks to act as. Package service decides whether it may.
	OnBehalfOf string
}

type identityKey struct{}

// NewContext returns a copy of ctx that carries id.
func NewContext(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// FromContext returns the identity in ctx, if any.
func FromContext(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}
