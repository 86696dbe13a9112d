package service_test

import (
	"testing"
	"time"

	"github.com/casegraph/casegraph/service"
)

// TestTaskDuration: the period is written as Java's Duration.toString
// writes it, which is what the reference engine's task records carry.
func TestTaskDuration(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{2 * time.Minute, "PT2M"}, {48 * time.Hour, "PT48H"}, {90 * time.Minute, "PT1H30M"},
		{1500 * time.Millisecond, "PT1.5S"}, {0, "PT0S"}, {-2 * time.Minute, "PT-2M"}, {time.Hour + time.Second, "PT1H1S"},
	} {
		due := at.Add(tt.d)
		if got := service.TaskDuration(at, &due); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.d, got, tt.want)
		}
	}
	if got := service.TaskDuration(at, nil); got != "" {
		t.Errorf("no due date: %q", got)
	}
}
