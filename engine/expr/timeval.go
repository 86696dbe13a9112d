package expr

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Date is a calendar date without time of day or zone, the Go counterpart
// of java.time.LocalDate (T(java.time.LocalDate).parse('2024-05-01')).
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// String formats the date as ISO-8601, yyyy-MM-dd.
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

func (d Date) midnight() time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC)
}

func dateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

func (d Date) compare(o Date) int { return d.midnight().Compare(o.midnight()) }

// DateTime is a date and time of day without zone, the Go counterpart of
// java.time.LocalDateTime, as produced by LocalDate.atStartOfDay().
type DateTime struct {
	t time.Time // wall clock, kept in UTC
}

// Wall returns the date and time of day, with UTC standing for "no zone".
func (dt DateTime) Wall() time.Time { return dt.t }

// String formats like Java: yyyy-MM-ddTHH:mm, with seconds and fraction only
// when they are not zero.
func (dt DateTime) String() string {
	s := dt.t.Format("2006-01-02T15:04")
	if dt.t.Second() != 0 || dt.t.Nanosecond() != 0 {
		s += fmt.Sprintf(":%02d", dt.t.Second()) + fraction(dt.t.Nanosecond())
	}
	return s
}

// formatInstant formats like java.time.Instant.toString: UTC, seconds always
// present, the fraction in groups of three digits.
func formatInstant(t time.Time) string {
	t = t.UTC()
	return t.Format("2006-01-02T15:04:05") + fraction(t.Nanosecond()) + "Z"
}

func fraction(ns int) string {
	switch {
	case ns == 0:
		return ""
	case ns%1e6 == 0:
		return fmt.Sprintf(".%03d", ns/1e6)
	case ns%1e3 == 0:
		return fmt.Sprintf(".%06d", ns/1e3)
	}
	return fmt.Sprintf(".%09d", ns)
}

func parseInstant(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an ISO-8601 instant", s)
	}
	return t.UTC(), nil
}

func parseDate(s string) (Date, error) {
	t, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err != nil {
		return Date{}, fmt.Errorf("%q is not an ISO-8601 date (yyyy-MM-dd)", s)
	}
	return dateOf(t), nil
}

func parseDateTime(s string) (DateTime, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return DateTime{t: t}, nil
		}
	}
	return DateTime{}, fmt.Errorf("%q is not an ISO-8601 local date-time", s)
}

// Duration is an ISO-8601 duration such as PT2S, P2DT10S or P1Y2M. Years,
// months and days are calendar amounts; Time is exact. It covers both
// java.time.Duration and java.time.Period.
type Duration struct {
	Years, Months, Days int
	Time                time.Duration
}

// maxCalendarAmount bounds years, months and days (weeks included) of a
// duration: far beyond any timer, and small enough that days plus the exact
// part still fit in a time.Duration.
const maxCalendarAmount = 50_000

// ParseDuration parses an ISO-8601 duration: an optional sign, P, then
// nY nM nW nD, then optionally T with nH nM and n[.n]S. At least one
// component is required, as in Java.
func ParseDuration(s string) (Duration, error) {
	orig := s
	bad := func(why string) (Duration, error) {
		return Duration{}, fmt.Errorf("%q is not an ISO-8601 duration: %s", orig, why)
	}
	s = strings.ToUpper(strings.TrimSpace(s))
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	} else if strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	if !strings.HasPrefix(s, "P") {
		return bad("it must start with P")
	}
	s = s[1:]
	datePart, timePart, hasT := strings.Cut(s, "T")
	if datePart == "" && !hasT {
		return bad("it has no components")
	}
	if hasT && timePart == "" {
		return bad("T must be followed by hours, minutes or seconds")
	}
	var d Duration
	order := "YMWD"
	for datePart != "" {
		n, unit, rest, err := durationComponent(datePart, false)
		if err != nil {
			return bad(err.Error())
		}
		at := strings.IndexByte(order, unit)
		if at < 0 {
			return bad(fmt.Sprintf("unexpected %q in the date part", unit))
		}
		order = order[at+1:]
		if n > maxCalendarAmount {
			return bad("an amount is too large")
		}
		switch unit {
		case 'Y':
			d.Years = int(n)
		case 'M':
			d.Months = int(n)
		case 'W':
			d.Days += int(n) * 7
		case 'D':
			d.Days += int(n)
		}
		datePart = rest
	}
	if d.Days > maxCalendarAmount {
		return bad("an amount is too large")
	}
	order = "HMS"
	var total float64
	for timePart != "" {
		n, unit, rest, err := durationComponent(timePart, true)
		if err != nil {
			return bad(err.Error())
		}
		at := strings.IndexByte(order, unit)
		if at < 0 {
			return bad(fmt.Sprintf("unexpected %q in the time part", unit))
		}
		order = order[at+1:]
		switch unit {
		case 'H':
			total += n * float64(time.Hour)
		case 'M':
			total += n * float64(time.Minute)
		case 'S':
			total += n * float64(time.Second)
		}
		timePart = rest
	}
	if total >= math.MaxInt64/2 {
		return bad("it is too long")
	}
	d.Time = time.Duration(math.Round(total))
	if neg {
		d = Duration{Years: -d.Years, Months: -d.Months, Days: -d.Days, Time: -d.Time}
	}
	return d, nil
}

// durationComponent reads one "<number><unit>" from s. Only seconds may
// carry a fraction.
func durationComponent(s string, timePart bool) (float64, byte, string, error) {
	i := 0
	for i < len(s) && (isDigit(s[i]) || s[i] == '.' || s[i] == ',') {
		i++
	}
	if i == 0 {
		return 0, 0, "", errors.New("a number is missing")
	}
	if i == len(s) {
		return 0, 0, "", errors.New("a unit is missing")
	}
	num := strings.ReplaceAll(s[:i], ",", ".")
	unit := s[i]
	if strings.Contains(num, ".") && !(timePart && unit == 'S') {
		return 0, 0, "", errors.New("only seconds may have a fraction")
	}
	if len(num) > 18 {
		return 0, 0, "", errors.New("an amount is too large")
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, 0, "", fmt.Errorf("bad number %q", num)
	}
	return n, unit, s[i+1:], nil
}

// String formats the duration in ISO-8601; a zero duration is PT0S.
func (d Duration) String() string {
	var b strings.Builder
	b.WriteString("P")
	if d.Years != 0 {
		fmt.Fprintf(&b, "%dY", d.Years)
	}
	if d.Months != 0 {
		fmt.Fprintf(&b, "%dM", d.Months)
	}
	if d.Days != 0 {
		fmt.Fprintf(&b, "%dD", d.Days)
	}
	if d.Time == 0 && b.Len() > 1 {
		return b.String()
	}
	b.WriteString("T")
	t := d.Time
	if h := t / time.Hour; h != 0 {
		fmt.Fprintf(&b, "%dH", h)
		t -= h * time.Hour
	}
	if m := t / time.Minute; m != 0 {
		fmt.Fprintf(&b, "%dM", m)
		t -= m * time.Minute
	}
	if t != 0 || b.Len() == 2 {
		sec := strconv.FormatFloat(t.Seconds(), 'f', -1, 64)
		b.WriteString(sec + "S")
	}
	return b.String()
}

// AddTo returns t moved by the duration: calendar parts first, then the
// exact time.
func (d Duration) AddTo(t time.Time) time.Time {
	return addCalendar(t, d.Years, d.Months, d.Days).Add(d.Time)
}

// addCalendar adds years and months as java.time does, keeping the day
// within the target month (January 31 plus one month is February 29 or 28,
// where time.AddDate would roll over into March), then adds days.
func addCalendar(t time.Time, years, months, days int) time.Time {
	if years != 0 || months != 0 {
		y, m, d := t.Date()
		total := int(m) - 1 + months + 12*years
		y += total / 12
		mm := total % 12
		if mm < 0 {
			mm += 12
			y--
		}
		first := time.Date(y, time.Month(mm+1), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
		last := first.AddDate(0, 1, -1).Day()
		t = first.AddDate(0, 0, min(d, last)-1)
	}
	return t.AddDate(0, 0, days)
}

func (d Duration) isExact() bool { return d.Years == 0 && d.Months == 0 }

func (d Duration) exact() time.Duration { return time.Duration(d.Days)*24*time.Hour + d.Time }

// chronoUnit is a value of T(java.time.temporal.ChronoUnit).
type chronoUnit string

var chronoUnits = []chronoUnit{"NANOS", "MICROS", "MILLIS", "SECONDS", "MINUTES", "HOURS", "HALF_DAYS", "DAYS", "WEEKS", "MONTHS", "YEARS", "DECADES", "CENTURIES"}

// String prints the unit as Java does: "Days", "HalfDays".
func (u chronoUnit) String() string {
	var b strings.Builder
	for _, part := range strings.Split(string(u), "_") {
		b.WriteString(part[:1] + strings.ToLower(part[1:]))
	}
	return b.String()
}

// exact returns the length of time-based units.
func (u chronoUnit) exact() (time.Duration, bool) {
	switch u {
	case "NANOS":
		return time.Nanosecond, true
	case "MICROS":
		return time.Microsecond, true
	case "MILLIS":
		return time.Millisecond, true
	case "SECONDS":
		return time.Second, true
	case "MINUTES":
		return time.Minute, true
	case "HOURS":
		return time.Hour, true
	case "HALF_DAYS":
		return 12 * time.Hour, true
	case "DAYS":
		return 24 * time.Hour, true
	}
	return 0, false
}

// calendar returns years, months, days for date-based units.
func (u chronoUnit) calendar(n int) (y, m, d int, ok bool) {
	switch u {
	case "DAYS":
		return 0, 0, n, true
	case "WEEKS":
		return 0, 0, 7 * n, true
	case "MONTHS":
		return 0, n, 0, true
	case "YEARS":
		return n, 0, 0, true
	case "DECADES":
		return 10 * n, 0, 0, true
	case "CENTURIES":
		return 100 * n, 0, 0, true
	}
	return 0, 0, 0, false
}

// zoneValue is a fixed zone offset, the value of T(java.time.ZoneOffset).UTC.
// Named zones are not supported: resolving them would read the system's
// time zone database.
type zoneValue struct{ seconds int }

// String formats the offset as java.time does: Z, or +01:00.
func (z zoneValue) String() string {
	if z.seconds == 0 {
		return "Z"
	}
	sign := "+"
	s := z.seconds
	if s < 0 {
		sign, s = "-", -s
	}
	return fmt.Sprintf("%s%02d:%02d", sign, s/3600, s/60%60)
}

// shift moves a time by amount units, for plus/minus on instants, dates and
// date-times. Instants take only exact units, dates only calendar units.
func shift(v any, amount int64, unit chronoUnit) (any, error) {
	if amount > math.MaxInt32 || amount < math.MinInt32 {
		return nil, fmt.Errorf("amount %d is too large", amount)
	}
	if d, ok := unit.exact(); ok && (amount > math.MaxInt64/int64(d) || amount < math.MinInt64/int64(d)) {
		return nil, fmt.Errorf("%d %s is out of range", amount, unit)
	}
	switch x := v.(type) {
	case time.Time:
		if d, ok := unit.exact(); ok {
			return x.Add(time.Duration(amount) * d), nil
		}
	case Date:
		if y, m, d, ok := unit.calendar(int(amount)); ok {
			return dateOf(addCalendar(x.midnight(), y, m, d)), nil
		}
	case DateTime:
		if y, m, d, ok := unit.calendar(int(amount)); ok {
			return DateTime{t: addCalendar(x.t, y, m, d)}, nil
		}
		if d, ok := unit.exact(); ok {
			return DateTime{t: x.t.Add(time.Duration(amount) * d)}, nil
		}
	}
	return nil, fmt.Errorf("unit %s cannot be added to %s", unit, typeName(v))
}

// shiftBy adds (sign 1) or subtracts (sign -1) a Duration.
func shiftBy(v any, d Duration, sign int) (any, error) {
	if sign < 0 {
		d = Duration{Years: -d.Years, Months: -d.Months, Days: -d.Days, Time: -d.Time}
	}
	switch x := v.(type) {
	case time.Time:
		if !d.isExact() {
			return nil, fmt.Errorf("a duration with years or months cannot be added to an instant")
		}
		return x.Add(d.exact()), nil
	case Date:
		if d.Time != 0 {
			return nil, fmt.Errorf("a duration with hours, minutes or seconds cannot be added to a date")
		}
		return dateOf(addCalendar(x.midnight(), d.Years, d.Months, d.Days)), nil
	case DateTime:
		return DateTime{t: d.AddTo(x.t)}, nil
	}
	return nil, fmt.Errorf("a duration cannot be added to %s", typeName(v))
}
