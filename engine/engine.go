// Package engine runs CMMN case instances as pure Go: given a case's state,
// its definition, a command, the acting member and the time, it produces the
// events and the new state. It does no I/O, reads no clock and draws no
// random numbers: ids and time arrive in Env, so runs are deterministic and
// fast to test. Package service loads and stores what it returns.
package engine

import (
	"encoding/json"
	"fmt"
	"time"
)

// Env is what a command may take from the world: the time and fresh ids.
type Env struct {
	// Now is the time of the command; every change it makes carries it.
	Now time.Time
	// NewID returns a fresh unique id for a plan item (repetitions,
	// discretionary items). Tests pass a counter.
	NewID func() string
}

// Actor is the team member running a command, as resolved by service from
// the case team and the caller's tenant roles.
type Actor struct {
	UserID string
	// Roles are the caller's case roles: the union over every team
	// membership that matches the caller.
	Roles []string
	// IsOwner reports whether any matching membership is a case owner.
	// Owners manage every case role.
	IsOwner bool
}

// HasRole reports whether the actor holds role or, as a case owner,
// manages it. The empty role is held by every member.
func (a Actor) HasRole(role string) bool {
	if role == "" || a.IsOwner {
		return true
	}
	for _, r := range a.Roles {
		if r == role {
			return true
		}
	}
	return false
}

// ErrorKind classifies an engine error for service.
type ErrorKind int

// Kinds of engine error.
const (
	// ErrInvalid is a command that cannot be done: bad input, bad state.
	ErrInvalid ErrorKind = iota
	// ErrNotAllowed is a command the actor may not do (a missing role).
	ErrNotAllowed
	// ErrNotFound is a command on something that is not in the case.
	ErrNotFound
	// ErrNoEffect is a transition that changed nothing (REST answers
	// 304), or a task workflow command that changed nothing (claiming
	// one's own task), which service reports as done.
	ErrNoEffect
)

// Error is an error of the engine, with the message the caller sees.
type Error struct {
	Kind ErrorKind
	Msg  string
	// WrongState marks an ErrInvalid command that is right in itself but
	// not in the state its target is in (claiming a completed task):
	// GraphQL answers it as INVALID_STATE, REST as 400 like any invalid
	// command.
	WrongState bool
	// TooDeep marks a command refused because its case tasks would nest
	// sub cases deeper than MaxCaseDepth: a runaway recursion that the
	// whole command must fail for, rather than only the task.
	TooDeep bool
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// stateErrorf is an ErrInvalid error about the state of the target.
func stateErrorf(format string, args ...any) *Error {
	e := errorf(ErrInvalid, format, args...)
	e.WrongState = true
	return e
}

func errorf(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Event is one fact a command produced, appended to the case's history.
type Event struct {
	// Type names the event, e.g. "PlanItemTransitioned".
	Type string
	// Payload is the event's data; it marshals to JSON.
	Payload any
}

// MarshalPayload returns the event's payload as JSON.
func (e Event) MarshalPayload() (json.RawMessage, error) {
	return json.Marshal(e.Payload)
}
