package engine

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// fullCase is a case with every field of every type it holds set, so that
// a field added later and left out of Clone fails TestCloneIsDeep.
func fullCase() *Case {
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	due := at.Add(time.Hour)
	return &Case{ID: "c1", Tenant: "acme", Name: "Claim", DefinitionID: "def", ParentID: "p1", RootID: "r1", Depth: 1, Debug: true,
		CreatedOn: at, CreatedBy: "alice", LastModified: at, ModifiedBy: "bob",
		PlanItems: []*PlanItem{
			{ID: "c1", DefinitionID: "cp", Name: "Claim", Type: "CasePlan", StageID: "s", Index: 1, State: Active, HistoryState: Available,
				LastTransition: ManualStart, Required: true, Repeating: true, Discretionary: true, CreatedOn: at, LastModified: at, ModifiedBy: "bob",
				Seq: 4, ExitCriterion: "x1", TimerDue: &due, SubCaseID: "sub",
				Task: &HumanTask{Role: "Clerk", State: Assigned, Assignee: "carl", Owner: "carl", DueDate: &due,
					Input: map[string]any{"a": []any{int64(1), map[string]any{"b": "c"}}}, Output: map[string]any{"o": true},
					TaskModel: "{}", ActivatedOn: at, CreatedBy: "alice", LastModified: at, ModifiedBy: "carl", Documentation: "doc"},
				Process: &ProcessRun{CallID: "call", Calls: 2, StatusCode: 500, FailureReason: "down",
					Pending: &ProcessResult{Failed: true, Reason: "r", StatusCode: 200, Output: map[string]any{"x": []any{"y"}}}}},
		},
		File:            map[string]any{"Order": map[string]any{"Lines": []any{map[string]any{"n": 1.5}}}},
		FileStates:      map[string]State{"Order": Available},
		FileTransitions: map[string]string{"Order/Lines": "update"},
		FileCurrent:     map[string]int{"Order/Lines": 0},
		Team: Team{Members: []Member{{ID: "g", Type: GroupMember, CaseRoles: []string{"Clerk"}, IsOwner: true, Origin: "Tenant",
			Mappings: []GroupMapping{{GroupRole: "gr", IsOwner: true, CaseRoles: []string{"Clerk"}}}}}},
		Failures: 1, Sequence: 9,
	}
}

func TestCloneIsDeep(t *testing.T) {
	c := fullCase()
	assertEveryFieldSet(t, reflect.ValueOf(c).Elem())
	clone := c.Clone()
	if !reflect.DeepEqual(c, clone) {
		t.Fatalf("the clone differs:\n%+v\n%+v", c, clone)
	}
	a, _ := json.Marshal(c)
	b, _ := json.Marshal(clone)
	if string(a) != string(b) {
		t.Fatalf("the clone's JSON differs:\n%s\n%s", a, b)
	}
	assertNoSharing(t, "Case", reflect.ValueOf(c), reflect.ValueOf(clone))

	// Nil and empty stay as they were: the JSON of a case tells them apart.
	empty := &Case{PlanItems: []*PlanItem{}, File: map[string]any{}, Team: Team{Members: []Member{{CaseRoles: []string{}}}}}
	if got := empty.Clone(); !reflect.DeepEqual(empty, got) {
		t.Errorf("empty: %+v, want %+v", got, empty)
	}
	if got := (&Case{}).Clone(); !reflect.DeepEqual(&Case{}, got) {
		t.Errorf("zero case: %+v", got)
	}
}

// assertEveryFieldSet fails for each struct field, at any depth of v,
// that holds its zero value.
func assertEveryFieldSet(t *testing.T, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			assertEveryFieldSet(t, v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			assertEveryFieldSet(t, v.Index(i))
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			return
		}
		for i := range v.NumField() {
			if v.Field(i).IsZero() {
				t.Errorf("fullCase leaves %s.%s unset", v.Type().Name(), v.Type().Field(i).Name)
			}
			assertEveryFieldSet(t, v.Field(i))
		}
	}
}

// assertNoSharing fails where a and b, equal values, share memory that
// can change: a pointer, a map or a slice's elements.
func assertNoSharing(t *testing.T, path string, a, b reflect.Value) {
	t.Helper()
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Errorf("%s is shared", path)
		}
		assertNoSharing(t, path, a.Elem(), b.Elem())
	case reflect.Interface:
		if !a.IsNil() {
			assertNoSharing(t, path, a.Elem(), b.Elem())
		}
	case reflect.Map:
		if a.IsNil() {
			return
		}
		if a.UnsafePointer() == b.UnsafePointer() {
			t.Errorf("%s is shared", path)
		}
		for _, k := range a.MapKeys() {
			assertNoSharing(t, path+"["+k.String()+"]", a.MapIndex(k), b.MapIndex(k))
		}
	case reflect.Slice:
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			t.Errorf("%s is shared", path)
		}
		for i := range a.Len() {
			assertNoSharing(t, path+"[]", a.Index(i), b.Index(i))
		}
	case reflect.Struct:
		for i := range a.NumField() {
			assertNoSharing(t, path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))
		}
	}
}

func BenchmarkCloneCase(b *testing.B) {
	c := fullCase()
	b.Run("Clone", func(b *testing.B) {
		for b.Loop() {
			_ = c.Clone()
		}
	})
	b.Run("JSON", func(b *testing.B) {
		for b.Loop() {
			data, _ := json.Marshal(c)
			var out Case
			_ = json.Unmarshal(data, &out)
		}
	})
}

// BenchmarkDecodeCase decodes a stored case as db.decodeSnapshot does
// (UnmarshalJSON) and through json.Unmarshal, which scans the input twice
// more before it calls UnmarshalJSON.
func BenchmarkDecodeCase(b *testing.B) {
	data, err := json.Marshal(fullCase())
	if err != nil {
		b.Fatal(err)
	}
	for _, decode := range []struct {
		name string
		run  func(*Case) error
	}{
		{"UnmarshalJSON", func(c *Case) error { return c.UnmarshalJSON(data) }},
		{"json.Unmarshal", func(c *Case) error { return json.Unmarshal(data, c) }},
	} {
		b.Run(decode.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var c Case
				if err := decode.run(&c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
