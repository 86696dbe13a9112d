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
