package service

import (
	"fmt"
	"strings"
	"time"
)

// LastModified identifies the state a command left an actor (a case or a
// tenant) in. The reference engine's clients send it back in
// Case-Last-Modified and Tenant-Last-Modified headers to read their own
// writes; CaseGraph commits every command before it answers, so the value
// never needs to be waited for, but its format is kept.
type LastModified struct {
	At time.Time
	ID string
}

// String formats the value as `<ISO-8601 instant>;<id>`.
func (m LastModified) String() string {
	return m.At.UTC().Format(time.RFC3339Nano) + ";" + m.ID
}

// ParseLastModified parses a header value `<ISO-8601 instant>[;<id>]`.
func ParseLastModified(v string) (LastModified, error) {
	instant, id, _ := strings.Cut(strings.TrimSpace(v), ";")
	if instant == "" {
		return LastModified{}, fmt.Errorf("the value %q has no instant", v)
	}
	at, err := time.Parse(time.RFC3339Nano, instant)
	if err != nil {
		return LastModified{}, fmt.Errorf("%q is not an ISO-8601 instant", instant)
	}
	return LastModified{At: at, ID: id}, nil
}
