package service

import (
	"testing"
	"time"
)

func TestLastModifiedRoundTrip(t *testing.T) {
	at := time.Date(2024, 5, 6, 17, 6, 12, 113204800, time.UTC)
	lm := LastModified{At: at, ID: "3e074f00_bb0d"}
	if got, want := lm.String(), "2024-05-06T17:06:12.1132048Z;3e074f00_bb0d"; got != want {
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
