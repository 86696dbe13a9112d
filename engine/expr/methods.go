package expr

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// methodSpec is the accepted number of arguments of a method.
type methodSpec struct{ min, max int }

// methodTable lists every method name the language accepts, with its
// arity. A name outside the table is a compile error, so a typo such as
// isActve() is caught when the definition is deployed. Engine objects may
// implement any of these names through [Caller].
var methodTable = map[string]methodSpec{
	// any value
	"toString": {0, 0}, "equals": {1, 1}, "getValue": {0, 0},
	// strings, lists and maps
	"length": {0, 0}, "size": {0, 0}, "isEmpty": {0, 0}, "isBlank": {0, 0},
	"contains": {1, 1}, "startsWith": {1, 1}, "endsWith": {1, 1},
	"indexOf": {1, 1}, "lastIndexOf": {1, 1}, "toUpperCase": {0, 0}, "toLowerCase": {0, 0},
	"trim": {0, 0}, "substring": {1, 2}, "replace": {2, 2}, "concat": {1, 1},
	"equalsIgnoreCase": {1, 1}, "charAt": {1, 1},
	"get": {1, 1}, "has": {1, 1}, "containsKey": {1, 1}, "containsValue": {1, 1},
	"keySet": {0, 0}, "values": {0, 0}, "merge": {1, 1},
	// numbers and booleans
	"intValue": {0, 0}, "longValue": {0, 0}, "doubleValue": {0, 0}, "booleanValue": {0, 0},
	// instants, dates, date-times and durations
	"plus": {1, 2}, "minus": {1, 2},
	"plusNanos": {1, 1}, "plusMillis": {1, 1}, "plusSeconds": {1, 1}, "plusMinutes": {1, 1},
	"plusHours": {1, 1}, "plusDays": {1, 1}, "plusWeeks": {1, 1}, "plusMonths": {1, 1}, "plusYears": {1, 1},
	"minusNanos": {1, 1}, "minusMillis": {1, 1}, "minusSeconds": {1, 1}, "minusMinutes": {1, 1},
	"minusHours": {1, 1}, "minusDays": {1, 1}, "minusWeeks": {1, 1}, "minusMonths": {1, 1}, "minusYears": {1, 1},
	"isBefore": {1, 1}, "isAfter": {1, 1}, "toEpochMilli": {0, 0}, "getEpochSecond": {0, 0},
	"atStartOfDay": {0, 0}, "toInstant": {0, 1}, "toLocalDate": {0, 0},
	"getYear": {0, 0}, "getMonthValue": {0, 0}, "getDayOfMonth": {0, 0},
	"getHour": {0, 0}, "getMinute": {0, 0}, "getSecond": {0, 0},
	"toMillis": {0, 0}, "getSeconds": {0, 0}, "toDays": {0, 0}, "toHours": {0, 0}, "toMinutes": {0, 0},
	"isNegative": {0, 0}, "isZero": {0, 0},
	// plan item states (case.plan..., stage.X.state.isActive())
	"isNull": {0, 0}, "isAvailable": {0, 0}, "isEnabled": {0, 0}, "isDisabled": {0, 0},
	"isActive": {0, 0}, "isSuspended": {0, 0}, "isFailed": {0, 0}, "isCompleted": {0, 0},
	"isTerminated": {0, 0}, "isClosed": {0, 0}, "isDiscarded": {0, 0},
	// engine object accessors in the reference engine's Java style
	"getId": {0, 0}, "getName": {0, 0}, "getIndex": {0, 0}, "getState": {0, 0}, "getCurrent": {0, 0},
}

// MethodNames returns, sorted, the method names expressions may call. An
// engine object implementing [Caller] answers those it supports.
func MethodNames() []string {
	names := make([]string, 0, len(methodTable))
	for n := range methodTable {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func checkMethod(name token, n int) error {
	spec, ok := methodTable[name.text]
	if !ok {
		return syntaxErr(name.pos, "unknown method %s()", name.text)
	}
	if n < spec.min || n > spec.max {
		return syntaxErr(name.pos, "method %s() takes %s, not %d", name.text, arity(spec.min, spec.max), n)
	}
	return nil
}

func arity(lo, hi int) string {
	plural := func(n int) string {
		if n == 1 {
			return "1 argument"
		}
		return fmt.Sprintf("%d arguments", n)
	}
	if lo == hi {
		return plural(lo)
	}
	return fmt.Sprintf("%d to %s", lo, plural(hi))
}

// stateMethods maps the state predicates to the state they test. On a plain
// string holding a state name (as the engine may expose a plan item state)
// the predicate compares the name.
var stateMethods = map[string]string{
	"isNull": "Null", "isAvailable": "Available", "isEnabled": "Enabled", "isDisabled": "Disabled",
	"isActive": "Active", "isSuspended": "Suspended", "isFailed": "Failed", "isCompleted": "Completed",
	"isTerminated": "Terminated", "isClosed": "Closed", "isDiscarded": "Discarded",
}

func callMethod(r any, name string, args []any) (any, error) {
	if c, ok := r.(Caller); ok {
		v, ok, err := c.CallMethod(name, args)
		if err != nil {
			return nil, fmt.Errorf("%s(): %w", name, err)
		}
		if ok {
			return normalize(v), nil
		}
	}
	switch name {
	case "toString":
		return toString(r), nil
	case "equals":
		return equal(r, args[0]), nil
	case "getValue":
		return plain(r), nil
	}
	p := plain(r)
	var (
		v       any
		handled bool
		err     error
	)
	switch x := p.(type) {
	case string:
		v, handled, err = stringMethod(x, name, args)
	case []any:
		v, handled, err = listMethod(x, name, args)
	case map[string]any:
		v, handled, err = mapMethod(x, name, args)
	case int64, float64:
		v, handled = numberMethod(x, name)
	case bool:
		v, handled = x, name == "booleanValue"
	case time.Time, Date, DateTime:
		v, handled, err = timeMethod(x, name, args)
	case Duration:
		v, handled = durationMethod(x, name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s(): %w", name, err)
	}
	if !handled {
		return nil, fmt.Errorf("method %s() is not supported on %s", name, typeName(r))
	}
	return v, nil
}

func stringArg(args []any, i int, method string) (string, error) {
	s, ok := plain(args[i]).(string)
	if !ok {
		return "", fmt.Errorf("argument %d of %s() must be a string, not %s", i+1, method, typeName(args[i]))
	}
	return s, nil
}

func intArg(args []any, i int, method string) (int64, error) {
	n, ok := toInt(args[i])
	if !ok {
		return 0, fmt.Errorf("argument %d of %s() must be a whole number, not %s", i+1, method, display(args[i]))
	}
	return n, nil
}

func stringMethod(s, name string, args []any) (any, bool, error) {
	if state, ok := stateMethods[name]; ok {
		return s == state, true, nil
	}
	switch name {
	case "length", "size":
		return int64(utf8.RuneCountInString(s)), true, nil
	case "isEmpty":
		return s == "", true, nil
	case "isBlank":
		return strings.TrimSpace(s) == "", true, nil
	case "toUpperCase":
		return strings.ToUpper(s), true, nil
	case "toLowerCase":
		return strings.ToLower(s), true, nil
	case "trim":
		return strings.TrimSpace(s), true, nil
	case "concat":
		return s + toString(args[0]), true, nil
	case "equalsIgnoreCase":
		o, ok := plain(args[0]).(string)
		return ok && strings.EqualFold(s, o), true, nil
	case "charAt", "substring":
		return substring(s, name, args)
	case "replace":
		a, err := stringArg(args, 0, name)
		if err != nil {
			return nil, true, err
		}
		b, err := stringArg(args, 1, name)
		return strings.ReplaceAll(s, a, b), true, err
	}
	switch name {
	case "contains", "startsWith", "endsWith", "indexOf", "lastIndexOf":
	default:
		return nil, false, nil
	}
	arg, err := stringArg(args, 0, name)
	if err != nil {
		return nil, true, err
	}
	switch name {
	case "contains":
		return strings.Contains(s, arg), true, nil
	case "startsWith":
		return strings.HasPrefix(s, arg), true, nil
	case "endsWith":
		return strings.HasSuffix(s, arg), true, nil
	}
	i := strings.Index(s, arg)
	if name == "lastIndexOf" {
		i = strings.LastIndex(s, arg)
	}
	if i < 0 {
		return int64(-1), true, nil
	}
	return int64(utf8.RuneCountInString(s[:i])), true, nil
}

func substring(s, name string, args []any) (any, bool, error) {
	runes := []rune(s)
	from, err := intArg(args, 0, name)
	if err != nil {
		return nil, true, err
	}
	to := from + 1
	if name == "substring" {
		to = int64(len(runes))
		if len(args) == 2 {
			if to, err = intArg(args, 1, name); err != nil {
				return nil, true, err
			}
		}
	}
	if from < 0 || to > int64(len(runes)) || from > to {
		return nil, true, fmt.Errorf("range %d..%d is out of bounds for a string of %d characters", from, to, len(runes))
	}
	return string(runes[from:to]), true, nil
}

func listMethod(l []any, name string, args []any) (any, bool, error) {
	switch name {
	case "size":
		return int64(len(l)), true, nil
	case "isEmpty":
		return len(l) == 0, true, nil
	case "get":
		v, err := index(l, args[0])
		return v, true, err
	case "contains":
		return slices.ContainsFunc(l, func(e any) bool { return equal(e, args[0]) }), true, nil
	case "indexOf":
		return int64(slices.IndexFunc(l, func(e any) bool { return equal(e, args[0]) })), true, nil
	}
	return nil, false, nil
}

func mapMethod(m map[string]any, name string, args []any) (any, bool, error) {
	switch name {
	case "size":
		return int64(len(m)), true, nil
	case "isEmpty":
		return len(m) == 0, true, nil
	case "get":
		return normalize(m[toString(args[0])]), true, nil
	case "has", "containsKey":
		_, ok := m[toString(args[0])]
		return ok, true, nil
	case "containsValue":
		for _, v := range m {
			if equal(v, args[0]) {
				return true, true, nil
			}
		}
		return false, true, nil
	case "keySet", "values":
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys) // Go maps are unordered; sorted keys keep results deterministic
		out := make([]any, len(keys))
		for i, k := range keys {
			if name == "keySet" {
				out[i] = k
			} else {
				out[i] = m[k]
			}
		}
		return out, true, nil
	case "merge":
		switch o := plain(args[0]).(type) {
		case nil:
			return merge(m, nil, 0), true, nil
		case map[string]any:
			return merge(m, o, 0), true, nil
		}
		return nil, true, fmt.Errorf("can only merge a map, not %s", typeName(args[0]))
	}
	return nil, false, nil
}

// merge returns a new map holding base overlaid with over, recursively for
// nested maps; neither input is modified, as they may be case file content.
func merge(base, over map[string]any, depth int) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bm, bok := normalize(out[k]).(map[string]any)
		om, ook := normalize(v).(map[string]any)
		if bok && ook && depth < maxDepth {
			out[k] = merge(bm, om, depth+1)
		} else {
			out[k] = v
		}
	}
	return out
}

func numberMethod(x any, name string) (any, bool) {
	switch name {
	case "intValue", "longValue":
		if f, ok := x.(float64); ok {
			return int64(f), true
		}
		return x, true
	case "doubleValue":
		return toFloat(x), true
	}
	return nil, false
}

// unitMethods maps plusX/minusX to the unit they shift by.
var unitMethods = map[string]chronoUnit{
	"Nanos": "NANOS", "Millis": "MILLIS", "Seconds": "SECONDS", "Minutes": "MINUTES",
	"Hours": "HOURS", "Days": "DAYS", "Weeks": "WEEKS", "Months": "MONTHS", "Years": "YEARS",
}

func timeMethod(x any, name string, args []any) (any, bool, error) {
	for _, prefix := range []string{"plus", "minus"} {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		sign := int64(1)
		if prefix == "minus" {
			sign = -1
		}
		if rest == "" {
			v, err := plusMinus(x, args, sign)
			return v, true, err
		}
		n, err := intArg(args, 0, name)
		if err != nil {
			return nil, true, err
		}
		v, err := shift(x, sign*n, unitMethods[rest])
		return v, true, err
	}
	switch name {
	case "isBefore", "isAfter":
		c, err := compare(x, args[0])
		if err != nil {
			return nil, true, err
		}
		return (name == "isBefore" && c < 0) || (name == "isAfter" && c > 0), true, nil
	}
	switch t := x.(type) {
	case time.Time:
		switch name {
		case "toEpochMilli":
			return t.UnixMilli(), true, nil
		case "getEpochSecond":
			return t.Unix(), true, nil
		}
	case Date:
		switch name {
		case "atStartOfDay":
			return DateTime{t: t.midnight()}, true, nil
		case "getYear":
			return int64(t.Year), true, nil
		case "getMonthValue":
			return int64(t.Month), true, nil
		case "getDayOfMonth":
			return int64(t.Day), true, nil
		}
	case DateTime:
		switch name {
		case "toInstant":
			offset := 0
			if len(args) == 1 {
				z, ok := plain(args[0]).(zoneValue)
				if !ok {
					return nil, true, fmt.Errorf("toInstant needs a zone offset such as T(java.time.ZoneOffset).UTC, not %s", typeName(args[0]))
				}
				offset = z.seconds
			}
			return t.t.Add(-time.Duration(offset) * time.Second), true, nil
		case "toLocalDate":
			return dateOf(t.t), true, nil
		case "getYear":
			return int64(t.t.Year()), true, nil
		case "getMonthValue":
			return int64(t.t.Month()), true, nil
		case "getDayOfMonth":
			return int64(t.t.Day()), true, nil
		case "getHour":
			return int64(t.t.Hour()), true, nil
		case "getMinute":
			return int64(t.t.Minute()), true, nil
		case "getSecond":
			return int64(t.t.Second()), true, nil
		}
	}
	return nil, false, nil
}

// plusMinus implements plus(amount, unit) and plus(duration).
func plusMinus(x any, args []any, sign int64) (any, error) {
	if len(args) == 1 {
		switch d := plain(args[0]).(type) {
		case Duration:
			return shiftBy(x, d, int(sign))
		case string:
			pd, err := ParseDuration(d)
			if err != nil {
				return nil, err
			}
			return shiftBy(x, pd, int(sign))
		}
		return nil, fmt.Errorf("needs a duration, not %s", typeName(args[0]))
	}
	n, err := intArg(args, 0, "plus")
	if err != nil {
		return nil, err
	}
	u, ok := plain(args[1]).(chronoUnit)
	if !ok {
		return nil, fmt.Errorf("needs a unit such as T(java.time.temporal.ChronoUnit).DAYS, not %s", typeName(args[1]))
	}
	return shift(x, sign*n, u)
}

func durationMethod(d Duration, name string) (any, bool) {
	switch name {
	case "isNegative":
		return d.exact() < 0 || d.Years < 0 || d.Months < 0, true
	case "isZero":
		return d == Duration{}, true
	}
	if !d.isExact() {
		return nil, false
	}
	e := d.exact()
	switch name {
	case "toMillis":
		return e.Milliseconds(), true
	case "getSeconds":
		return int64(e / time.Second), true
	case "toMinutes":
		return int64(e / time.Minute), true
	case "toHours":
		return int64(e / time.Hour), true
	case "toDays":
		return int64(e / (24 * time.Hour)), true
	}
	return nil, false
}
