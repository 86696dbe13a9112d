package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// t0 is the time every test case starts at.
var t0 = time.Date(2024, 5, 6, 17, 6, 12, 0, time.UTC)

var (
	modelsMu sync.Mutex
	models   = map[string]*cmmn.Case{}
)

// model parses testdata/<name>.xml once and returns its main case.
func model(tb testing.TB, name string) *cmmn.Case {
	tb.Helper()
	modelsMu.Lock()
	defer modelsMu.Unlock()
	if def, ok := models[name]; ok {
		return def
	}
	data, err := os.ReadFile(filepath.Join("testdata", name+".xml"))
	if err != nil {
		tb.Fatal(err)
	}
	defs, err := cmmn.Parse(data)
	if err != nil {
		tb.Fatalf("parse %s: %v", name, err)
	}
	models[name] = defs.Main()
	return defs.Main()
}

var (
	alice = Actor{UserID: "alice", IsOwner: true}
	bob   = Actor{UserID: "bob", Roles: []string{"Receiver"}}
	carol = Actor{UserID: "carol"}
)

// tc is a case under test: its definition, state and a deterministic
// environment (a counter for ids, a clock moved by hand).
type tc struct {
	t      testing.TB
	def    *cmmn.Case
	c      *Case
	now    time.Time
	n      int
	events []Event // of the last command
}

func (x *tc) env() Env {
	return Env{Now: x.now, NewID: func() string { x.n++; return fmt.Sprintf("pi-%d", x.n) }}
}

// start starts a case of model name with inputs, by alice, who owns it.
func start(t testing.TB, name string, inputs map[string]any) *tc {
	t.Helper()
	x := &tc{t: t, def: model(t, name), now: t0}
	c, events, err := Start(x.def, StartCase{ID: "case-1", Tenant: "world", Inputs: inputs,
		Team: Team{Members: []Member{{ID: "alice", Type: UserMember, IsOwner: true, CaseRoles: []string{}}}}}, alice, x.env())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	x.c, x.events = c, events
	checkEvents(t, c, events)
	return x
}

// startErr starts a case that must fail, and returns the error.
func startErr(t testing.TB, name string, inputs map[string]any) *Error {
	t.Helper()
	x := &tc{t: t, def: model(t, name), now: t0}
	_, _, err := Start(x.def, StartCase{ID: "case-1", Inputs: inputs}, alice, x.env())
	return asError(t, err)
}

// do runs a command that must succeed.
func (x *tc) do(cmd Command, as Actor) []Event {
	x.t.Helper()
	x.now = x.now.Add(time.Minute)
	before := x.c.Sequence
	events, err := Execute(x.def, x.c, cmd, as, x.env())
	if err != nil {
		x.t.Fatalf("%T %+v: %v", cmd, cmd, err)
	}
	if x.c.Sequence != before+int64(len(events)) {
		x.t.Fatalf("sequence %d after %d events from %d", x.c.Sequence, len(events), before)
	}
	x.events = events
	checkEvents(x.t, x.c, events)
	return events
}

// fail runs a command that must fail, on a copy of the case, and returns
// the error; the case under test stays as it was.
func (x *tc) fail(cmd Command, as Actor) *Error {
	x.t.Helper()
	c := roundTrip(x.t, x.c)
	_, err := Execute(x.def, c, cmd, as, x.env())
	return asError(x.t, err)
}

func asError(t testing.TB, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want an *engine.Error, got %v", err)
	}
	return e
}

// checkEvents checks what every command's events share: CaseModified last,
// and every payload a known type that survives encoding.
func checkEvents(t testing.TB, c *Case, events []Event) {
	t.Helper()
	if len(events) == 0 || events[len(events)-1].Type != "CaseModified" {
		t.Fatalf("events do not end with CaseModified: %v", eventTypesOf(events))
	}
	for _, e := range events {
		data, err := e.MarshalPayload()
		if err != nil {
			t.Fatalf("marshal %s: %v", e.Type, err)
		}
		if _, err := DecodeEvent(e.Type, data); err != nil {
			t.Fatal(err)
		}
	}
}

func eventTypesOf(events []Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Type)
	}
	return out
}

// item returns the newest plan item called name.
func (x *tc) item(name string) *PlanItem {
	x.t.Helper()
	for _, p := range slices.Backward(x.c.PlanItems) {
		if p.Name == name {
			return p
		}
	}
	x.t.Fatalf("no plan item %q; items: %s", name, x.summary())
	return nil
}

// items returns every instance called name, oldest first.
func (x *tc) items(name string) []*PlanItem {
	var out []*PlanItem
	for _, p := range x.c.PlanItems {
		if p.Name == name {
			out = append(out, p)
		}
	}
	return out
}

// state returns the state of the newest item called name.
func (x *tc) state(name string) State { x.t.Helper(); return x.item(name).State }

// want checks the states of the newest items by name.
func (x *tc) want(states map[string]State) {
	x.t.Helper()
	for name, want := range states {
		if got := x.state(name); got != want {
			x.t.Errorf("%s is %s, want %s; items: %s", name, got, want, x.summary())
		}
	}
}

func (x *tc) summary() string {
	s := ""
	for _, p := range x.c.PlanItems {
		s += fmt.Sprintf("\n  %s %q[%d] %s (%s)", p.Type, p.Name, p.Index, p.State, p.LastTransition)
	}
	return s
}

// fileJSON returns the case file as JSON.
func (x *tc) fileJSON() string {
	x.t.Helper()
	data, err := json.Marshal(x.c.File)
	if err != nil {
		x.t.Fatal(err)
	}
	return string(data)
}

// roundTrip returns c after a JSON round trip.
func roundTrip(t testing.TB, c *Case) *Case {
	t.Helper()
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var out Case
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// transitions returns "Name:Transition" for every PlanItemTransitioned.
func transitions(events []Event) []string {
	var out []string
	for _, e := range events {
		if p, ok := e.Payload.(PlanItemTransitioned); ok {
			out = append(out, p.Name+":"+string(p.Transition))
		}
	}
	return out
}

// fileEvents returns "path:transition" for every CaseFileItemTransitioned.
func fileEvents(events []Event) []string {
	var out []string
	for _, e := range events {
		if p, ok := e.Payload.(CaseFileItemTransitioned); ok {
			out = append(out, p.Path+":"+p.Transition)
		}
	}
	return out
}
