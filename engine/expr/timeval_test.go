package expr

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in     string
		want   Duration
		format string
	}{
		{"PT2S", Duration{Time: 2 * time.Second}, "PT2S"},
		{"P0DT10S", Duration{Time: 10 * time.Second}, "PT10S"},
		{"P2DT10S", Duration{Days: 2, Time: 10 * time.Second}, "P2DT10S"},
		{"PT0S", Duration{}, "PT0S"},
		{"pt1h30m", Duration{Time: 90 * time.Minute}, "PT1H30M"},
		{"P1Y2M3W4DT5H6M7.5S", Duration{Years: 1, Months: 2, Days: 25, Time: 5*time.Hour + 6*time.Minute + 7500*time.Millisecond}, "P1Y2M25DT5H6M7.5S"},
		{"PT0,25S", Duration{Time: 250 * time.Millisecond}, "PT0.25S"},
		{"-PT1S", Duration{Time: -time.Second}, "PT-1S"},
		{"P1M", Duration{Months: 1}, "P1M"},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if err != nil {
			t.Errorf("ParseDuration(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseDuration(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		if s := got.String(); s != tt.format {
			t.Errorf("ParseDuration(%q).String() = %q, want %q", tt.in, s, tt.format)
		}
	}
	for _, bad := range []string{"", "P", "PT", "2S", "P1S", "PT1D", "P1.5D", "PT1S1H", "P1D1Y", "PTxS", "P99999999999999999999D", "PT9999999999999999H", "PT1", "P50001D", "P7200W"} {
		if d, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) = %v, want error", bad, d)
		} else if !strings.Contains(err.Error(), "is not an ISO-8601 duration") {
			t.Errorf("ParseDuration(%q) error = %q", bad, err)
		}
	}
}

func TestDurationAddTo(t *testing.T) {
	start := time.Date(2024, 1, 31, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		d    string
		want time.Time
	}{
		{"PT2S", start.Add(2 * time.Second)},
		{"P1M", time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC)},
		{"P1Y1M1DT1H", time.Date(2025, 3, 1, 13, 0, 0, 0, time.UTC)},
		{"-P1M", time.Date(2023, 12, 31, 12, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		d, err := ParseDuration(tt.d)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.AddTo(start); !got.Equal(tt.want) {
			t.Errorf("%s.AddTo(%v) = %v, want %v", tt.d, start, got, tt.want)
		}
	}
}

func TestFormatting(t *testing.T) {
	for in, want := range map[float64]string{1: "1.0", 0.5: "0.5", 1e7: "1.0E7", 1.25e-4: "1.25E-4", -3: "-3.0", 123456.789: "123456.789"} {
		if got := formatDouble(in); got != want {
			t.Errorf("formatDouble(%v) = %q, want %q", in, got, want)
		}
	}
	base := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	for ns, want := range map[int]string{0: "2024-05-01T10:00:00Z", 5e8: "2024-05-01T10:00:00.500Z", 1000: "2024-05-01T10:00:00.000001Z", 7: "2024-05-01T10:00:00.000000007Z"} {
		if got := formatInstant(base.Add(time.Duration(ns))); got != want {
			t.Errorf("formatInstant(+%dns) = %q, want %q", ns, got, want)
		}
	}
}
