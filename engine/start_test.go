package engine

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestStartInputs(t *testing.T) {
	family := func(size any, children ...string) map[string]any {
		var list []any
		for _, c := range children {
			list = append(list, map[string]any{"Name": c})
		}
		return map[string]any{"Family": map[string]any{"Name": "Smith", "Size": size, "Child": list}}
	}
	tests := []struct {
		name       string
		inputs     map[string]any
		wantGreet  []string
		wantBig    State
		wantErr    string
		wantEvents []string
	}{
		{name: "every child starts a stage", inputs: family(3, "Ann", "Bob", "Cid"),
			wantGreet: []string{"Ann", "Bob", "Cid"}, wantBig: Completed,
			wantEvents: []string{"Family:create", "Family/Child[0]:create", "Family/Child[1]:create", "Family/Child[2]:create"}},
		{name: "if-part on an input", inputs: family(2, "Ann"), wantGreet: []string{"Ann"}, wantBig: Available},
		{name: "no input, nothing starts", wantBig: Available},
		{name: "unknown input", inputs: map[string]any{"Nope": 1},
			wantErr: "An input parameter with name Nope is not defined in the case"},
		{name: "input of the wrong type", inputs: family("three"),
			wantErr: "Property 'Size' has wrong type, expecting http://www.omg.org/spec/CMMN/PropertyType/integer, found a StringValue"},
		{name: "nested input of the wrong type",
			inputs:  map[string]any{"Family": map[string]any{"Child": []any{map[string]any{"Born": "soon"}}}},
			wantErr: "Property 'Born' has wrong type, expecting http://www.omg.org/spec/CMMN/PropertyType/date, found exception \"soon\" is not a valid date, time or dateTime"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.wantErr != "" {
				if err := startErr(t, "inputs", tt.inputs); err.Kind != ErrInvalid || err.Msg != tt.wantErr {
					t.Errorf("error %q, want %q", err.Msg, tt.wantErr)
				}
				return
			}
			x := start(t, "inputs", tt.inputs)
			var greeted []string
			for _, p := range x.items("Greet child") {
				if p.State != Active {
					t.Errorf("Greet child in %s", p.State)
				}
				greeted = append(greeted, p.Task.Input["Child"].(map[string]any)["Name"].(string))
			}
			if !slices.Equal(greeted, tt.wantGreet) {
				t.Errorf("greeted %v, want %v", greeted, tt.wantGreet)
			}
			active := 0
			for _, p := range x.items("Welcome") {
				if p.State == Active {
					active++
				}
			}
			if active != len(tt.wantGreet) {
				t.Errorf("%d active Welcome stages, want %d:%s", active, len(tt.wantGreet), x.summary())
			}
			x.want(map[string]State{"Big family": tt.wantBig, "Inputs": Active})
			if tt.wantEvents != nil && !slices.Equal(fileEvents(x.events), tt.wantEvents) {
				t.Errorf("file events %v, want %v", fileEvents(x.events), tt.wantEvents)
			}
		})
	}
}

// script is the greeting case played to completion, with a JSON round trip
// of the case between commands when roundTrips is set.
func script(t *testing.T, roundTrips bool) ([]byte, *Case) {
	x := start(t, "greeting", greeting)
	all := slices.Clone(x.events)
	steps := []func() Command{
		func() Command {
			return ChangeCaseFile{Op: FileUpdate, Path: "Greeting", Value: map[string]any{"Message": "Hello again"}}
		},
		func() Command {
			return CompleteHumanTask{PlanItemID: x.item("Answer greeting").ID, Output: map[string]any{
				"Answer": map[string]any{"Text": "Hi", "Pleased": true}}}
		},
		func() Command { return MakeTransition{PlanItem: "Read answer", Transition: Complete} },
	}
	for _, step := range steps {
		if roundTrips {
			x.c = roundTrip(t, x.c)
		}
		all = append(all, x.do(step(), bob)...)
	}
	data, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	return data, x.c
}

// TestRoundTripAndDeterminism plays the same commands twice, once with the
// case stored and read back as JSON between every command: the events and
// the final state must be the same.
func TestRoundTripAndDeterminism(t *testing.T) {
	plain, c1 := script(t, false)
	stored, c2 := script(t, true)
	if string(plain) != string(stored) {
		t.Errorf("events differ after JSON round trips:\n%s\n%s", plain, stored)
	}
	s1, _ := json.Marshal(c1)
	s2, _ := json.Marshal(c2)
	if string(s1) != string(s2) {
		t.Errorf("states differ after JSON round trips:\n%s\n%s", s1, s2)
	}
	if c2.State() != Completed {
		t.Errorf("case state %s", c2.State())
	}
	again, _ := script(t, false)
	if string(plain) != string(again) {
		t.Error("two runs of the same commands produced different events")
	}
}

// TestRoundTripNumbers checks that numbers in the case file behave the same
// whatever their Go type: an int, a float64 read back from JSON.
func TestRoundTripNumbers(t *testing.T) {
	x := start(t, "sentries", nil)
	x.do(ChangeCaseFile{Op: FileCreate, Path: "Order", Value: map[string]any{"Amount": 150}}, alice)
	x.c = roundTrip(t, x.c)
	// 150 read back is a float64; the same value is no change.
	x.do(ChangeCaseFile{Op: FileUpdate, Path: "Order", Value: map[string]any{"Amount": 150.0}}, alice)
	if len(fileEvents(x.events)) != 0 {
		t.Errorf("an equal number counted as a change: %v", fileEvents(x.events))
	}
	x.do(ChangeCaseFile{Op: FileUpdate, Path: "Order", Value: map[string]any{"Amount": json.Number("151")}}, alice)
	x.want(map[string]State{"Big order": Completed})
	if v, ok := x.c.File["Order"].(map[string]any)["Amount"].(int64); !ok || v != 151 {
		t.Errorf("Amount = %#v, want int64 151", x.c.File["Order"].(map[string]any)["Amount"])
	}
}
