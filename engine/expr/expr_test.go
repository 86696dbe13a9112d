package expr

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// state is an engine-like object: it has methods, and stands for its name.
type state string

func (s state) Value() any { return string(s) }
func (s state) CallMethod(name string, _ []any) (any, bool, error) {
	if name == "isActive" {
		return s == "Active", true, nil
	}
	return nil, false, nil
}

// planItem is an engine-like object with properties.
type planItem struct {
	name  string
	index int
	st    state
}

func (p *planItem) Field(name string) (any, bool) {
	switch name {
	case "name":
		return p.name, true
	case "index":
		return p.index, true
	case "state":
		return p.st, true
	case "stage":
		return &planItem{name: "Stage", index: 2, st: "Active"}, true
	}
	return nil, false
}

// plan answers case.plan["Stage"]["Task"] style lookups.
type plan map[string]*planItem

func (p plan) Field(name string) (any, bool) {
	v, ok := p[name]
	return v, ok
}

type panicky struct{}

func (panicky) Field(string) (any, bool) { panic("engine bug") }

var now = time.Date(2024, 5, 1, 10, 30, 0, 0, time.UTC)

func testEnv() Vars {
	return Vars{
		"now": now,
		"Greeting": map[string]any{
			"Message": "Hello", "To": "Joe", "From": "Ann",
		},
		"Response": map[string]any{"Message": "Left"},
		"Next":     float64(1),
		"count":    json.Number("3"),
		"ratio":    2.5,
		"empty":    []any{},
		"nothing":  nil,
		"TravelRequest": map[string]any{
			"TravelDetails": map[string]any{
				"DepartureDate": "2024-06-10",
				"Destination":   []any{map[string]any{"Country": "NL", "City": "Utrecht"}},
			},
			"TravellerDetails": map[string]any{
				"Traveller": []any{map[string]any{"Nationality": "US", "Name": "Bo"}},
			},
		},
		"case": map[string]any{
			"id":   "case-1",
			"file": map[string]any{"duration": map[string]any{"value": "PT2S"}, "item1": map[string]any{"grandchild": map[string]any{"done": true}}},
			"team": map[string]any{"role": map[string]any{"Approver": map[string]any{"member": nil}}},
			"plan": plan{"Stage": &planItem{name: "Stage", st: "Active"}},
		},
		"task":              &planItem{name: "Review", index: 1, st: "Active"},
		"stage":             map[string]any{"T2": &planItem{name: "T2", st: "Active"}, "T3": &planItem{name: "T3", st: "Completed"}},
		"discretionaryItem": map[string]any{"name": "Opnieuw T1"},
		"out":               []any{map[string]any{"v": 1}, int64(5)},
		"responseHeaders":   map[string]any{"Content-Type": []any{"application/json"}},
		"DetailsKey":        []any{"a", "b"},
		"Out":               map[string]any{"ChildName": "Kim", "ChildAge": int32(7)},
		"bad":               panicky{},
	}
}

func TestEval(t *testing.T) {
	tests := []struct {
		src  string
		want any
	}{
		// literals
		{"true", true},
		{"FALSE", false},
		{"null", nil},
		{"1887", int64(1887)},
		{"2.5", 2.5},
		{"1e3", 1000.0},
		{"7L", int64(7)},
		{"'It''s'", "It's"},
		{`"You've got mail"`, "You've got mail"},
		{`"{""a"":1}"`, `{"a":1}`},
		{"-1", int64(-1)},
		{"- -2", int64(2)},
		// property paths and indexing, as the models use them
		{"Greeting.To", "Joe"},
		{"Greeting.Missing", nil},
		{"TravelRequest.TravelDetails.Destination[0].Country", "NL"},
		{"TravelRequest['TravelDetails']['Destination'][0]['City']", "Utrecht"},
		{"case.plan['Stage'].name", "Stage"},
		{`case.plan["Stage"].state.isActive()`, true},
		{"case.file.item1.grandchild.done == true", true},
		{"case.file.item2?.done == true", false},
		{"case.team.role.Approver.member?.id", nil},
		{"case.team.role.Approver.member?.id + '@email.com'", "null@email.com"},
		{"task.index < 3", true},
		{"task.stage.index", int64(2)},
		{"'x'[0]", "x"},
		// comparisons and logic
		{"Next == 1", true},
		{"Next eq 1.0", true},
		{"Next != 2", true},
		{"count > 2", true},
		{"count * 2", int64(6)},
		{"1 lt 2 and 2 ge 2", true},
		{"1 == 0", false},
		{"'a' < 'b'", true},
		{"null < 1", true},
		{"1 == '1'", false},
		{"!DetailsKey.isEmpty()", true},
		{"not true", false},
		{"true or 1/0 == 1", true},
		{"false && 1/0 == 1", false},
		{"Response.Message == \"Left\"", true},
		{"TravelRequest.TravelDetails.Destination[0].Country != \"US\" or TravelRequest.TravellerDetails.Traveller[0].Nationality == \"US\"", true},
		{"TravelRequest.TravellerDetails.Traveller[0].Nationality != \"US\" and\nTravelRequest.TravelDetails.Destination[0].Country == \"US\"", false},
		{`discretionaryItem.name=="Opnieuw T1" || (stage.T2 != null && stage.T2.state.isActive())`, true},
		{"stage.T3.state.isActive()", false},
		{"stage.T3.state == 'Completed'", true},
		{"(11 != 13) && (2 * 2 == 4)", true},
		// arithmetic and concatenation
		{"7 / 2", int64(3)},
		{"7 div 2.0", 3.5},
		{"7 % 3", int64(1)},
		{"7 mod 3", int64(1)},
		{"ratio * 2", 5.0},
		{"1 + 2 * 3", int64(7)},
		{"(1 + 2) * 3", int64(9)},
		{"'n=' + 1", "n=1"},
		{"'r=' + ratio", "r=2.5"},
		{"'d=' + 2.0", "d=2.0"},
		{"Greeting.From + '@email.com'", "Ann@email.com"},
		{`"{""Approval"":" + map('ok', true).toString() + "}"`, `{"Approval":{"ok":true}}`},
		// ternary, elvis, safe navigation
		{"out.get(1) > 0 ? true : false", true},
		{"out.get(0).getValue()", map[string]any{"v": 1}}, // nested values pass through as given
		{"nothing ?: 'default'", "default"},
		{"'' ?: 'default'", "default"},
		{"Greeting.To ?: 'default'", "Joe"},
		{"nothing?.x", nil},
		{"nothing?.size()", nil},
		// methods
		{"Greeting.To.length()", int64(3)},
		{"Greeting.To.toUpperCase()", "JOE"},
		{"Greeting.Message.contains('ell')", true},
		{"Greeting.Message.substring(1, 3)", "el"},
		{"Greeting.equals(Greeting)", true},
		{"DetailsKey.size()", int64(2)},
		{"DetailsKey.contains('b')", true},
		{"empty.isEmpty()", true},
		{"responseHeaders.get(\"Content-Type\")", []any{"application/json"}},
		{"Greeting.has('To')", true},
		{"Greeting.containsKey('Nope')", false},
		{"Greeting.keySet()", []any{"From", "Message", "To"}},
		{"task.name.equals('Review')", true},
		{"Next.intValue()", int64(1)},
		// functions
		{"list(1, 'a', null)", []any{int64(1), "a", nil}},
		{"list()", []any{}},
		{`map("ChildName", Out.ChildName)`, map[string]any{"ChildName": "Kim"}},
		{`map("ChildAge", Out.ChildAge)`, map[string]any{"ChildAge": int64(7)}},
		{`map("port", -1)`, map[string]any{"port": int64(-1)}},
		{`map("title", Greeting.To, "type", "string")`, map[string]any{"title": "Joe", "type": "string"}},
		{`map("Message", "default message").merge(Greeting)`, map[string]any{"Message": "Hello", "To": "Joe", "From": "Ann"}},
		{`map("Message", "default").merge(map("To", "Kim")).size()`, int64(2)},
		{`map("a", map("b", 1, "c", 2)).merge(map("a", map("b", 3)))`, map[string]any{"a": map[string]any{"b": int64(3), "c": int64(2)}}},
		{`map("a", list(1,2)).toString()`, `{"a":[1,2]}`},
		// statics and time
		{"T(java.time.Instant).now()", now},
		{"T(java.time.Instant).now().toString()", "2024-05-01T10:30:00Z"},
		{"T(java.time.Instant).parse('2016-06-10T08:16:34.048792086Z').toString()", "2016-06-10T08:16:34.048792086Z"},
		{"T(java.time.LocalDate).parse(TravelRequest.TravelDetails.DepartureDate)", Date{2024, time.June, 10}},
		{"(T(java.time.LocalDate).parse(TravelRequest.TravelDetails.DepartureDate).atStartOfDay().toInstant(T(java.time.ZoneOffset).UTC)).toString()", "2024-06-10T00:00:00Z"},
		{"(T(java.time.LocalDate).parse(TravelRequest.TravelDetails.DepartureDate).atStartOfDay().toInstant(T(java.time.ZoneOffset).UTC).minus(1, T(java.time.temporal.ChronoUnit).DAYS)).toString()", "2024-06-09T00:00:00Z"},
		{"T(java.time.LocalDate).parse('2024-01-31').plusMonths(1).toString()", "2024-02-29"},
		{"T(java.time.LocalDate).parse('2024-03-31').minusMonths(13).toString()", "2023-02-28"},
		{"T(java.time.LocalDate).parse('2024-02-29').plusYears(1).toString()", "2025-02-28"},
		{"T(java.time.LocalDate).parse('2024-01-31').atStartOfDay().toString()", "2024-01-31T00:00"},
		{"T(java.time.Instant).now().plus(T(java.time.Duration).parse('PT1H')).isAfter(T(java.time.Instant).now())", true},
		{"T(java.time.Instant).now().plusSeconds(90).toEpochMilli() - T(java.time.Instant).now().toEpochMilli()", int64(90000)},
		{"T(java.time.Duration).ofMinutes(90).toString()", "PT1H30M"},
		{"T(java.time.Period).ofDays(2)", Duration{Days: 2}},
		{"T(java.time.temporal.ChronoUnit).DAYS", "Days"},
		{"T(java.time.ZoneOffset).UTC", "Z"},
		{"T(java.time.LocalDate).now()", Date{2024, time.May, 1}},
		{"T(Math).round(2.5)", int64(3)},
		{"T(java.lang.Math).max(2, 7)", int64(7)},
		{"T(Integer).parseInt('42') + 1", int64(43)},
		{"T(String).valueOf(12)", "12"},
		{"T(Long).MAX_VALUE", int64(math.MaxInt64)},
	}
	env := testEnv()
	for _, tt := range tests {
		x, err := Compile(tt.src)
		if err != nil {
			t.Errorf("Compile(%q): %v", tt.src, err)
			continue
		}
		got, err := x.Eval(env)
		if err != nil {
			t.Errorf("Eval(%q): %v", tt.src, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Eval(%q) = %#v (%T), want %#v (%T)", tt.src, got, got, tt.want, tt.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		src, wantErr string
	}{
		{"Unknown.x", `"Unknown" is not defined`},
		{"nothing.x", `cannot read property "x" of null`},
		{"nothing.size()", "cannot call size() on null"},
		{"empty[0]", "index 0 is out of range for a list of 0 elements"},
		{"1 / 0", "division by zero"},
		{"1 && true", "operator && needs a boolean"},
		{"!'x'", "operator ! needs a boolean"},
		{"'a' - 1", "operator - cannot combine a string and a number"},
		{"'a' < 1", "cannot compare a string with a number"},
		{"Greeting.To.get(0)", "method get() is not supported on a string"},
		{"task.nope", `has no property "nope"`},
		{"T(java.time.LocalDate).parse('10-06-2024')", "is not an ISO-8601 date"},
		{"T(java.time.Instant).now().plus(1, T(java.time.temporal.ChronoUnit).MONTHS)", "unit Months cannot be added to an instant"},
		{"'x' ? 1 : 2", "operator ?: needs a boolean"},
		{"bad.x", "internal error: engine bug"},
		{"Greeting.merge('x')", "can only merge a map"},
		{"T(java.time.Instant).now().plus(2000000000, T(java.time.temporal.ChronoUnit).DAYS)", "out of range"},
		{"T(java.time.Period).ofWeeks(10000)", "out of range"},
	}
	env := testEnv()
	for _, tt := range tests {
		x, err := Compile(tt.src)
		if err != nil {
			t.Errorf("Compile(%q): %v", tt.src, err)
			continue
		}
		got, err := x.Eval(env)
		if err == nil {
			t.Errorf("Eval(%q) = %#v, want error containing %q", tt.src, got, tt.wantErr)
			continue
		}
		if !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Eval(%q) error = %q, want it to contain %q", tt.src, err, tt.wantErr)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		src, wantErr string
	}{
		{"", "expression is empty"},
		{"   ", "expression is empty"},
		{"1 +", "unexpected end of expression"},
		{"(1", `expected ")"`},
		{"a b", `unexpected "b" after the end`},
		{"'open", "unterminated string"},
		{"a = 1", "assignment is not supported"},
		{"#root", "variables and functions (#name) are not supported"},
		{"@bean", "bean references"},
		{"{1,2}", "inline lists and maps are not supported"},
		{"$..id", "${...} substitutions belong in templates"},
		{"2 ^ 3", "power operator"},
		{"a instanceof b", `the "instanceof" operator is not supported`},
		{"new Object()", `the "new" operator is not supported`},
		{"x.isActve()", "unknown method isActve()"},
		{"x.get()", "method get() takes 1 argument, not 0"},
		{"x.substring()", "method substring() takes 1 to 2 arguments, not 0"},
		{"foo(1)", "unknown function foo(...)"},
		{"map('a')", "map(...) needs key and value pairs"},
		{"T(org.cafienne.cmmn.instance.State).Active", "unknown or unsupported class T(org.cafienne.cmmn.instance.State)"},
		{"T(java.time.Instant)", "must be followed by a static field or method"},
		{"T(java.time.Instant).later()", "T(java.time.Instant) has no supported static method later()"},
		{"T(java.time.Instant).NOW", "has no supported static field NOW"},
		{"T(java.lang.Math).random()", "the engine is deterministic"},
		{"T(java.time.Instant).now(1)", "takes 0 arguments, not 1"},
		{"a.", "expected a property or method name"},
		{"1.2.3", "unexpected"},
		{"12abc", "malformed number"},
		{"99999999999999999999", "out of range"},
		{"a ? b", `expected ":"`},
		{strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), "nested more than"},
		{strings.Repeat("!", 300) + "true", "nested more than"},
		{"1" + strings.Repeat("+1", 300), "nested more than"},
		{"a" + strings.Repeat(".b", 300), "nested more than"},
		{strings.Repeat("x", maxSourceLen+1), "longer than"},
		{"a\u00e9", "unexpected character"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.src)
		if err == nil {
			t.Errorf("Compile(%.40q) succeeded, want error containing %q", tt.src, tt.wantErr)
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Compile(%.40q) error %T, want *SyntaxError", tt.src, err)
		}
		if !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Compile(%.40q) error = %q, want it to contain %q", tt.src, err, tt.wantErr)
		}
	}
}

func TestEvalBool(t *testing.T) {
	env := testEnv()
	for src, want := range map[string]bool{"true": true, "nothing": false, "1 == 2": false} {
		got, err := mustCompile(t, src).EvalBool(env)
		if err != nil || got != want {
			t.Errorf("EvalBool(%q) = %v, %v; want %v", src, got, err, want)
		}
	}
	if _, err := mustCompile(t, "'yes'").EvalBool(env); err == nil || !strings.Contains(err.Error(), "not a boolean") {
		t.Errorf("EvalBool('yes') error = %v, want 'not a boolean'", err)
	}
}

func TestNoClock(t *testing.T) {
	_, err := mustCompile(t, "T(java.time.Instant).now()").Eval(Vars{})
	if err == nil || !strings.Contains(err.Error(), "provides no current time") {
		t.Fatalf("error = %v, want no current time", err)
	}
	_, err = mustCompile(t, "T(java.time.Instant).now()").Eval(Vars{"now": "today"})
	if err == nil || !strings.Contains(err.Error(), "not a time") {
		t.Fatalf("error = %v, want not a time", err)
	}
}

func TestRoots(t *testing.T) {
	x := mustCompile(t, "Greeting.To + case.id + Greeting.From + map('a', in.x).size()")
	want := []string{"Greeting", "case", "in"}
	if got := x.Roots(); !reflect.DeepEqual(got, want) {
		t.Errorf("Roots() = %v, want %v", got, want)
	}
}

func TestCompileIsDeterministic(t *testing.T) {
	src := "a.b[0]?.c(1) ?: T(java.time.Instant).now()"
	_, err := Compile(src)
	if err == nil {
		t.Fatal("want unknown method error")
	}
	a, b := mustCompile(t, "a.b[0]?.size() ?: list(1, 'x')"), mustCompile(t, "a.b[0]?.size() ?: list(1, 'x')")
	if !reflect.DeepEqual(a, b) {
		t.Error("two compilations of one source differ")
	}
}

func mustCompile(t *testing.T, src string) *Expr {
	t.Helper()
	x, err := Compile(src)
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	return x
}
