package expr

import (
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

func FuzzCompile(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	env := testEnv()
	delete(env, "bad") // its deliberate panic would hide ours
	f.Fuzz(func(t *testing.T, src string) {
		_, _ = CompileTemplate(src)
		x, err := Compile(src)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("Compile(%q) error %T, want *SyntaxError", src, err)
			}
			return
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
