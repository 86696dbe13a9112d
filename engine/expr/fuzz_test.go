package expr

import (
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzSeeds are expressions from the reference engine's models and the
// corners of the grammar.
var fuzzSeeds = []string{
	"Greeting.To",
	"case.team.role.Approver.member?.id + \"@email.com\"",
	"(T(java.time.LocalDate).parse(TravelRequest.TravelDetails.DepartureDate).atStartOfDay().toInstant(T(java.time.ZoneOffset).UTC).minus(1, T(java.time.temporal.ChronoUnit).DAYS)).toString()",
	"discretionaryItem.name==\"Opnieuw T1\" || (stage.T2 != null && stage.T2.state.isActive())",
	"map(\"Message\", \"default message\").merge(Greeting)",
	"map(\"response\", out.get(1) > 0 ? true : false)",
	"responseHeaders.get(\"Content-Type\")",
	"!DetailsKey.isEmpty()",
	"nothing ?: 'x'",
	"'a''b' + \"c\"\"d\"",
	"T(java.time.Instant).now()",
	"1 + 2 * 3 div 4 mod 5 - -6",
	"TravelRequest['TravelDetails']['Destination'][0]['City']",
	"list(1, 2.5e3, 7L, null, true)",
	"${task.name} and ${map('a', '}')}",
}

// modelExpressions returns the expression bodies and conditions of the
// repository's CMMN models, so the fuzzer starts from what models hold.
func modelExpressions(tb testing.TB) []string {
	var out []string
	for _, dir := range []string{"../../testdata/cmmn", "../testdata", "../../testdata/cases"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.xml"))
		if err != nil || len(files) == 0 {
			tb.Fatalf("no models in %s: %v", dir, err)
		}
		for _, path := range files {
			data, err := os.ReadFile(path)
			if err != nil {
				tb.Fatal(err)
			}
			dec := xml.NewDecoder(strings.NewReader(string(data)))
			var inBody bool
			for {
				tok, err := dec.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					break // the invalid models are invalid on purpose
				}
				switch t := tok.(type) {
				case xml.StartElement:
					inBody = t.Name.Local == "body" || t.Name.Local == "condition"
				case xml.EndElement:
					inBody = false
				case xml.CharData:
					if s := strings.TrimSpace(string(t)); inBody && s != "" {
						out = append(out, s)
					}
				}
			}
		}
	}
	if len(out) == 0 {
		tb.Fatal("the models hold no expressions")
	}
	return out
}

// FuzzCompile checks that no source makes Compile, CompileTemplate or Eval
// panic, that errors are *SyntaxError pointing inside the source, that
// evaluation is deterministic, and that a template renders back to its
// source.
func FuzzCompile(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, s := range modelExpressions(f) {
		f.Add(s)
	}
	env := testEnv()
	delete(env, "bad") // its deliberate panic would hide ours
	f.Fuzz(func(t *testing.T, src string) {
		checkTemplate(t, src)
		x, err := Compile(src)
		if err != nil {
			se, ok := err.(*SyntaxError)
			if !ok {
				t.Fatalf("Compile(%q) error %T, want *SyntaxError", src, err)
			}
			if se.Pos < 0 || se.Pos > len(src) || se.Msg == "" {
				t.Fatalf("Compile(%q): error at %d of %d bytes: %q", src, se.Pos, len(src), se.Msg)
			}
			return
		}
		if x.Source() != src {
			t.Fatalf("Source() = %q, want %q", x.Source(), src)
		}
		for _, root := range x.Roots() {
			if root == "" || !strings.Contains(src, root) {
				t.Fatalf("Compile(%q): root %q is not in the source", src, root)
			}
		}
		v1, err1 := x.Eval(env)
		if err1 != nil && strings.Contains(err1.Error(), "internal error") {
			t.Fatalf("Eval(%q) panicked: %v", src, err1)
		}
		y, err := Compile(src)
		if err != nil {
			t.Fatalf("second Compile(%q) failed: %v", src, err)
		}
		v2, err2 := y.Eval(env)
		if (err1 == nil) != (err2 == nil) || (err1 == nil && toString(v1) != toString(v2)) {
			t.Fatalf("Eval(%q) is not deterministic: %v, %v / %v, %v", src, v1, err1, v2, err2)
		}
	})
}

// checkTemplate compiles src as a template: an error is a *SyntaxError
// inside the text; a template's parts written out again give the text.
func checkTemplate(t *testing.T, src string) {
	tpl, err := CompileTemplate(src)
	if err != nil {
		se, ok := err.(*SyntaxError)
		if !ok {
			t.Fatalf("CompileTemplate(%q) error %T, want *SyntaxError", src, err)
		}
		if se.Pos < 0 || se.Pos > len(src) {
			t.Fatalf("CompileTemplate(%q): error at %d of %d bytes", src, se.Pos, len(src))
		}
		return
	}
	var b strings.Builder
	for _, p := range tpl.parts {
		if p.x != nil {
			b.WriteString("${" + p.x.Source() + "}")
		} else {
			b.WriteString(p.text)
		}
	}
	if b.String() != src {
		t.Fatalf("template %q renders back as %q", src, b.String())
	}
	if tpl.HasSubstitutions() != strings.Contains(src, "${") {
		t.Fatalf("template %q: HasSubstitutions() = %v", src, tpl.HasSubstitutions())
	}
}
