package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// staticFunc is a supported static method of a T(...) class.
type staticFunc struct {
	minArgs, maxArgs int
	call             func(c *evalCtx, args []any) (any, error)
}

// staticClass is a Java class reachable through T(...): the static fields
// and methods the models use, and methods refused with a reason.
type staticClass struct {
	fields  map[string]any
	methods map[string]staticFunc
	refused map[string]string
}

// lookupStatic finds a class by its qualified name; java.lang classes are
// also found by their simple name, as in SpEL.
func lookupStatic(name string) *staticClass {
	if c, ok := staticClasses[name]; ok {
		return c
	}
	return staticClasses["java.lang."+name]
}

func fixed(n int, f func(c *evalCtx, args []any) (any, error)) staticFunc {
	return staticFunc{minArgs: n, maxArgs: n, call: f}
}

// withString adapts a parse function taking one string argument.
func withString[T any](parse func(string) (T, error)) staticFunc {
	return fixed(1, func(_ *evalCtx, args []any) (any, error) {
		s, ok := plain(args[0]).(string)
		if !ok {
			return nil, fmt.Errorf("needs a string, not %s", typeName(args[0]))
		}
		v, err := parse(s)
		if err != nil {
			return nil, err
		}
		return v, nil
	})
}

func withInt(f func(n int64) (any, error)) staticFunc {
	return fixed(1, func(_ *evalCtx, args []any) (any, error) {
		n, ok := toInt(args[0])
		if !ok {
			return nil, fmt.Errorf("needs a whole number, not %s", display(args[0]))
		}
		return f(n)
	})
}

func withNumber(f func(x any) (any, error)) staticFunc {
	return fixed(1, func(_ *evalCtx, args []any) (any, error) {
		x := plain(args[0])
		if !isNumber(x) {
			return nil, fmt.Errorf("needs a number, not %s", typeName(x))
		}
		return f(x)
	})
}

func durationOf(unit time.Duration) staticFunc {
	return withInt(func(n int64) (any, error) {
		if n > math.MaxInt64/int64(unit) || n < math.MinInt64/int64(unit) {
			return nil, fmt.Errorf("%d is out of range", n)
		}
		return Duration{Time: time.Duration(n) * unit}, nil
	})
}

func calendarOf(years, months, days int) staticFunc {
	return withInt(func(n int64) (any, error) {
		if n > maxCalendarAmount/int64(max(years, months, days)) || n < -maxCalendarAmount {
			return nil, fmt.Errorf("%d is out of range", n)
		}
		return Duration{Years: years * int(n), Months: months * int(n), Days: days * int(n)}, nil
	})
}

func minMax(pickFirst func(c int) bool) staticFunc {
	return fixed(2, func(_ *evalCtx, args []any) (any, error) {
		a, b := plain(args[0]), plain(args[1])
		if !isNumber(a) || !isNumber(b) {
			return nil, fmt.Errorf("needs two numbers")
		}
		c, _ := compare(a, b)
		if pickFirst(c) {
			return a, nil
		}
		return b, nil
	})
}

var staticClasses = map[string]*staticClass{
	"java.time.Instant": {
		fields: map[string]any{"EPOCH": time.Unix(0, 0).UTC()},
		methods: map[string]staticFunc{
			"now":           fixed(0, func(c *evalCtx, _ []any) (any, error) { return c.now() }),
			"parse":         withString(parseInstant),
			"ofEpochMilli":  withInt(func(n int64) (any, error) { return time.UnixMilli(n).UTC(), nil }),
			"ofEpochSecond": withInt(func(n int64) (any, error) { return time.Unix(n, 0).UTC(), nil }),
		},
	},
	"java.time.LocalDate": {
		methods: map[string]staticFunc{
			"now": fixed(0, func(c *evalCtx, _ []any) (any, error) {
				t, err := c.now()
				if err != nil {
					return nil, err
				}
				return dateOf(t.(time.Time)), nil
			}),
			"parse": withString(parseDate),
			"of": fixed(3, func(_ *evalCtx, args []any) (any, error) {
				var n [3]int64
				for i := range n {
					v, ok := toInt(args[i])
					if !ok {
						return nil, fmt.Errorf("needs year, month and day as whole numbers")
					}
					n[i] = v
				}
				if n[0] < -999999 || n[0] > 999999 || n[1] < 1 || n[1] > 12 || n[2] < 1 || n[2] > 31 {
					return nil, fmt.Errorf("%d-%d-%d is not a valid date", n[0], n[1], n[2])
				}
				d := Date{Year: int(n[0]), Month: time.Month(n[1]), Day: int(n[2])}
				if dateOf(d.midnight()) != d {
					return nil, fmt.Errorf("%s is not a valid date", d)
				}
				return d, nil
			}),
		},
	},
	"java.time.LocalDateTime": {
		methods: map[string]staticFunc{
			"now": fixed(0, func(c *evalCtx, _ []any) (any, error) {
				t, err := c.now()
				if err != nil {
					return nil, err
				}
				return DateTime{t: t.(time.Time)}, nil
			}),
			"parse": withString(parseDateTime),
		},
	},
	"java.time.Duration": {
		fields: map[string]any{"ZERO": Duration{}},
		methods: map[string]staticFunc{
			"parse":     withString(ParseDuration),
			"ofDays":    durationOf(24 * time.Hour),
			"ofHours":   durationOf(time.Hour),
			"ofMinutes": durationOf(time.Minute),
			"ofSeconds": durationOf(time.Second),
			"ofMillis":  durationOf(time.Millisecond),
		},
	},
	"java.time.Period": {
		fields: map[string]any{"ZERO": Duration{}},
		methods: map[string]staticFunc{
			"parse":    withString(ParseDuration),
			"ofDays":   calendarOf(0, 0, 1),
			"ofWeeks":  calendarOf(0, 0, 7),
			"ofMonths": calendarOf(0, 1, 0),
			"ofYears":  calendarOf(1, 0, 0),
		},
	},
	"java.time.ZoneOffset": {
		fields: map[string]any{"UTC": zoneValue{}},
		methods: map[string]staticFunc{
			"ofHours": withInt(func(n int64) (any, error) {
				if n < -18 || n > 18 {
					return nil, fmt.Errorf("zone offset %d hours is out of range", n)
				}
				return zoneValue{seconds: int(n) * 3600}, nil
			}),
		},
	},
	"java.time.temporal.ChronoUnit": {fields: chronoFields()},
	"java.lang.Math": {
		methods: map[string]staticFunc{
			"abs": withNumber(func(x any) (any, error) {
				if i, ok := x.(int64); ok {
					if i < 0 {
						return -i, nil
					}
					return i, nil
				}
				return math.Abs(toFloat(x)), nil
			}),
			"round": withNumber(func(x any) (any, error) {
				if i, ok := x.(int64); ok {
					return i, nil
				}
				f := math.Floor(toFloat(x) + 0.5)
				if math.IsNaN(f) || f >= math.MaxInt64 || f < math.MinInt64 {
					return nil, fmt.Errorf("%s cannot be rounded to a whole number", formatDouble(toFloat(x)))
				}
				return int64(f), nil
			}),
			"floor": withNumber(func(x any) (any, error) { return math.Floor(toFloat(x)), nil }),
			"ceil":  withNumber(func(x any) (any, error) { return math.Ceil(toFloat(x)), nil }),
			"min":   minMax(func(c int) bool { return c <= 0 }),
			"max":   minMax(func(c int) bool { return c >= 0 }),
		},
		refused: map[string]string{"random": "the engine is deterministic; pass random values in as data"},
	},
	"java.lang.String": {
		methods: map[string]staticFunc{
			"valueOf": fixed(1, func(_ *evalCtx, args []any) (any, error) { return toString(args[0]), nil }),
		},
	},
	"java.lang.Integer": {
		fields:  map[string]any{"MAX_VALUE": int64(math.MaxInt32), "MIN_VALUE": int64(math.MinInt32)},
		methods: map[string]staticFunc{"parseInt": withString(parseInteger), "valueOf": withString(parseInteger)},
	},
	"java.lang.Long": {
		fields:  map[string]any{"MAX_VALUE": int64(math.MaxInt64), "MIN_VALUE": int64(math.MinInt64)},
		methods: map[string]staticFunc{"parseLong": withString(parseInteger), "valueOf": withString(parseInteger)},
	},
	"java.lang.Double": {
		methods: map[string]staticFunc{"parseDouble": withString(parseDouble), "valueOf": withString(parseDouble)},
	},
	"java.lang.Boolean": {
		fields: map[string]any{"TRUE": true, "FALSE": false},
		methods: map[string]staticFunc{
			"parseBoolean": withString(func(s string) (bool, error) { return strings.EqualFold(s, "true"), nil }),
			"valueOf":      withString(func(s string) (bool, error) { return strings.EqualFold(s, "true"), nil }),
		},
	},
}

func chronoFields() map[string]any {
	m := make(map[string]any, len(chronoUnits))
	for _, u := range chronoUnits {
		m[string(u)] = u
	}
	return m
}

func parseInteger(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number", s)
	}
	return n, nil
}

func parseDouble(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return f, nil
}
