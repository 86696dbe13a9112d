package service

import (
	"testing"
	"time"
)

func TestLastModifiedRoundTrip(t *testing.T) {
	at := time.Date(2024, 5, 6, 17, 6, 12, 113204800, time.UTC)
	lm := LastModified{At: at, ID: "3e074f00_bb0d"}
	if got, want := lm.String(), "2024-05-06T17:06:12.113204800Z;3e074f00_bb0d"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	back, err := ParseLastModified(lm.String())
	if err != nil || !back.At.Equal(at) || back.ID != lm.ID {
		t.Fatalf("parse back: %+v %v", back, err)
	}
	for _, bad := range []string{"", ";x", "now;x", "2024-05-06 17:06:12;x"} {
		if _, err := ParseLastModified(bad); err == nil {
			t.Errorf("ParseLastModified(%q) succeeded", bad)
		}
	}
}

// TestJavaInstant: instants as Java's Instant.toString prints them, the
// fraction in groups of three digits, none when whole.
func TestJavaInstant(t *testing.T) {
	base := time.Date(2024, 5, 6, 17, 6, 12, 0, time.FixedZone("CEST", 2*3600))
	for ns, want := range map[int]string{
		0:           "2024-05-06T15:06:12Z",
		100_000_000: "2024-05-06T15:06:12.100Z",
		113_204_000: "2024-05-06T15:06:12.113204Z",
		476_670_000: "2024-05-06T15:06:12.476670Z",
		113_204_800: "2024-05-06T15:06:12.113204800Z",
		1:           "2024-05-06T15:06:12.000000001Z",
	} {
		if got := JavaInstant(base.Add(time.Duration(ns))); got != want {
			t.Errorf("JavaInstant(+%dns) = %s, want %s", ns, got, want)
		}
	}
}
