package cmmn

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInvalidModels parses one model per validation rule and expects
// exactly the listed problems, each given by a distinctive part.
func TestInvalidModels(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"invalid_references.xml", []string{
			`caseFileItem "A" (id "cfi_a"): definitionRef "no.such.type" does not refer to a caseFileItemDefinition`,
			`case input parameter "In" (id "cin"): bindingRef "no_such_case_binding" does not refer to a caseFileItem`,
			`refs.case: Plan item Ghost refers to a definition named no_such_definition, but that definition is not found`,
			`entryCriterion with id "crit_missing" of planItem "Task" (id "pi_task"): sentryRef "no_such_sentry" does not refer to a sentry`,
			`four_eyes taskRef "no_such_task" does not refer to a plan item`,
			`discretionaryItem "Disc" (id "di"): authorizedRoleRefs "no_such_role" does not refer to a case role`,
			`discretionaryItem "Disc" (id "di"): applicabilityRuleRefs "no_such_rule" does not refer to an applicabilityRule`,
			`refs.case: A plan item with name 'no_such_item' is referenced from entryCriterion s_bad, but it does not exist in the case plan model`,
			`planItemOnPart with id "op_exit" in sentry with id "s_bad": exitCriterionRef "no_such_criterion" does not refer to an exitCriterion`,
			`caseFileItemOnPart with id "op_file" in sentry with id "s_bad": sourceRef "no_such_file_item" does not refer to a caseFileItem`,
			`input parameter "X" (id "in_x") of humanTask "Task" (id "ht_task"): bindingRef "no_such_binding" does not refer to a caseFileItem`,
			`humanTask "Task" (id "ht_task"): performerRef "no_such_performer" does not refer to a case role`,
			`humanTask "Task" (id "ht_task"): validatorRef "no_such_process" does not refer to a process`,
			`parameterMapping with id "map_src" of humanTask "Task" (id "ht_task"): sourceRef "no_such_source" refers neither to an input parameter of the task nor to an output of the task's workflow implementation`,
			`parameterMapping with id "map_tgt" of humanTask "Task" (id "ht_task"): targetRef "no_such_target" does not refer to an input of the task's workflow implementation`,
			`caseTask "Sub" (id "ct_sub"): caseRef "no_such.case" does not refer to a case in this document`,
			`processTask "Proc" (id "pt_proc"): processRef "no_such.process" does not refer to a process`,
			`userEvent "Event" (id "ue_event"): authorizedRoleRefs "no_such_event_role" does not refer to a case role`,
			`timerEvent "Timer" (id "tm_timer"): planItemStartTrigger sourceRef "no_such_trigger" does not refer to a plan item`,
			`planningTable with id "pt": authorizedRoleRefs "no_such_table_role" does not refer to a case role`,
			`ifPart of sentry with id "s_bad": contextRef "no_such_context" does not refer to a caseFileItem`,
		}},
		{"invalid_duplicate_ids.xml", []string{
			`process "ProcessA" (id "shared") has the same id as caseFileItemDefinition "TypeA" (id "shared"); ids must be unique in the document`,
			`dup.case: planItem "Task" (id "x1") has the same id as caseFileItem "Item" (id "x1"); ids must be unique within a case`,
			`dup.case: sentry with id "pi_b" has the same id as planItem "Other" (id "pi_b")`,
			`case "Dup again" (id "dup.case") has the same id as case "Dup" (id "dup.case")`,
		}},
		{"invalid_duplicate_roles.xml", []string{
			`roles.case: case role "Admin" is defined more than once; role names must be unique`,
		}},
		{"invalid_expressions.xml", []string{
			`repetitionRule with id "rep" of planItem "Task" (id "pi_task") has an invalid expression "task.index <": unexpected end of expression`,
			`requiredRule with id "req" of planItem "Task" (id "pi_task") has an empty expression`,
			`ifPart of sentry with id "s" has an invalid expression "Data.status = 'done'": assignment is not supported`,
			`applicabilityRule "isValid" (id "rule") of planningTable with id "pt" has an invalid expression`,
			`unknown or unsupported class T(org.cafienne.cmmn.instance.State)`,
			`humanTask "Task" (id "ht") has an invalid ${...} substitution in its task-model: unterminated string`,
			`transformation of parameterMapping with id "map" of humanTask "Task" (id "ht") has an invalid expression "Data.isActve()": unknown method isActve()`,
			`assignment of humanTask "Task" (id "ht") has an invalid expression "#root.user": variables and functions (#name) are not supported`,
			`duedate of humanTask "Task" (id "ht") has an invalid expression "T(java.lang.Math).random()"`,
			`timerExpression of timerEvent "Timer" (id "tm") uses expression language "xpath"`,
		}},
		{"invalid_recursion.xml", []string{
			"loop.case: CaseTask 'Again' leads to infinite recursion, because\n CaseTask['Again'] depends on a milestone that occurs immediately" +
				"\n and Stage['Stage'] does not have entry criteria\n and Loop always starts immediately",
		}},
		{"invalid_recursion_indirect.xml", []string{
			`ping.case: planItem "Start pong" (id "pi_pong") is a case task that starts case "Pong", which starts this case again without waiting for a user (ping.case → pong.case → ping.case)`,
			`pong.case: planItem "Start ping" (id "pi_ping") is a case task that starts case "Ping", which starts this case again without waiting for a user (pong.case → ping.case → pong.case)`,
		}},
		{"invalid_names.xml", []string{
			`caseFileItemDefinition "T" (id "t") has a property without a name`,
			`case with id "nameless.case" has no name`,
			`nameless.case: caseFileItem with id "cfi_nameless" has no name`,
			`nameless.case: The CasePlan with id plan must have a name`,
			`role with id "role_nameless" has no name`,
			`case input parameter with id "in_nameless" has no name`,
			`nameless.case: The HumanTask with id ht_nameless must have a name`,
			`nameless.case: The Milestone with id ms_nameless must have a name`,
			`nameless.case: The plan item with id pi_nameless must have a name`,
		}},
		{"invalid_stage_cycle.xml", []string{
			`cycle.case: stage "A" (id "st_a") contains itself through planItem "A again" (id "pi_a_again"); stages cannot be nested recursively`,
		}},
		{"invalid_values.xml", []string{
			`property "When" has type "http://www.omg.org/spec/CMMN/PropertyType/timestamp", which is not a CMMN property type`,
			`caseFileItem "Item" (id "cfi") has multiplicity "Many"`,
			`planItemOnPart with id "op_occur" in sentry with id "s": standardEvent "occur" never happens to planItem "Task" (id "pi_task"), which is a humanTask`,
			`standardEvent "complete" never happens to planItem "Reached" (id "pi_ms"), which is a milestone`,
			`planItemOnPart with id "op_bogus" in sentry with id "s": standardEvent "finish" is not a plan item transition`,
			`planItemOnPart with id "op_none" in sentry with id "s" has no standardEvent`,
			`planItemOnPart with id "op_wrong_exit" in sentry with id "s": exitCriterionRef "other_exit" is an exit criterion of planItem "Other" (id "pi_other"), not of the source planItem "Task" (id "pi_task")`,
			`caseFileItemOnPart with id "op_file" in sentry with id "s": standardEvent "modify" is not a case file item transition`,
			`planItem "Reached" (id "pi_ms") is a milestone; four_eyes and rendez_vous apply to human tasks only`,
			`planItem "Task" (id "pi_task"): four_eyes and rendez_vous may only refer to human tasks, and planItem "Reached" (id "pi_ms") is a milestone`,
		}},
		{"invalid_structure.xml", []string{
			`main.case: sentry with id "s" has more than one ifPart`,
			`main.case: timerEvent "Timer" (id "tm") has no timerExpression`,
			`task "Plain" (id "plain_task"): plain <task> elements are not supported`,
			`main.case: Plan item Plain refers to a definition named plain_task, but that definition is not found`,
			`planless.case: the case has no casePlanModel`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(testdata, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			d, err := Parse(data)
			if err == nil {
				t.Fatalf("Parse succeeded with %d cases, want problems", len(d.Cases()))
			}
			checkProblems(t, problemsOf(t, err), tt.want)
		})
	}
}

// checkProblems requires every wanted text to match exactly one problem
// and every problem to be wanted.
func checkProblems(t *testing.T, problems, want []string) {
	t.Helper()
	used := make([]bool, len(problems))
	for _, w := range want {
		n := 0
		for i, p := range problems {
			if strings.Contains(p, w) {
				n++
				used[i] = true
			}
		}
		if n != 1 {
			t.Errorf("%d problems contain %q, want 1", n, w)
		}
	}
	for i, p := range problems {
		if !used[i] {
			t.Errorf("unexpected problem: %s", p)
		}
	}
}

// TestValidationErrorMessage documents the error format.
func TestValidationErrorMessage(t *testing.T) {
	one := &ValidationError{Problems: []string{"a is wrong"}}
	if got := one.Error(); got != "invalid definition: a is wrong" {
		t.Errorf("Error() = %q", got)
	}
	two := &ValidationError{Problems: []string{"a is wrong", "b is wrong"}}
	if got := two.Error(); got != "invalid definition, 2 problems: a is wrong; b is wrong" {
		t.Errorf("Error() = %q", got)
	}
}

// TestHostileXML feeds documents meant to exhaust a parser: each must be
// refused with one clear problem, without expanding or reading anything.
func TestHostileXML(t *testing.T) {
	const head = `<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL">`
	var laughs strings.Builder
	laughs.WriteString(`<?xml version="1.0"?><!DOCTYPE definitions [<!ENTITY lol "lol">`)
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&laughs, `<!ENTITY lol%d "%s">`, i, strings.Repeat(fmt.Sprintf("&lol%d;", i-1), 10))
	}
	laughs.WriteString(`]>` + head + `<case id="c" name="&lol9;"/></definitions>`)

	deep := head + strings.Repeat("<a>", 10000) + strings.Repeat("</a>", 10000) + "</definitions>"
	huge := head + "<!--" + strings.Repeat("x", MaxDocumentSize) + "--></definitions>"
	many := head + strings.Repeat("<a/>", MaxElements) + "</definitions>"
	attrs := head + "<a" + strings.Repeat(` x="1"`, maxAttributes+1) + "/></definitions>"

	tests := []struct {
		name, doc, want string
	}{
		{"billion laughs", laughs.String(), "document type declaration (<!DOCTYPE ...>) at line 1; DTDs and entity declarations are not allowed"},
		{"external entity", `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>` + head + `<case name="&xxe;"/></definitions>`, "DTDs and entity declarations are not allowed"},
		{"external DTD", `<!DOCTYPE definitions SYSTEM "http://example.com/cmmn.dtd">` + head + `</definitions>`, "document type declaration"},
		{"undeclared entity", head + `<case id="c" name="&lol;"/></definitions>`, "not well-formed XML: line 1: invalid character entity &lol;"},
		{"deep nesting", deep, "elements are nested more than 200 levels deep"},
		{"huge document", huge, fmt.Sprintf("larger than the limit of %d bytes", MaxDocumentSize)},
		{"many elements", many, fmt.Sprintf("more than %d elements", MaxElements)},
		{"many attributes", attrs, fmt.Sprintf("more than %d attributes", maxAttributes)},
		{"not well-formed", head + "<case></definitions>", "not well-formed XML: line 1: element <case> closed by </definitions>"},
		{"unclosed", head + "<case>", "not well-formed XML"},
		{"two roots", head + "</definitions>" + head + "</definitions>", "more than one root element"},
		{"empty", "  \n ", "the document is empty"},
		{"no root", "<?xml version=\"1.0\"?><!-- nothing -->", "the document has no root element"},
		{"wrong root", `<cases xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL"/>`, "the root element must be <definitions>"},
		{"wrong namespace", `<definitions xmlns="http://example.com/other"/>`, `not <definitions> in namespace "http://example.com/other"`},
		{"no case", head + "</definitions>", "the document defines no <case>"},
		{"unsupported encoding", `<?xml version="1.0" encoding="EBCDIC"?>` + head + "</definitions>", `encoding "EBCDIC" is not supported`},
		{"binary", "\x00\x01\x02<\xff", "not well-formed XML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			problems := problemsOf(t, err)
			if len(problems) != 1 || !strings.Contains(problems[0], tt.want) {
				t.Errorf("problems = %q, want one containing %q", problems, tt.want)
			}
		})
	}
}

// TestBOM accepts a UTF-8 byte order mark, which some editors write.
func TestBOM(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testdata, "minimal.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(append([]byte("\xef\xbb\xbf"), data...)); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(bytes.ReplaceAll(data, []byte(`encoding="UTF-8"`), []byte(`encoding="us-ascii"`))); err != nil {
		t.Fatal(err)
	}
}

// TestLargeModels feeds well-formed documents built to make validation
// expensive: millions of template substitutions, a cycle through thousands
// of cases, thousands of problems. Each must end with a bounded report.
func TestLargeModels(t *testing.T) {
	if testing.Short() {
		t.Skip("builds multi-megabyte documents")
	}
	const head = `<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL" xmlns:cafienne="org.cafienne">`
	doc := func(body func(b *strings.Builder)) []byte {
		var b strings.Builder
		b.WriteString(head)
		body(&b)
		b.WriteString("</definitions>")
		return []byte(b.String())
	}
	tests := []struct {
		name     string
		doc      []byte
		problems int
		want     string
	}{
		{"template bomb", doc(func(b *strings.Builder) {
			b.WriteString(`<case id="c" name="c"><casePlanModel id="p" name="p"><planItem id="pi" name="x" definitionRef="h"/><humanTask id="h" name="h"><extensionElements><cafienne:implementation><task-model>`)
			b.WriteString(strings.Repeat("${a}", 2_000_000))
			b.WriteString(`</task-model></cafienne:implementation></extensionElements></humanTask></casePlanModel></case>`)
		}), 1, "the document has more than 50000 expressions"},
		{"substitutions", doc(func(b *strings.Builder) {
			b.WriteString(`<case id="c" name="c"><casePlanModel id="p" name="p"><planItem id="pi" name="x" definitionRef="h"/><humanTask id="h" name="h"><extensionElements><cafienne:implementation><task-model>`)
			b.WriteString(strings.Repeat("${a}", 1001))
			b.WriteString(`</task-model></cafienne:implementation></extensionElements></humanTask></casePlanModel></case>`)
		}), 1, "more than 1000 ${...} substitutions"},
		{"cycle through 5000 cases", doc(func(b *strings.Builder) {
			for i := range 5000 {
				fmt.Fprintf(b, `<case id="c%d" name="c%d"><casePlanModel id="p" name="p"><planItem id="pi" name="x" definitionRef="t"/><caseTask id="t" name="t" caseRef="c%d"/></casePlanModel></case>`, i, i, (i+1)%5000)
			}
		}), maxProblems + 1, `c0: planItem "x" (id "pi") is a case task that starts case "c1", which starts this case again without waiting for a user (c0 → c1 → c2 → c3 → … 4995 more … → c4999 → c0)`},
		{"many problems", doc(func(b *strings.Builder) {
			b.WriteString(`<case id="c" name="c"><casePlanModel id="p" name="p">`)
			for i := range 5000 {
				fmt.Fprintf(b, `<planItem id="p%d" name="x%d" definitionRef="nowhere"/>`, i, i)
			}
			b.WriteString(`</casePlanModel></case>`)
		}), maxProblems + 1, "and 4000 more problems"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.doc)
			if err == nil {
				t.Fatal("Parse succeeded, want problems")
			}
			problems := problemsOf(t, err)
			if len(problems) != tt.problems {
				t.Errorf("%d problems, want %d", len(problems), tt.problems)
			}
			found := false
			for _, p := range problems {
				found = found || strings.Contains(p, tt.want)
			}
			if !found {
				t.Errorf("no problem contains %q; first: %q", tt.want, problems[0])
			}
		})
	}
}
