package expr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// normalize brings a value from the environment into the canonical forms the
// evaluator works with: int64, float64, time.Time in UTC, []any and
// map[string]any. It converts lazily, one level at a time, as a value is
// reached, so a large case file is never copied as a whole.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int64, float64, []any, map[string]any,
		Date, DateTime, Duration, chronoUnit, zoneValue:
		return v
	case time.Time:
		return x.UTC()
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint:
		return uintValue(uint64(x))
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		return uintValue(x)
	case float32:
		return float64(x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return string(x)
	case time.Duration:
		return Duration{Time: x}
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, s := range x {
			out[k] = s
		}
		return out
	}
	return v
}

func uintValue(u uint64) any {
	if u > math.MaxInt64 {
		return float64(u)
	}
	return int64(u)
}

// plain unwraps Valuer objects, for operators that work on plain values.
func plain(v any) any {
	for range 8 { // a Valuer returning itself must not loop forever
		vv, ok := v.(Valuer)
		if !ok {
			return normalize(v)
		}
		v = vv.Value()
	}
	return normalize(v)
}

// exported turns internal helper values into plain values before they leave
// the package.
func exported(v any) any {
	switch x := v.(type) {
	case chronoUnit, zoneValue:
		return toString(x)
	}
	return v
}

func typeName(v any) string {
	switch plain(v).(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	case time.Time:
		return "an instant"
	case Date:
		return "a date"
	case DateTime:
		return "a date-time"
	case Duration:
		return "a duration"
	case chronoUnit:
		return "a time unit"
	case zoneValue:
		return "a zone offset"
	}
	return fmt.Sprintf("a %T", v)
}

// display renders a value for an error message, shortened.
func display(v any) string {
	s := toString(v)
	if _, ok := plain(v).(string); ok {
		s = strconv.Quote(s)
	}
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// toString converts like Java's String.valueOf / SpEL string conversion:
// maps and lists become JSON, instants ISO-8601, doubles Java's notation.
func toString(v any) string {
	switch x := plain(v).(type) {
	case nil:
		return "null"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return formatDouble(x)
	case time.Time:
		return formatInstant(x)
	case Date:
		return x.String()
	case DateTime:
		return x.String()
	case Duration:
		return x.String()
	case chronoUnit:
		return x.String()
	case zoneValue:
		return x.String()
	case []any, map[string]any:
		return toJSON(x)
	case fmt.Stringer:
		return x.String()
	default:
		return fmt.Sprintf("%v", x)
	}
}

// formatDouble mimics Java's Double.toString, so that concatenating a
// double gives the text the reference engine produces.
func formatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	abs := math.Abs(f)
	if f == 0 || (abs >= 1e-3 && abs < 1e7) {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, 64)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	sign := ""
	if strings.HasPrefix(exp, "-") {
		sign = "-"
	}
	exp = strings.TrimLeft(exp, "+-0")
	return mant + "E" + sign + exp
}

func toJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(jsonValue(v, 0)); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// jsonValue prepares a value for encoding/json: it can then never fail, as
// NaN and unknown types are replaced by text.
func jsonValue(v any, depth int) any {
	if depth > maxDepth {
		return "..."
	}
	switch x := plain(v).(type) {
	case nil, bool, string, int64:
		return x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return formatDouble(x)
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e, depth+1)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e, depth+1)
		}
		return out
	default:
		return toString(x)
	}
}

func isNumber(v any) bool {
	switch v.(type) {
	case int64, float64:
		return true
	}
	return false
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// toInt accepts integers and integral doubles (JSON numbers often arrive as
// float64).
func toInt(v any) (int64, bool) {
	switch x := plain(v).(type) {
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	}
	return 0, false
}

func equal(a, b any) bool {
	return equalDepth(a, b, 0)
}

func equalDepth(a, b any, depth int) bool {
	a, b = plain(a), plain(b)
	if depth > maxDepth {
		return false
	}
	if isNumber(a) && isNumber(b) {
		ai, aInt := a.(int64)
		bi, bInt := b.(int64)
		if aInt && bInt {
			return ai == bi
		}
		return toFloat(a) == toFloat(b)
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalDepth(x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equalDepth(xv, yv, depth+1) {
				return false
			}
		}
		return true
	}
	if b == nil {
		return false
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta != tb || !ta.Comparable() {
		return false
	}
	return a == b
}

// compare orders two values as SpEL's standard comparator does: null sorts
// before everything, numbers by value, strings lexically, times by instant.
func compare(a, b any) (int, error) {
	a, b = plain(a), plain(b)
	switch {
	case a == nil && b == nil:
		return 0, nil
	case a == nil:
		return -1, nil
	case b == nil:
		return 1, nil
	case isNumber(a) && isNumber(b):
		ai, aInt := a.(int64)
		bi, bInt := b.(int64)
		if aInt && bInt {
			return cmpOrdered(ai, bi), nil
		}
		return cmpOrdered(toFloat(a), toFloat(b)), nil
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), nil
		}
	case bool:
		if y, ok := b.(bool); ok {
			return cmpOrdered(boolInt(x), boolInt(y)), nil
		}
	case time.Time:
		if y, ok := b.(time.Time); ok {
			return x.Compare(y), nil
		}
	case Date:
		if y, ok := b.(Date); ok {
			return x.compare(y), nil
		}
	case DateTime:
		if y, ok := b.(DateTime); ok {
			return x.t.Compare(y.t), nil
		}
	case Duration:
		if y, ok := b.(Duration); ok {
			if x.isExact() && y.isExact() {
				return cmpOrdered(x.exact(), y.exact()), nil
			}
			return 0, fmt.Errorf("durations with years or months cannot be compared")
		}
	}
	return 0, fmt.Errorf("cannot compare %s with %s", typeName(a), typeName(b))
}

func cmpOrdered[T int64 | float64 | int | time.Duration](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func binary(op string, l, r any) (any, error) {
	switch op {
	case "==":
		return equal(l, r), nil
	case "!=":
		return !equal(l, r), nil
	case "<", "<=", ">", ">=":
		c, err := compare(l, r)
		if err != nil {
			return nil, err
		}
		switch op {
		case "<":
			return c < 0, nil
		case "<=":
			return c <= 0, nil
		case ">":
			return c > 0, nil
		}
		return c >= 0, nil
	}
	a, b := plain(l), plain(r)
	if op == "+" {
		_, ls := a.(string)
		_, rs := b.(string)
		if ls || rs {
			return toString(a) + toString(b), nil
		}
	}
	if !isNumber(a) || !isNumber(b) {
		return nil, fmt.Errorf("operator %s cannot combine %s and %s", op, typeName(a), typeName(b))
	}
	ai, aInt := a.(int64)
	bi, bInt := b.(int64)
	if aInt && bInt {
		switch op {
		case "+":
			return ai + bi, nil
		case "-":
			return ai - bi, nil
		case "*":
			return ai * bi, nil
		case "/", "%":
			if bi == 0 {
				return nil, fmt.Errorf("division by zero")
			}
			if ai == math.MinInt64 && bi == -1 { // the one overflowing case
				if op == "/" {
					return ai, nil
				}
				return int64(0), nil
			}
			if op == "/" {
				return ai / bi, nil
			}
			return ai % bi, nil
		}
	}
	x, y := toFloat(a), toFloat(b)
	switch op {
	case "+":
		return x + y, nil
	case "-":
		return x - y, nil
	case "*":
		return x * y, nil
	case "/":
		return x / y, nil
	default: // "%"
		return math.Mod(x, y), nil
	}
}

// property reads name from a map or an engine object.
func property(r any, name string) (any, error) {
	if o, ok := r.(Object); ok {
		if v, ok := o.Field(name); ok {
			return normalize(v), nil
		}
		if _, ok := r.(Valuer); !ok {
			return nil, fmt.Errorf("%s has no property %q", typeName(r), name)
		}
	}
	switch x := plain(r).(type) {
	case map[string]any:
		return normalize(x[name]), nil
	case Object:
		return property(x, name)
	}
	return nil, fmt.Errorf("cannot read property %q of %s", name, typeName(r))
}

// index implements a[k]: list positions, map keys, string characters. On an
// engine object, a[k] is its get(k) method or, for a string key, a property.
func index(r, k any) (any, error) {
	if _, ok := r.(Caller); ok {
		if v, err := callMethod(r, "get", []any{k}); err == nil {
			return v, nil
		}
	}
	if o, ok := r.(Object); ok {
		if s, isStr := plain(k).(string); isStr {
			if v, ok := o.Field(s); ok {
				return normalize(v), nil
			}
		}
	}
	switch x := plain(r).(type) {
	case []any:
		i, ok := toInt(k)
		if !ok {
			return nil, fmt.Errorf("a list index must be a whole number, not %s", display(k))
		}
		if i < 0 || i >= int64(len(x)) {
			return nil, fmt.Errorf("index %d is out of range for a list of %d elements", i, len(x))
		}
		return normalize(x[i]), nil
	case map[string]any:
		return normalize(x[toString(k)]), nil
	case string:
		i, ok := toInt(k)
		runes := []rune(x)
		if !ok || i < 0 || i >= int64(len(runes)) {
			return nil, fmt.Errorf("index %s is out of range for a string of %d characters", display(k), len(runes))
		}
		return string(runes[i]), nil
	}
	return nil, fmt.Errorf("cannot index %s with %s", typeName(r), display(k))
}
