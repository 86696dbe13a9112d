package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/casegraph/casegraph/engine/cmmn"
	"github.com/casegraph/casegraph/engine/expr"
)

// validateSlot checks a value about to go into s against the item's
// definition: typed properties, nested child items. JSON fields that are
// neither are accepted as content (reference 1.1.14).
func validateSlot(s slot, v any) error {
	if msg := checkValue(s, v); msg != "" {
		return errorf(ErrInvalid, "%s", msg)
	}
	return nil
}

// checkValue returns the first problem with v in s, or "".
func checkValue(s slot, v any) string {
	if list, ok := v.([]any); ok && s.isWholeArray() {
		for i, e := range list {
			if msg := checkItem(s.def, fmt.Sprintf("%s[%d]", s.array, i), e, 0); msg != "" {
				return msg
			}
		}
		return ""
	}
	return checkItem(s.def, s.path, v, 0)
}

// structured reports whether an item's values must be JSON objects.
func structured(f *cmmn.CaseFileItem) bool {
	return len(f.Children()) > 0 || (f.Definition() != nil && len(f.Definition().Properties()) > 0)
}

func checkItem(f *cmmn.CaseFileItem, path string, v any, depth int) string {
	if v == nil || depth > maxValueDepth {
		return ""
	}
	if _, isList := v.([]any); isList && f.Definition() != nil {
		// Only items of multiplicity ZeroOrMore or OneOrMore hold a list;
		// an element of one is a single value too. An item without a
		// definition holds any JSON value, a list included.
		if f.IsArray() {
			return fmt.Sprintf("An element of case file item '%s' cannot be a list", path)
		}
		return fmt.Sprintf("The case file item '%s' has multiplicity %s, so it holds one value and cannot be given a list", path, f.Multiplicity())
	}
	m, ok := v.(map[string]any)
	if !ok {
		if structured(f) {
			return fmt.Sprintf("The value of case file item '%s' must be a JSON object, not %s", path, display(v))
		}
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		x := m[k]
		if child := f.Child(k); child != nil {
			if list, isList := x.([]any); isList && child.IsArray() {
				for i, e := range list {
					if msg := checkItem(child, fmt.Sprintf("%s/%s[%d]", path, k, i), e, depth+1); msg != "" {
						return msg
					}
				}
				continue
			}
			if msg := checkItem(child, path+"/"+k, x, depth+1); msg != "" {
				return msg
			}
			continue
		}
		if f.Definition() == nil {
			continue
		}
		if p := f.Definition().Property(k); p != nil {
			if want := checkProperty(p.Type(), x); want != "" {
				return fmt.Sprintf("Property '%s' of case file item '%s' has value %s, which is not %s", k, path, display(x), want)
			}
		}
	}
	return ""
}

// checkProperty returns what a value of type t must be when v is not one,
// or "" when v fits. Null fits every type.
func checkProperty(t cmmn.PropertyType, v any) string {
	if v == nil {
		return ""
	}
	s, isString := v.(string)
	switch t {
	case cmmn.PropertyString, cmmn.PropertyQName, cmmn.PropertyAnyURI:
		if !isString {
			return "a string"
		}
	case cmmn.PropertyBoolean:
		if _, ok := v.(bool); !ok {
			return "a boolean"
		}
	case cmmn.PropertyInteger:
		if _, ok := v.(int64); !ok {
			return "an integer"
		}
	case cmmn.PropertyFloat, cmmn.PropertyDouble, cmmn.PropertyDecimal:
		switch v.(type) {
		case int64, float64:
		default:
			return "a number"
		}
	case cmmn.PropertyDate:
		if !isString || !parses(s, time.DateOnly) {
			return "a date (yyyy-mm-dd)"
		}
	case cmmn.PropertyTime:
		if !isString || !parses(s, "15:04:05Z07:00", "15:04:05", "15:04") {
			return "a time (hh:mm:ss)"
		}
	case cmmn.PropertyDateTime:
		if !isString || !parses(s, time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04") {
			return "a date-time (ISO-8601)"
		}
	case cmmn.PropertyDuration:
		if !isString {
			return "a duration (ISO-8601)"
		}
		if _, err := expr.ParseDuration(s); err != nil {
			return "a duration (ISO-8601)"
		}
	}
	return ""
}

func parses(s string, layouts ...string) bool {
	for _, l := range layouts {
		if _, err := time.Parse(l, s); err == nil {
			return true
		}
	}
	return false
}

// display renders a value for a message, shortened.
func display(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(data)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// conform shapes a value after its definition: a single value given for
// an array child item becomes a list of one, so that the stored case file
// always holds arrays where the model says so.
func conform(f *cmmn.CaseFileItem, v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok || depth > maxValueDepth {
		return v
	}
	for _, child := range f.Children() {
		x, present := m[child.Name()]
		if !present || x == nil {
			continue
		}
		if child.IsArray() {
			list, isList := x.([]any)
			if !isList {
				list = []any{x}
			}
			for i, e := range list {
				list[i] = conform(child, e, depth+1)
			}
			m[child.Name()] = list
			continue
		}
		m[child.Name()] = conform(child, x, depth+1)
	}
	return m
}

// conformSlot shapes a value about to go into s.
func conformSlot(s slot, v any) any {
	if list, ok := v.([]any); ok && s.isWholeArray() {
		for i, e := range list {
			list[i] = conform(s.def, e, 0)
		}
		return list
	}
	return conform(s.def, v, 0)
}
