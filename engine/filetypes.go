package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/casegraph/casegraph/engine/cmmn"
	"github.com/casegraph/casegraph/engine/expr"
)

// Case file values are checked the reference engine's way (JSONType.validate,
// addendum §1-§3): only objects are looked into. In an object, a field that
// is a declared property is type-checked, a field naming a child item is
// checked against that child, any other field is accepted. In a list on an
// array item only the object elements are checked; anything else (a
// primitive, a list on a single item) is accepted as it is.

// validateSlot checks a value about to go into s.
func validateSlot(s slot, v any) error {
	if msg := checkValue(s, v); msg != "" {
		return errorf(ErrInvalid, "%s", msg)
	}
	return nil
}

// checkValue returns the first problem with v in s, or "". v may still
// hold json.Number values as the caller sent them: only they tell 5.0
// (a double) from 5 (an integer).
func checkValue(s slot, v any) string {
	return checkItem(s.def, v, 0)
}

func checkItem(f *cmmn.CaseFileItem, v any, depth int) string {
	if depth > maxValueDepth {
		return ""
	}
	switch x := v.(type) {
	case map[string]any:
		return checkObject(f, x, depth)
	case []any:
		if !f.IsArray() {
			return ""
		}
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				if msg := checkObject(f, m, depth+1); msg != "" {
					return msg
				}
			}
		}
	}
	return ""
}

func checkObject(f *cmmn.CaseFileItem, m map[string]any, depth int) string {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if d := f.Definition(); d != nil {
			if p := d.Property(k); p != nil {
				if msg := checkProperty(p, m[k]); msg != "" {
					return msg
				}
				continue
			}
		}
		if child := f.Child(k); child != nil {
			if msg := checkItem(child, m[k], depth+1); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// valueClass names a JSON value as the reference engine's parser types it:
// an integer literal is a LongValue, a number with a fraction or exponent
// a DoubleValue.
func valueClass(v any) string {
	switch x := v.(type) {
	case string:
		return "StringValue"
	case bool:
		return "BooleanValue"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "DoubleValue"
		}
		return "LongValue"
	case int, int32, int64:
		return "LongValue"
	case float64:
		// A value that lost its text (an expression's result) reads as
		// the literal encoding/json would write for it.
		if x == math.Trunc(x) && math.Abs(x) < 1e21 {
			return "LongValue"
		}
		return "DoubleValue"
	case map[string]any:
		return "ValueMap"
	case []any:
		return "ValueList"
	}
	return fmt.Sprintf("%T", v)
}

// checkProperty returns the reference engine's message when v does not fit
// property p (addendum §2), "" when it does. Null fits every type.
func checkProperty(p *cmmn.Property, v any) string {
	if v == nil {
		return ""
	}
	class := valueClass(v)
	s, isString := v.(string)
	wrong := func() string {
		return fmt.Sprintf("Property '%s' has wrong type, expecting %s, found a %s", p.Name(), cmmn.PropertyTypeURI(p.Type()), class)
	}
	parsed := func(ok bool, what string) string {
		if !isString {
			return wrong()
		}
		if !ok {
			return fmt.Sprintf("Property '%s' has wrong type, expecting %s, found exception %q is not a valid %s",
				p.Name(), cmmn.PropertyTypeURI(p.Type()), s, what)
		}
		return ""
	}
	switch p.Type() {
	case cmmn.PropertyUnspecified:
		return ""
	case cmmn.PropertyString:
		if class == "ValueMap" || class == "ValueList" {
			return wrong()
		}
	case cmmn.PropertyQName, cmmn.PropertyAnyURI:
		if !isString {
			return wrong()
		}
	case cmmn.PropertyBoolean:
		if class != "BooleanValue" {
			return wrong()
		}
	case cmmn.PropertyInteger:
		if class != "LongValue" {
			return wrong()
		}
	case cmmn.PropertyFloat, cmmn.PropertyDouble, cmmn.PropertyDecimal:
		if class != "DoubleValue" {
			return wrong()
		}
	case cmmn.PropertyDate, cmmn.PropertyTime, cmmn.PropertyDateTime:
		return parsed(isXSDCalendar(s), "date, time or dateTime")
	case cmmn.PropertyDuration:
		_, err := expr.ParseDuration(s)
		return parsed(err == nil, "duration")
	}
	return ""
}

// xsdCalendarLayouts are the lexical forms of XMLGregorianCalendar: every
// date, time and dateTime form (and the g* forms), each with an optional
// time zone. The reference engine accepts any of them for any of the
// three types.
var xsdCalendarLayouts = []string{
	"2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05", "2006-01-02", "15:04:05.999999999", "15:04:05",
	"2006-01", "2006", "--01-02", "--01", "---02",
}

func isXSDCalendar(s string) bool {
	for _, l := range xsdCalendarLayouts {
		for _, tz := range []string{"", "Z07:00"} {
			if _, err := time.Parse(l+tz, s); err == nil {
				return true
			}
		}
	}
	return false
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
