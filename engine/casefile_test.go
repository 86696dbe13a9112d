package engine

import (
	"encoding/json"
	"slices"
	"testing"
)

// wrongType is the reference engine's message for a property value of the
// wrong type; found is "a CLASS" or "exception MSG".
func wrongType(name, typ, found string) string {
	return "Property '" + name + "' has wrong type, expecting http://www.omg.org/spec/CMMN/PropertyType/" + typ + ", found " + found
}

func TestCaseFile(t *testing.T) {
	create := func(path string, v any) Command { return ChangeCaseFile{Op: FileCreate, Path: path, Value: v} }
	update := func(path string, v any) Command { return ChangeCaseFile{Op: FileUpdate, Path: path, Value: v} }
	replace := func(path string, v any) Command { return ChangeCaseFile{Op: FileReplace, Path: path, Value: v} }
	del := func(path string) Command { return ChangeCaseFile{Op: FileDelete, Path: path} }
	root := func(kv ...any) Command { return create("Root", obj(kv...)) }
	withEntries := []Command{root("Text", "t"), create("Root/Entries", []any{obj("Code", "a"), obj("Code", "b")})}

	tests := []struct {
		name       string
		before     []Command
		cmd        Command
		wantErr    string
		wantFile   string
		wantEvents []string
	}{
		{
			name: "create with every property type and unknown content",
			cmd: root("Text", "t", "Flag", true, "Count", 3.0, "Ratio", 0.5, "Day", "2024-05-06", "Clock", "10:30:00",
				"Moment", "2024-05-06T10:30:00Z", "Wait", "P1DT2H", "Anything", obj("a", []any{1}), "Extra", "kept"),
			wantFile: `{"Root":{"Anything":{"a":[1]},"Clock":"10:30:00","Count":3,"Day":"2024-05-06","Extra":"kept",` +
				`"Flag":true,"Moment":"2024-05-06T10:30:00Z","Ratio":0.5,"Text":"t","Wait":"P1DT2H"}}`,
			wantEvents: []string{"Root:create"},
		},
		{
			name:    "second create",
			before:  []Command{root("Text", "t")},
			cmd:     root("Text", "u"),
			wantErr: "CreateCaseFileItem[Root] cannot be done because item is in state Available",
		},
		{
			name:       "update of an absent item creates it",
			cmd:        update("Root", obj("Count", 1)),
			wantFile:   `{"Root":{"Count":1}}`,
			wantEvents: []string{"Root:create"},
		},
		{
			name:       "update merges recursively",
			before:     []Command{root("Text", "t", "Anything", obj("a", 1, "b", obj("c", 1)))},
			cmd:        update("Root", obj("Anything", obj("b", obj("d", 2)))),
			wantFile:   `{"Root":{"Anything":{"a":1,"b":{"c":1,"d":2}},"Text":"t"}}`,
			wantEvents: []string{"Root:update"},
		},
		{
			name:       "an update without change emits nothing",
			before:     []Command{root("Text", "t", "Count", 1)},
			cmd:        update("Root", obj("Count", 1.0, "Text", "t")),
			wantFile:   `{"Root":{"Count":1,"Text":"t"}}`,
			wantEvents: []string{},
		},
		{
			name:       "an untyped item holds any value, and the same value is no change",
			before:     []Command{create("Notes", "x")},
			cmd:        update("Notes", "x"),
			wantFile:   `{"Notes":"x"}`,
			wantEvents: []string{},
		},
		{
			name:       "an untyped item changes",
			before:     []Command{create("Notes", "x")},
			cmd:        update("Notes", []any{"y"}),
			wantFile:   `{"Notes":["y"]}`,
			wantEvents: []string{"Notes:update"},
		},
		{
			name:       "nested child created through its parent",
			before:     []Command{root("Text", "t")},
			cmd:        update("Root", obj("Child", obj("Name", "c"))),
			wantFile:   `{"Root":{"Child":{"Name":"c"},"Text":"t"}}`,
			wantEvents: []string{"Root/Child:create"},
		},
		{
			name:       "replace drops what is not given",
			before:     []Command{root("Text", "t", "Count", 2, "Child", obj("Name", "c"))},
			cmd:        replace("Root", obj("Text", "u")),
			wantFile:   `{"Root":{"Text":"u"}}`,
			wantEvents: []string{"Root:replace", "Root/Child:delete"},
		},
		{
			name:    "delete of an absent item",
			cmd:     del("Root"),
			wantErr: "DeleteCaseFileItem[Root] cannot be done because item is in state Null",
		},
		{
			name:       "delete",
			before:     []Command{root("Text", "t", "Child", obj("Name", "c"))},
			cmd:        del("Root/Child"),
			wantFile:   `{"Root":{"Text":"t"}}`,
			wantEvents: []string{"Root/Child:delete"},
		},
		{
			name:    "parent must exist",
			cmd:     create("Root/Child", obj("Name", "c")),
			wantErr: "The case file item 'Root/Child' cannot be changed, since its parent 'Root' does not exist",
		},
		{
			name:       "array create appends one element per entry",
			before:     withEntries,
			cmd:        create("Root/Entries", obj("Code", "c")),
			wantFile:   `{"Root":{"Entries":[{"Code":"a"},{"Code":"b"},{"Code":"c"}],"Text":"t"}}`,
			wantEvents: []string{"Root/Entries[2]:create"},
		},
		{
			name:       "array element update by index",
			before:     withEntries,
			cmd:        update("Root/Entries[1]", obj("Amount", 5)),
			wantFile:   `{"Root":{"Entries":[{"Code":"a"},{"Amount":5,"Code":"b"}],"Text":"t"}}`,
			wantEvents: []string{"Root/Entries[1]:update"},
		},
		{
			name:       "array update with a list works element-wise",
			before:     withEntries,
			cmd:        update("Root/Entries", []any{obj("Amount", 1)}),
			wantFile:   `{"Root":{"Entries":[{"Amount":1,"Code":"a"},{"Code":"b"}],"Text":"t"}}`,
			wantEvents: []string{"Root/Entries[0]:update"},
		},
		{
			name:       "array update with an object changes the current element",
			before:     append(slices.Clone(withEntries), update("Root/Entries[0]", obj("Amount", 1))),
			cmd:        update("Root/Entries", obj("Amount", 2)),
			wantFile:   `{"Root":{"Entries":[{"Amount":2,"Code":"a"},{"Code":"b"}],"Text":"t"}}`,
			wantEvents: []string{"Root/Entries[0]:update"},
		},
		{
			name:       "array element delete leaves null",
			before:     withEntries,
			cmd:        del("Root/Entries[0]"),
			wantFile:   `{"Root":{"Entries":[null,{"Code":"b"}],"Text":"t"}}`,
			wantEvents: []string{"Root/Entries[0]:delete"},
		},
		{
			name:    "deleted array element",
			before:  append(slices.Clone(withEntries), del("Root/Entries[0]")),
			cmd:     del("Root/Entries[0]"),
			wantErr: "DeleteCaseFileItem[Root/Entries[0]] cannot be done because item is in state Discarded",
		},
		{
			name:    "index beyond the array",
			before:  withEntries,
			cmd:     update("Root/Entries[5]", obj("Amount", 5)),
			wantErr: "The array Root/Entries has only 2 items; cannot access Root/Entries[5]",
		},
		// A create with an index always fails (addendum §4).
		{name: "create one past the end", before: withEntries, cmd: create("Root/Entries[2]", obj("Code", "c")),
			wantErr: "The array Root/Entries has only 2 items; cannot access Root/Entries[2] (Note: index starts at 0 instead of 1)"},
		{name: "create beyond the end", before: withEntries, cmd: create("Root/Entries[3]", obj("Code", "c")),
			wantErr: "The array Root/Entries has only 2 items; cannot access Root/Entries[3]"},
		{name: "create on an existing element", before: withEntries, cmd: create("Root/Entries[1]", obj("Code", "c")),
			wantErr: "CreateCaseFileItem[Root/Entries[1]] cannot be done because item is in state Available"},
		{name: "create with an index into an empty array", before: []Command{root("Text", "t")}, cmd: create("Root/Entries[0]", obj("Code", "c")),
			wantErr: "The array Root/Entries has only 0 items; cannot access Root/Entries[0] (Note: index starts at 0 instead of 1)"},
		// What the reference engine accepts (addendum §1-§3).
		{name: "a string property takes booleans and numbers", cmd: root("Text", false, "Child", obj("Name", 5)),
			wantFile: `{"Root":{"Child":{"Name":5},"Text":false}}`, wantEvents: []string{"Root:create", "Root/Child:create"}},
		{name: "an untyped single item takes a list, as one value", cmd: create("Notes", []any{1, 2}),
			wantFile: `{"Notes":[1,2]}`, wantEvents: []string{"Notes:create"}},
		{name: "an array item takes a list of primitives, one element each", before: []Command{root("Text", "t")}, cmd: create("Root/Entries", []any{1, 2}),
			wantFile: `{"Root":{"Entries":[1,2],"Text":"t"}}`, wantEvents: []string{"Root/Entries[0]:create", "Root/Entries[1]:create"}},
		{name: "a list for a single item is stored as it is", before: []Command{root("Text", "t")}, cmd: create("Root/Child", []any{obj("Name", 1), 2}),
			wantFile: `{"Root":{"Child":[{"Name":1},2],"Text":"t"}}`, wantEvents: []string{"Root/Child:create"}},
		{name: "a primitive for a structured item", cmd: create("Root", "text"),
			wantFile: `{"Root":"text"}`, wantEvents: []string{"Root:create"}},
		{name: "a single value for an array becomes a list of one", before: []Command{root("Text", "t")}, cmd: update("Root", obj("Entries", obj("Amount", 1))),
			wantFile: `{"Root":{"Entries":[{"Amount":1}],"Text":"t"}}`, wantEvents: []string{"Root/Entries[0]:create"}},
		{name: "only object elements of a list are checked", before: []Command{root("Text", "t")}, cmd: create("Root/Entries", []any{"x", obj("Amount", 2)}),
			wantFile: `{"Root":{"Entries":["x",{"Amount":2}],"Text":"t"}}`, wantEvents: []string{"Root/Entries[0]:create", "Root/Entries[1]:create"}},
		{name: "null fits every type", cmd: root("Flag", nil, "Count", nil, "Day", nil),
			wantFile: `{"Root":{"Count":null,"Day":null,"Flag":null}}`, wantEvents: []string{"Root:create"}},
		{name: "a double takes a number with a fraction", cmd: root("Ratio", json.Number("5.0"), "Count", json.Number("7")),
			wantFile: `{"Root":{"Count":7,"Ratio":5}}`, wantEvents: []string{"Root:create"}},
		{name: "a double takes an exponent", cmd: root("Ratio", json.Number("1e2")),
			wantFile: `{"Root":{"Ratio":100}}`, wantEvents: []string{"Root:create"}},
		{name: "a date property takes any XSD calendar form", cmd: root("Day", "2024-05-06T10:00:00Z", "Clock", "2024-05-06", "Moment", "10:30:00+01:00"),
			wantFile: `{"Root":{"Clock":"2024-05-06","Day":"2024-05-06T10:00:00Z","Moment":"10:30:00+01:00"}}`, wantEvents: []string{"Root:create"}},
		{
			name:       "whole case file",
			cmd:        update("", obj("Root", obj("Text", "t"), "Notes", "free text")),
			wantFile:   `{"Notes":"free text","Root":{"Text":"t"}}`,
			wantEvents: []string{"Notes:create", "Root:create"},
		},
		{
			name:       "delete the whole case file",
			before:     []Command{root("Text", "t"), create("Notes", []any{1, 2})},
			cmd:        del(""),
			wantFile:   `{}`,
			wantEvents: []string{"Root:delete", "Notes:delete"},
		},
		{name: "unknown item in the whole file", cmd: update("", obj("Bogus", 1)),
			wantErr: "The path 'Bogus' is invalid, since the part 'Bogus' is not defined in the case file"},
		{name: "unknown child", cmd: create("Root/Nope", 1),
			wantErr: "The path 'Root/Nope' is invalid, since the part 'Nope' is not defined in the case file"},
		{name: "bad syntax", cmd: create("Root[", 1),
			wantErr: "The path 'Root[' is invalid, since the part 'Root[' is not defined in the case file"},
		{name: "empty part", cmd: create("//x", 1),
			wantErr: "The path '//x' is invalid, since the part '' is not defined in the case file"},
		{name: "index on a single item", cmd: create("Root/Child[0]", 1),
			wantErr: "The path 'Root/Child[0]' is invalid because the CaseFileItem is not of type array"},
		{name: "string for integer", cmd: root("Count", "3"), wantErr: wrongType("Count", "integer", "a StringValue")},
		{name: "fraction for integer", cmd: root("Count", 1.5), wantErr: wrongType("Count", "integer", "a DoubleValue")},
		{name: "integer literal for double", cmd: root("Ratio", json.Number("5")), wantErr: wrongType("Ratio", "double", "a LongValue")},
		{name: "quoted boolean", cmd: root("Flag", "true"), wantErr: wrongType("Flag", "boolean", "a StringValue")},
		{name: "object for string", cmd: root("Text", obj("a", 1)), wantErr: wrongType("Text", "string", "a ValueMap")},
		{name: "list for string", cmd: root("Text", []any{"a"}), wantErr: wrongType("Text", "string", "a ValueList")},
		{name: "bad date", cmd: root("Day", "2024-13-01"),
			wantErr: wrongType("Day", "date", `exception "2024-13-01" is not a valid date, time or dateTime`)},
		{name: "bad time", cmd: root("Clock", "25:00"),
			wantErr: wrongType("Clock", "time", `exception "25:00" is not a valid date, time or dateTime`)},
		{name: "number for date", cmd: root("Day", 20240506), wantErr: wrongType("Day", "date", "a LongValue")},
		{name: "bad number", cmd: root("Ratio", "x"), wantErr: wrongType("Ratio", "double", "a StringValue")},
		{name: "bad duration", cmd: root("Wait", "2 days"),
			wantErr: wrongType("Wait", "duration", `exception "2 days" is not a valid duration`)},
		{name: "bad date-time", cmd: root("Moment", "yesterday"),
			wantErr: wrongType("Moment", "dateTime", `exception "yesterday" is not a valid date, time or dateTime`)},
		{name: "nested type error", cmd: root("Child", obj("Name", obj())), wantErr: wrongType("Name", "string", "a ValueMap")},
		{name: "type error in an array element", before: []Command{root("Text", "t")},
			cmd: create("Root/Entries", []any{obj("Amount", 1), obj("Amount", "x")}), wantErr: wrongType("Amount", "integer", "a StringValue")},
		{name: "unknown operation", cmd: ChangeCaseFile{Op: "merge", Path: "Root"},
			wantErr: "'merge' is not a case file operation; use create, update, replace or delete"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := start(t, "casefile", nil)
			for _, cmd := range tt.before {
				x.do(cmd, carol)
			}
			if tt.wantErr != "" {
				err := x.fail(tt.cmd, carol)
				if err.Kind != ErrInvalid || err.Msg != tt.wantErr {
					t.Errorf("error %d %q\n                 want %q", err.Kind, err.Msg, tt.wantErr)
				}
				return
			}
			x.do(tt.cmd, carol)
			if got := x.fileJSON(); got != tt.wantFile {
				t.Errorf("case file\n got %s\nwant %s", got, tt.wantFile)
			}
			if got := fileEvents(x.events); !slices.Equal(got, tt.wantEvents) && !(len(got) == 0 && len(tt.wantEvents) == 0) {
				t.Errorf("events %v, want %v", got, tt.wantEvents)
			}
			// The case must read the same after a JSON round trip.
			if got, want := roundTrip(t, x.c).File, x.c.File; !equalValues(any(got), any(want)) {
				t.Errorf("case file after a round trip %v, want %v", got, want)
			}
		})
	}
}

func obj(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// TestCaseFileStatesAndSentries checks item states and that each new array
// element fires the create on-part.
func TestCaseFileStatesAndSentries(t *testing.T) {
	x := start(t, "casefile", nil)
	x.do(ChangeCaseFile{Op: FileCreate, Path: "Root", Value: obj("Text", "t", "Count", 7,
		"Entries", []any{obj("Code", "a"), obj("Code", "b")})}, carol)
	if got := len(x.items("Entry added")); got != 2 {
		t.Errorf("%d Entry added instances, want 2:%s", got, x.summary())
	}
	x.do(ChangeCaseFile{Op: FileDelete, Path: "Root/Entries[0]"}, carol)
	want := map[string]State{"Root": Available, "Root/Entries[0]": Discarded, "Root/Entries[1]": Available}
	for path, s := range want {
		if got := x.c.FileStates[path]; got != s {
			t.Errorf("state of %s = %s, want %s", path, got, s)
		}
	}
	ids := BusinessIdentifiers(x.def, x.c)
	if want := []Identifier{{"Text", "t"}, {"Count", "7"}, {"Code", "b"}}; !slices.Equal(ids, want) {
		t.Errorf("identifiers %v, want %v", ids, want)
	}
}

// TestTaskOutput checks output validation and mapping into the case file
// by binding refinement.
func TestTaskOutput(t *testing.T) {
	x := start(t, "casefile", nil)
	edit := x.item("Edit")
	tests := []struct {
		name    string
		output  map[string]any
		wantErr string
	}{
		{"required output missing", nil,
			"Output for task Edit is invalid: [Task output parameter Root does not have a value, but that is required in order to complete the task]"},
		{"every problem at once", obj("root", obj("Count", "x"), "child", obj("Name", obj())),
			`Output for task Edit is invalid: [` + wrongType("Count", "integer", "a StringValue") + `, ` + wrongType("Name", "string", "a ValueMap") + `]`},
		{"an integer literal for a double", obj("root", obj("Ratio", json.Number("2"))),
			`Output for task Edit is invalid: [` + wrongType("Ratio", "double", "a LongValue") + `]`},
	}
	for _, tt := range tests {
		err := x.fail(CompleteHumanTask{PlanItemID: edit.ID, Output: tt.output}, carol)
		if err.Kind != ErrInvalid || err.Msg != tt.wantErr {
			t.Errorf("%s: error %q\n want %q", tt.name, err.Msg, tt.wantErr)
		}
	}
	if err := x.fail(MakeTransition{PlanItem: "Edit", Transition: Complete}, carol); err.Kind != ErrInvalid {
		t.Errorf("completing through the plan skips output validation: %v", err)
	}

	x.do(CompleteHumanTask{PlanItemID: edit.ID, Output: obj("root", obj("Text", "t"), "code", "A1", "child", obj("Name", "c"))}, carol)
	if got, want := x.fileJSON(), `{"Root":{"Child":{"Name":"c"},"Entries":[{"Amount":1,"Code":"A1"}],"Text":"t"}}`; got != want {
		t.Errorf("case file\n got %s\nwant %s", got, want)
	}
	if edit.State != Completed || x.state("Entry added") != Completed || x.item("Edit").Index != 1 {
		t.Errorf("after completing Edit:%s", x.summary())
	}
	// Again: the array gets a new element, the child is replaced, Root is
	// merged.
	x.do(CompleteHumanTask{PlanItemID: x.item("Edit").ID, Output: obj("root", obj("Count", 2), "code", "B2", "child", obj("Other", 1))}, carol)
	if got, want := x.fileJSON(), `{"Root":{"Child":{"Other":1},"Count":2,"Entries":[{"Amount":1,"Code":"A1"},{"Amount":1,"Code":"B2"}],"Text":"t"}}`; got != want {
		t.Errorf("case file\n got %s\nwant %s", got, want)
	}
	if got, want := fileEvents(x.events), []string{"Root:update", "Root/Entries[1]:create", "Root/Child:replace"}; !slices.Equal(got, want) {
		t.Errorf("file events %v, want %v", got, want)
	}
}
