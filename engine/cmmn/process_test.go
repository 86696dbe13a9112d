package cmmn

import (
	"errors"
	"strings"
	"testing"
)

func processDoc(impl string) string {
	return `<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL" xmlns:cafienne="org.cafienne">
	<case id="c" name="C"><casePlanModel id="cp" name="C">
	<planItem id="pi" name="P" definitionRef="pt"/>
	<processTask id="pt" name="P" processRef="p"/></casePlanModel></case>
	<process id="p" name="Proc"><input id="i" name="a"/><output id="o" name="b"/><extensionElements>` + impl + `</extensionElements></process>
	</definitions>`
}

func TestProcessImplementations(t *testing.T) {
	d, err := Parse([]byte(processDoc(`<cafienne:implementation class="` + ClassHTTPCall + `">
		<url>http://x/${a}</url><method>put</method>
		<http-headers><http-header name="H">${a + 1}</http-header></http-headers>
		<post-content>{"a": ${a}}</post-content>
		<parameterMapping sourceRef="responseCode" targetRef="b"/>
		<failure><parameterMapping sourceRef="responsePayload" targetRef="b"><transformation><body>responsePayload.x</body></transformation></parameterMapping></failure>
		</cafienne:implementation>`)))
	if err != nil {
		t.Fatal(err)
	}
	h := d.Process("p").HTTPCall()
	if h == nil || h.Method != "PUT" || h.URL.String() != "http://x/${a}" || len(h.Headers) != 1 || h.Body == nil ||
		len(h.Mappings) != 1 || len(h.Failure) != 1 || h.Failure[0].Transformation == nil || len(h.Success) != 0 {
		t.Fatalf("HTTP call = %+v", h)
	}
	d, err = Parse([]byte(processDoc(`<cafienne:implementation class="` + ClassCalculation + `">
		<step output="b"><input source="a" as="x"/><expression>x * 2</expression><condition>x > 1</condition></step>
		<filter output="f"><input source="a"/><expression>a > 1</expression></filter>
		</cafienne:implementation>`)))
	if err != nil {
		t.Fatal(err)
	}
	calc := d.Process("p").Calculation()
	if calc == nil || len(calc.Steps) != 2 || calc.Steps[0].Inputs[0] != (StepInput{Source: "a", As: "x"}) || calc.Steps[0].Condition == nil ||
		calc.Steps[1].Kind != StepFilter || calc.Steps[1].Inputs[0].As != "a" {
		t.Fatalf("calculation = %+v", calc)
	}
}

// Broken templates and expressions fail the deployment, not the case.
func TestProcessImplementationProblems(t *testing.T) {
	for name, tc := range map[string]struct{ impl, want string }{
		"url":       {`<cafienne:implementation class="` + ClassHTTPCall + `"><url>http://x/${a +}</url></cafienne:implementation>`, "process 'Proc' has an invalid url"},
		"mapping":   {`<cafienne:implementation class="` + ClassHTTPCall + `"><url>u</url><parameterMapping sourceRef="responseCode"/></cafienne:implementation>`, "parameterMapping without sourceRef or targetRef"},
		"no output": {`<cafienne:implementation class="` + ClassCalculation + `"><step><expression>1</expression></step></cafienne:implementation>`, "a calculation <step> without an output"},
		"map input": {`<cafienne:implementation class="` + ClassCalculation + `"><map output="m"><expression>1</expression></map></cafienne:implementation>`, "needs exactly one input"},
		"subject":   {`<cafienne:implementation class="` + ClassMail + `"><subject>${</subject></cafienne:implementation>`, "process 'Proc' has an invalid subject"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(processDoc(tc.impl)))
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(ve.Error(), tc.want) {
				t.Fatalf("err = %v, want a problem with %q", err, tc.want)
			}
		})
	}
}

// An expression CaseGraph cannot evaluate deploys (the reference's own
// models have such) and fails when it runs, saying why.
func TestProcessExpressionThatCannotRun(t *testing.T) {
	d, err := Parse([]byte(processDoc(`<cafienne:implementation class="` + ClassCalculation + `"><step output="b"><expression>1 +</expression></step></cafienne:implementation>`)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Process("p").Calculation().Steps[0].Expression.Eval(nil)
	if err == nil || !strings.Contains(err.Error(), "process 'Proc': step 'b' has an expression CaseGraph cannot evaluate") {
		t.Fatalf("err = %v", err)
	}
}
