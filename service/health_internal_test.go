package service

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The timer-service point turns red when the runner has not completed a
// pass for ten of its sleeps (at least 30 s), and is green while it has.
func TestTimerPoint(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	s := &Service{now: func() time.Time { return now }}
	if p := s.timerPoint(); !p.OK || p.Name != "timer-service" {
		t.Errorf("no runner: %+v", p)
	}
	s.timerPoll.Store(int64(200 * time.Millisecond))
	s.timerBeat.Store(now.Add(-29 * time.Second).UnixNano())
	if p := s.timerPoint(); !p.OK {
		t.Errorf("a pass 29 s ago: %+v", p)
	}
	s.timerBeat.Store(now.Add(-31 * time.Second).UnixNano())
	if p := s.timerPoint(); p.OK || p.Description != "the timer runner has not completed a pass for 31s" {
		t.Errorf("a pass 31 s ago: %+v", p)
	}
	s.timerPoll.Store(int64(time.Minute))
	if p := s.timerPoint(); !p.OK {
		t.Errorf("31 s with a one-minute sleep: %+v", p)
	}
}

// The storage-service point is red when the archive directory cannot take
// a file, and leaves nothing behind when it can.
func TestStoragePoint(t *testing.T) {
	dir := t.TempDir()
	s := &Service{archiveDir: filepath.Join(dir, "archive")}
	if p := s.storagePoint(); !p.OK {
		t.Fatalf("writable: %+v", p)
	}
	if left, _ := os.ReadDir(s.archiveDir); len(left) != 0 {
		t.Errorf("the check left %d files", len(left))
	}
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s.archiveDir = filepath.Join(blocker, "archive")
	if p := s.storagePoint(); p.OK {
		t.Errorf("under a file: %+v", p)
	}
	if p := (&Service{}).storagePoint(); !p.OK {
		t.Errorf("not configured: %+v", p)
	}
}
