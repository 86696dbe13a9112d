package expr

import (
	"strings"
	"testing"
)

func TestTemplateRender(t *testing.T) {
	env := testEnv()
	env["Input"] = map[string]any{"title": "Joe", "type": "string"}
	tests := []struct {
		text, want string
		exprs      int
	}{
		{"no substitutions", "no substitutions", 0},
		{"", "", 0},
		{`{"title" : "${task.name}"}`, `{"title" : "Review"}`, 1},
		{`"Dear ${Greeting.To}", "from ${Greeting.From}"`, `"Dear Joe", "from Ann"`, 2},
		{`"Input" : ${Input}`, `"Input" : {"title":"Joe","type":"string"}`, 1},
		{"${nothing}|${Next}|${count}", "|1.0|3", 3},
		{"${map('a', '}').size()} braces", "1 braces", 1},
		{"${'it''s'}", "it's", 1},
		{"cost: $5 and ${1+1}$", "cost: $5 and 2$", 1},
		{"http://localhost:${Out.ChildAge}/ping", "http://localhost:7/ping", 1},
	}
	for _, tt := range tests {
		tmpl, err := CompileTemplate(tt.text)
		if err != nil {
			t.Errorf("CompileTemplate(%q): %v", tt.text, err)
			continue
		}
		if n := len(tmpl.Exprs()); n != tt.exprs {
			t.Errorf("CompileTemplate(%q) has %d substitutions, want %d", tt.text, n, tt.exprs)
		}
		if tmpl.HasSubstitutions() != (tt.exprs > 0) {
			t.Errorf("HasSubstitutions(%q) = %v", tt.text, tmpl.HasSubstitutions())
		}
		if tmpl.String() != tt.text {
			t.Errorf("String() = %q, want %q", tmpl.String(), tt.text)
		}
		got, err := tmpl.Render(env)
		if err != nil {
			t.Errorf("Render(%q): %v", tt.text, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Render(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestTemplateErrors(t *testing.T) {
	tests := []struct {
		text, wantErr string
	}{
		{"title ${task.name", "${ is not closed by }"},
		{"${'open}", "unterminated string"},
		{"x ${} y", "in ${}: expression is empty"},
		{"x ${a b}", `unexpected "b"`},
		{"x ${T(Foo).bar()}", "unknown or unsupported class T(Foo)"},
		{strings.Repeat("${a}", MaxSubstitutions+1), "more than 1000 ${...} substitutions"},
	}
	for _, tt := range tests {
		_, err := CompileTemplate(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("CompileTemplate(%q) error = %v, want %q", tt.text, err, tt.wantErr)
		}
	}
	tmpl, err := CompileTemplate("${Unknown.x}")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmpl.Render(testEnv()); err == nil || !strings.Contains(err.Error(), `"Unknown" is not defined`) {
		t.Errorf("Render error = %v, want undefined", err)
	}
}
