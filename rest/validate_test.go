package rest_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
)

// TestValidateMessages pins addendum §17: POST /repository/validate
// answers 400 with the reference engine's messages, each prefixed with
// the case definition's id, in parse order.
func TestValidateMessages(t *testing.T) {
	env := servertest.Start(t, db.SQLite)
	const head = `<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL">`
	tests := []struct {
		name, xml string
		want      []string
	}{
		{"missing names", head + `<case id="names.case" name="Names"><casePlanModel id="cp">
			<planItem id="pi_task" definitionRef="ht"/><planItem id="pi_ms" name="Reached" definitionRef="ms"/>
			<planningTable id="pt"><discretionaryItem id="di" definitionRef="ht"/></planningTable>
			<humanTask id="ht"/><milestone id="ms"/></casePlanModel></case></definitions>`,
			[]string{
				"names.case: The CasePlan with id cp must have a name",
				"names.case: The HumanTask with id ht must have a name",
				"names.case: The Milestone with id ms must have a name",
				"names.case: The plan item with id pi_task must have a name",
				"names.case: The discretionary item with id di must have a name",
			}},
		{"unknown on-part source and definition", head + `<case id="refs.case" name="Refs"><casePlanModel id="cp" name="Refs">
			<planItem id="pi_a" name="A" definitionRef="ht"><exitCriterion id="ex" sentryRef="s_x"/></planItem>
			<planItem id="pi_b" name="B" definitionRef="nothing"/>
			<sentry id="s_x"><planItemOnPart id="op" sourceRef="Ghost"><standardEvent>complete</standardEvent></planItemOnPart></sentry>
			<humanTask id="ht" name="A"/></casePlanModel></case></definitions>`,
			[]string{
				"refs.case: Plan item B refers to a definition named nothing, but that definition is not found",
				"refs.case: A plan item with name 'Ghost' is referenced from exitCriterion s_x, but it does not exist in the case plan model",
			}},
		{"recursion", head + `<case id="loop.case" name="Loop"><casePlanModel id="cp" name="Loop">
			<planItem id="pi_st" name="Outer" definitionRef="st"/>
			<stage id="st" name="Outer"><planItem id="pi_again" name="Again" definitionRef="ct"/></stage>
			<caseTask id="ct" name="Again" caseRef="loop.case"/></casePlanModel></case></definitions>`,
			[]string{"loop.case: CaseTask 'Again' leads to infinite recursion, because\n CaseTask['Again'] does not have entry criteria" +
				"\n and Stage['Outer'] does not have entry criteria\n and Loop always starts immediately"}},
		{"process implementations CaseGraph does not run", `<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL" xmlns:cafienne="org.cafienne">
			<case id="impl.case" name="Impl"><casePlanModel id="cp" name="Impl">
			<planItem id="pi_a" name="A" definitionRef="pt_a"/><planItem id="pi_b" name="B" definitionRef="pt_b"/>
			<planItem id="pi_c" name="C" definitionRef="pt_c"/>
			<processTask id="pt_a" name="Score" processRef="p_custom"/><processTask id="pt_b" name="Bare" processRef="p_bare"/>
			<processTask id="pt_c" name="Call" processRef="p_http"/></casePlanModel></case>
			<process id="p_custom" name="Scorer"><extensionElements><cafienne:implementation class="com.example.Scorer"/></extensionElements></process>
			<process id="p_bare" name="Nothing"/>
			<process id="p_http" name="Http"><extensionElements><cafienne:implementation class="org.cafienne.processtask.implementation.http.HTTPCallDefinition"/></extensionElements></process>
			</definitions>`,
			[]string{
				"impl.case: ProcessTask 'Score' runs process 'Scorer' with implementation class com.example.Scorer, which CaseGraph does not run; it runs HTTPCallDefinition, CalculationDefinition, MailDefinition and PDFReportDefinition",
				"impl.case: ProcessTask 'Bare' runs process 'Nothing', which has no cafienne:implementation class; CaseGraph runs HTTPCallDefinition, CalculationDefinition, MailDefinition and PDFReportDefinition",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := env.Do(servertest.Request{Method: "POST", Path: "/repository/validate", Body: tt.xml, ContentType: "application/xml"})
			if resp.Status != 400 {
				t.Fatalf("status %d %s", resp.Status, resp.Body)
			}
			var got []string
			if err := json.Unmarshal([]byte(resp.Body), &got); err != nil {
				t.Fatalf("body %q: %v", resp.Body, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
