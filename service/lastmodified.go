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
	return JavaInstant(m.At) + ";" + m.ID
}

// JavaInstant formats t in UTC as Java's Instant.toString does, which the
// reference engine's JSON and headers show: the fraction of a second in
// as many groups of three digits as it needs (none, milli, micro or nano).
func JavaInstant(t time.Time) string {
	t = t.UTC()
	ns := t.Nanosecond()
	switch {
	case ns == 0:
		return t.Format("2006-01-02T15:04:05Z")
	case ns%1_000_000 == 0:
		return t.Format("2006-01-02T15:04:05.000Z")
	case ns%1_000 == 0:
		return t.Format("2006-01-02T15:04:05.000000Z")
	}
	return t.Format("2006-01-02T15:04:05.000000000Z")
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
