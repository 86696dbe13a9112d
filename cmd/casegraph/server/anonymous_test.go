package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnonymousConfigRefusedByName: a configuration file that cannot serve
// stops the start, naming the setting and the problem.
func TestAnonymousConfigRefusedByName(t *testing.T) {
	team := `"caseTeam": {"users": [{"userId": "alice", "isOwner": true}]}`
	for name, c := range map[string]struct{ file, want string }{
		"no owner": {`{"user": {"id": "anon"}, "definitions": [{"url": "x", "definition": "d.xml", "caseTeam": {"users": [{"userId": "alice"}]}}]}`,
			`the case team of url "x" has no owner`},
		"unknown field": {`{"user": {"id": "anon"}, "definitions": [], "enabled": true}`, `unknown field "enabled"`},
		"url twice": {`{"user": {"id": "anon"}, "definitions": [{"url": "x", "definition": "d", ` + team + `}, {"url": "x", "definition": "e", ` + team + `}]}`,
			`url "x" is configured twice`},
		"no user":    {`{"definitions": [{"url": "x", "definition": "d", ` + team + `}]}`, `no "user"`},
		"no url":     {`{"user": {"id": "anon"}, "definitions": [{"definition": "d", ` + team + `}]}`, `has no "url"`},
		"bad origin": {`{"user": {"id": "anon"}, "definitions": [{"url": "", "definition": "d", "caseTeam": {"users": [{"userId": "a", "isOwner": true, "origin": "Mars"}]}}]}`, `origin "Mars"`},
		"no file":    {"", "cannot read the file"},
	} {
		path := filepath.Join(t.TempDir(), "anonymous.json")
		if c.file != "" {
			if err := os.WriteFile(path, []byte(c.file), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		err := Config{Dev: true, AnonymousConfig: path}.Validate()
		if err == nil || !strings.Contains(err.Error(), "CASEGRAPH_ANONYMOUS_CONFIG") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want CASEGRAPH_ANONYMOUS_CONFIG and %q", name, err, c.want)
		}
	}
	ok := filepath.Join(t.TempDir(), "ok.json")
	if err := os.WriteFile(ok, []byte(`{"user": {"id": "anon"}, "definitions": [{"url": "", "definition": "d", `+team+`}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := (Config{Dev: true, AnonymousConfig: ok}).Validate(); err != nil {
		t.Fatalf("a good configuration: %v", err)
	}
}
