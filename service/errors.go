package service

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
)

// Kind classifies an error for the front doors, which map each kind to one
// REST status and one GraphQL extensions.code.
type Kind int

// The kinds of error a service method returns.
const (
	Internal        Kind = iota // unclassified; logged, never shown to the caller
	Unauthenticated             // no or bad credentials
	NotAllowed                  // the caller is known but may not do this
	NotFound                    // does not exist, or is hidden from the caller
	Invalid                     // bad input
	InvalidState                // valid input, but not in the current state
	Conflict                    // lost a race too often; try again
	Unavailable                 // a dependency (database, identity provider) is down
	NotModified                 // the command changed nothing (REST answers 304)
)

func (k Kind) String() string {
	switch k {
	case Unauthenticated:
		return "unauthenticated"
	case NotAllowed:
		return "not allowed"
	case NotFound:
		return "not found"
	case Invalid:
		return "invalid"
	case InvalidState:
		return "invalid state"
	case Conflict:
		return "conflict"
	case Unavailable:
		return "unavailable"
	case NotModified:
		return "not modified"
	}
	return "internal"
}

// Error is the error every service method returns. Msg is the text the
// caller sees (the reference engine's message where it has one); Err is the
// cause, for logs only.
type Error struct {
	Op   string // the operation, e.g. "service.CreateTenant"
	Kind Kind
	Msg  string
	Err  error
}

// E builds an *Error with a caller-facing message.
func E(op string, kind Kind, msg string) *Error {
	return &Error{Op: op, Kind: kind, Msg: msg}
}

// Ef builds an *Error with a formatted caller-facing message.
func Ef(op string, kind Kind, format string, args ...any) *Error {
	return &Error{Op: op, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	b.WriteString(": ")
	b.WriteString(e.Kind.String())
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the kind of err: that of the outermost *Error in its
// chain, Internal for anything else.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Message returns the text a caller may see for err. Internal errors never
// show their cause.
func Message(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Kind != Internal && e.Msg != "" {
		return e.Msg
	}
	return "An error happened in the server; check the server logs for more information"
}

// wrap classifies an error from a lower layer: errors that are already
// *Error pass unchanged; database outages become Unavailable; the rest is
// Internal.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	var budget *db.StateBudgetError
	switch {
	case errors.As(err, &budget):
		return &Error{Op: op, Kind: Invalid, Err: err,
			Msg: fmt.Sprintf("This request reads more than %s of case state; ask for fewer cases, or for fewer of their fields", budget.Size())}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Op: op, Kind: Unavailable, Msg: "The request was cancelled or timed out", Err: err}
	case errors.Is(err, db.ErrStaleVersion):
		return &Error{Op: op, Kind: Conflict, Msg: "The item was changed by another request at the same time; please try again", Err: err}
	case db.IsUniqueViolation(err):
		return &Error{Op: op, Kind: Invalid, Msg: "An item with that id already exists", Err: err}
	case db.IsUnavailable(err):
		return &Error{Op: op, Kind: Unavailable, Msg: "The server is currently unavailable (because it is overloaded or down for maintenance).", Err: err}
	}
	return &Error{Op: op, Kind: Internal, Err: err}
}

// engineKinds is the one translation of the engine's kinds of error into
// service's; the doors then map service's kinds to their statuses and codes
// (rest/errors.go, resolvers/handler.go).
var engineKinds = map[engine.ErrorKind]Kind{
	engine.ErrInvalid:    Invalid,
	engine.ErrNotAllowed: NotAllowed,
	engine.ErrNotFound:   NotFound,
	engine.ErrNoEffect:   NotModified,
}

// engineError classifies an engine error: by engineKinds, and a command
// right in itself but not in its target's state as InvalidState. Anything
// else the engine returns is a bug: Internal.
func engineError(op string, err error) error {
	var ee *engine.Error
	if !errors.As(err, &ee) {
		return &Error{Op: op, Kind: Internal, Err: err}
	}
	kind, ok := engineKinds[ee.Kind]
	if !ok {
		return &Error{Op: op, Kind: Internal, Err: err}
	}
	if ee.WrongState {
		kind = InvalidState
	}
	return &Error{Op: op, Kind: kind, Msg: ee.Msg}
}

// AuthFailure classifies a failed authentication once for both doors: a
// token the verifier refuses is Unauthenticated with the token's problem;
// an identity provider that cannot be reached is Unavailable (so that the
// client retries); anything else is Unauthenticated, its cause logged but
// never shown.
func (s *Service) AuthFailure(ctx context.Context, err error) error {
	var te *auth.TokenError
	switch {
	case errors.As(err, &te):
		return &Error{Op: "authenticate", Kind: Unauthenticated, Msg: te.Msg, Err: err}
	case errors.Is(err, auth.ErrIDPUnreachable):
		s.logger.WarnContext(ctx, "identity provider unreachable", "err", err)
		return &Error{Op: "authenticate", Kind: Unavailable,
			Msg: "The identity provider could not be reached to verify the token; try again later", Err: err}
	}
	s.logger.ErrorContext(ctx, "authentication failed", "err", err)
	return &Error{Op: "authenticate", Kind: Unauthenticated, Msg: "Token cannot be verified", Err: err}
}

// The reference engine's search failures. A thing that does not exist and
// one hidden from the caller answer the same words, in both doors and in
// every service method, so they are written here once.

// CaseNotFound is the answer for a case id the caller cannot see.
func CaseNotFound(op, id string) *Error {
	return Ef(op, NotFound, "A case with id '%s' cannot be found.", id)
}

// TaskNotFound is the answer for a task id the caller cannot see.
func TaskNotFound(op, id string) *Error {
	return Ef(op, NotFound, "A task with id '%s' cannot be found.", id)
}

// PlanItemNotFound is the answer for a plan item id the caller cannot see.
func PlanItemNotFound(op, id string) *Error {
	return Ef(op, NotFound, "A plan item with id '%s' cannot be found.", id)
}

// ActiveTenantNotFound is the answer for a tenant that does not exist, is
// disabled, or (on repository routes) does not have the caller.
func ActiveTenantNotFound(op, name string) *Error {
	return Ef(op, NotFound, "An active tenant with id '%s' cannot be found.", name)
}
