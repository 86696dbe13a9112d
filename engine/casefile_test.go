package engine

import (
	"slices"
	"testing"
)

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
			wantErr: "The array 'Root/Entries' has only 2 items; cannot access 'Root/Entries[5]'",
		},
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
			wantErr: "The path 'Root/Child[0]' is invalid, since the part 'Child[0]' is not defined in the case file"},
		{name: "string for integer", cmd: root("Count", "3"),
			wantErr: `Property 'Count' of case file item 'Root' has value "3", which is not an integer`},
		{name: "fraction for integer", cmd: root("Count", 1.5),
			wantErr: `Property 'Count' of case file item 'Root' has value 1.5, which is not an integer`},
		{name: "bad date", cmd: root("Day", "2024-13-01"),
			wantErr: `Property 'Day' of case file item 'Root' has value "2024-13-01", which is not a date (yyyy-mm-dd)`},
		{name: "bad time", cmd: root("Clock", "25:00"),
			wantErr: `Property 'Clock' of case file item 'Root' has value "25:00", which is not a time (hh:mm:ss)`},
		{name: "bad boolean", cmd: root("Flag", "yes"),
			wantErr: `Property 'Flag' of case file item 'Root' has value "yes", which is not a boolean`},
		{name: "bad number", cmd: root("Ratio", "x"),
			wantErr: `Property 'Ratio' of case file item 'Root' has value "x", which is not a number`},
		{name: "bad duration", cmd: root("Wait", "2 days"),
			wantErr: `Property 'Wait' of case file item 'Root' has value "2 days", which is not a duration (ISO-8601)`},
		{name: "bad date-time", cmd: root("Moment", "yesterday"),
			wantErr: `Property 'Moment' of case file item 'Root' has value "yesterday", which is not a date-time (ISO-8601)`},
		{name: "nested type error", cmd: root("Child", obj("Name", 5)),
			wantErr: `Property 'Name' of case file item 'Root/Child' has value 5, which is not a string`},
		{name: "type error in an array element", before: []Command{root("Text", "t")},
			cmd:     create("Root/Entries", []any{obj("Amount", 1), obj("Amount", "x")}),
			wantErr: `Property 'Amount' of case file item 'Root/Entries[1]' has value "x", which is not an integer`},
		{name: "a structured item needs an object", cmd: create("Root", "text"),
			wantErr: `The value of case file item 'Root' must be a JSON object, not "text"`},
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
		{"every problem at once", obj("root", obj("Count", "x"), "child", obj("Name", 1)),
			`Output for task Edit is invalid: [Property 'Count' of case file item 'Root' has value "x", which is not an integer, ` +
				`Property 'Name' of case file item 'Root/Child' has value 1, which is not a string]`},
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
