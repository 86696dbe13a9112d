package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"

	"github.com/casegraph/casegraph/engine/expr"
)

// Case file values are kept in one canonical form: nil, bool, string,
// int64 for whole numbers that a float64 represents exactly, float64 for
// other numbers, []any and map[string]any. JSON cannot tell 5 from 5.0,
// so neither may the engine: whatever comes in (a command's decoded JSON,
// Go ints from a test, a stored case read back as float64) is brought into
// this form, and a case behaves the same before and after a JSON round
// trip.

// maxValueDepth bounds the nesting of a value the engine accepts, so that
// a hostile document cannot exhaust the stack of the recursive walks.
const maxValueDepth = 256

// maxExactInt is the largest integer a float64 holds exactly.
const maxExactInt = 1 << 53

// canonical returns decoded JSON in canonical form, sharing nothing with v.
// Values that are not JSON are rendered as strings.
func canonical(v any) any {
	out, err := normalize(v, 0)
	if err != nil {
		return fmt.Sprint(v)
	}
	return out
}

func canonicalMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out, _ := canonical(m).(map[string]any)
	return out
}

// normalize copies v into canonical form. Values produced by expressions
// (instants, dates, durations) become their ISO-8601 text, as they would
// in the reference engine's JSON.
func normalize(v any, depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, fmt.Errorf("the value is nested deeper than %d levels", maxValueDepth)
	}
	switch x := v.(type) {
	case nil, bool, string, int64:
		return x, nil
	case float64:
		return number(x)
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case float32:
		return number(float64(x))
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", string(x))
		}
		return number(f)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := normalize(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := normalize(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano), nil
	case expr.Date:
		return x.String(), nil
	case expr.DateTime:
		return x.String(), nil
	case expr.Duration:
		return x.String(), nil
	}
	return normalizeOther(v, depth)
}

// normalizeOther handles the remaining Go values by reflection: other
// number kinds, typed slices and maps, and structs through their JSON form.
func normalizeOther(v any, depth int) (any, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return number(float64(u))
		}
		return int64(u), nil
	case reflect.Float32, reflect.Float64:
		return number(rv.Float())
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, nil
		}
		return normalize(rv.Elem().Interface(), depth+1)
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil, nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			n, err := normalize(rv.Index(i).Interface(), depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		out := make(map[string]any, rv.Len())
		iter := rv.MapRange()
		for iter.Next() {
			n, err := normalize(iter.Value().Interface(), depth+1)
			if err != nil {
				return nil, err
			}
			out[iter.Key().String()] = n
		}
		return out, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("a %T cannot be stored as JSON", v)
	}
	var decoded any
	if err := json.Unmarshal(data, &decoded); err != nil {
		return nil, fmt.Errorf("a %T cannot be stored as JSON", v)
	}
	return normalize(decoded, depth+1)
}

func number(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%v is not a JSON number", f)
	}
	if f == math.Trunc(f) && math.Abs(f) <= maxExactInt {
		return int64(f), nil
	}
	return f, nil
}

// UnmarshalJSON decodes a case stored by encoding/json and brings the case
// file and task parameters back into canonical form, so that the decoded
// case continues exactly as the original would have.
func (c *Case) UnmarshalJSON(data []byte) error {
	type stored Case // without methods, so that decoding does not recurse
	var s stored
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	*c = Case(s)
	c.File = canonicalMap(c.File)
	for _, p := range c.PlanItems {
		if p != nil && p.Task != nil {
			p.Task.Input = canonicalMap(p.Task.Input)
			p.Task.Output = canonicalMap(p.Task.Output)
		}
	}
	return nil
}

// equalValues compares canonical values.
func equalValues(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equalValues(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalValues(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	return a == b
}

// renderScalar renders a canonical value as the text of its JSON form,
// strings without quotes.
func renderScalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}
