package engine

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzEventsRoundTrip checks that events survive encoding: whatever
// DecodeEvent accepts encodes again to JSON that decodes to the same. The
// seed corpus is the events of a whole greeting case, its task passed
// around on the way.
func FuzzEventsRoundTrip(f *testing.F) {
	x := start(f, "greeting", greeting)
	events := x.events
	answer := x.item("Answer greeting").ID
	events = append(events, x.do(SaveTaskOutput{TaskID: answer, Output: map[string]any{"Answer": map[string]any{"Text": 1.5}}}, bob)...)
	events = append(events, x.do(DelegateTask{TaskID: answer, Assignee: "carol"}, alice)...)
	events = append(events, x.do(RevokeTask{TaskID: answer}, alice)...)
	events = append(events, x.do(ClaimTask{TaskID: answer}, alice)...)
	events = append(events, x.do(CompleteHumanTask{PlanItemID: x.item("Answer greeting").ID,
		Output: map[string]any{"Answer": map[string]any{"Text": "Hi", "Pleased": true}}}, bob)...)
	events = append(events, x.do(MakeTransition{PlanItem: "Read answer", Transition: Suspend}, alice)...)
	events = append(events, x.do(MakeTransition{PlanItem: "case-1", Transition: Terminate}, alice)...)
	for _, e := range events {
		data, err := e.MarshalPayload()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(e.Type, []byte(data))
	}
	f.Add("CaseFileItemTransitioned", []byte(`{"value":{"a":[1,2.5,"x",null,{"b":true}]},"index":-1}`))
	f.Add("Nope", []byte(`{}`))
	f.Fuzz(func(t *testing.T, typ string, payload []byte) {
		e, err := DecodeEvent(typ, payload)
		if err != nil {
			return
		}
		if e.Type != typ || eventName(e.Payload) != typ {
			t.Fatalf("decoded %s as %s (%T)", typ, e.Type, e.Payload)
		}
		once, err := e.MarshalPayload()
		if err != nil {
			t.Fatalf("encode %s: %v", typ, err)
		}
		e2, err := DecodeEvent(typ, once)
		if err != nil {
			t.Fatalf("decode %s again: %v\n%s", typ, err, once)
		}
		twice, err := e2.MarshalPayload()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("%s changed in a round trip:\n%s\n%s", typ, once, twice)
		}
	})
}

// FuzzChangeCaseFile runs case file commands with any path and value, as
// they come from HTTP: the engine must answer with an error or a case that
// still round-trips, and never panic.
func FuzzChangeCaseFile(f *testing.F) {
	for _, seed := range []struct{ op, path, value string }{
		{"create", "Root", `{"Text":"t","Count":3,"Entries":[{"Code":"a"}],"Child":{"Name":"c"}}`},
		{"update", "", `{"Root":{"Count":2.5},"Notes":[1,2]}`},
		{"replace", "Root/Entries[0]", `{"Code":"b"}`},
		{"delete", "Root/Entries[3]", `null`},
		{"create", "Root/Entries", `[{"Amount":"x"},{"Amount":1}]`},
		{"update", "Root[", `1`},
		{"update", "Root/Child/Name", `"x"`},
		{"create", "//", `{}`},
	} {
		f.Add(seed.op, seed.path, []byte(seed.value))
	}
	x := start(f, "casefile", nil)
	base, err := json.Marshal(x.c)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, op, path string, value []byte) {
		var v any
		dec := json.NewDecoder(bytes.NewReader(value))
		dec.UseNumber()
		if dec.Decode(&v) != nil {
			return
		}
		var c Case
		if err := json.Unmarshal(base, &c); err != nil {
			t.Fatal(err)
		}
		def := model(t, "casefile")
		for _, cmd := range []Command{
			ChangeCaseFile{Op: CaseFileOp(op), Path: path, Value: v},
			ChangeCaseFile{Op: FileUpdate, Path: path, Value: v},
		} {
			if _, err := Execute(def, &c, cmd, carol, Env{Now: t0}); err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("error of type %T: %v", err, err)
				}
				return
			}
			data, err := json.Marshal(&c)
			if err != nil {
				t.Fatalf("the case no longer encodes: %v", err)
			}
			var back Case
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if !equalValues(any(back.File), any(c.File)) {
				t.Fatalf("case file changed in a round trip: %v vs %v", back.File, c.File)
			}
			BusinessIdentifiers(def, &c)
			c.Timers()
		}
	})
}

// FuzzParsePath checks the case file path syntax: a path that parses
// renders back (name and [index] per step) to a path that parses to the
// same steps, every step names an item, and a refused path names one of
// its own parts as the offender.
func FuzzParsePath(f *testing.F) {
	for _, p := range []string{
		"", "Root", "Root/Entries[0]", "Root/Entries[12]/Code", "Order/Lines[1]/Product",
		"Root[", "Root]", "[0]", "Root[-1]", "Root[+1]", "Root[01]", "Root[1][2]", "//", "Root/",
		"Root[99999999999999999999]", "Ro[o]t[1]", "Root/Child/Name",
	} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		parts, bad, ok := parsePath(path)
		if !ok {
			if !slices.Contains(strings.Split(path, "/"), bad) {
				t.Fatalf("parsePath(%q) blames %q, which is not one of its parts", path, bad)
			}
			return
		}
		if path == "" {
			if len(parts) != 0 {
				t.Fatalf("the empty path has steps %v", parts)
			}
			return
		}
		if len(parts) != strings.Count(path, "/")+1 {
			t.Fatalf("parsePath(%q) has %d steps", path, len(parts))
		}
		rendered := renderPath(parts)
		again, bad, ok := parsePath(rendered)
		if !ok {
			t.Fatalf("%q renders as %q, which is refused at %q", path, rendered, bad)
		}
		if len(again) != len(parts) {
			t.Fatalf("%q and its rendering %q differ in steps", path, rendered)
		}
		for i, p := range parts {
			if p.name == "" || strings.ContainsAny(p.name, "/[]") || p.index < -1 {
				t.Fatalf("parsePath(%q): step %d is %+v", path, i, p)
			}
			if again[i].name != p.name || again[i].index != p.index {
				t.Fatalf("%q step %d is %+v, its rendering %q has %+v", path, i, p, rendered, again[i])
			}
		}
		if renderPath(again) != rendered {
			t.Fatalf("rendering %q is not stable", rendered)
		}
	})
}

func renderPath(parts []pathPart) string {
	steps := make([]string, len(parts))
	for i, p := range parts {
		steps[i] = p.name
		if p.index >= 0 {
			steps[i] += "[" + strconv.Itoa(p.index) + "]"
		}
	}
	return strings.Join(steps, "/")
}
