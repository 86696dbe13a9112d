package service

import (
	"fmt"
	"strings"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// processImplementations are the process-task implementations CaseGraph
// runs, by the class name the reference engine's models give them (a PDF
// report deploys, and fails its task saying it is not supported). A model
// that asks for anything else is refused when it is validated or
// deployed, rather than leaving its task waiting forever.
var processImplementations = map[string]string{
	cmmn.ClassHTTPCall:    "HTTP call",
	cmmn.ClassCalculation: "calculation",
	cmmn.ClassMail:        "mail",
	cmmn.ClassPDFReport:   "PDF report",
}

// unrunnableProcessTasks lists, as validation problems, the process tasks
// whose process names no implementation CaseGraph runs.
func unrunnableProcessTasks(defs *cmmn.Definitions) []string {
	var problems []string
	for _, c := range defs.Cases() {
		for _, d := range c.PlanItemDefinitions() {
			pt, ok := d.(*cmmn.ProcessTask)
			if !ok || pt.Process() == nil {
				continue
			}
			p := pt.Process()
			class := strings.TrimSpace(p.Class())
			if _, ok := processImplementations[class]; ok {
				continue
			}
			if class == "" {
				problems = append(problems, fmt.Sprintf("%s: ProcessTask '%s' runs process '%s', which has no cafienne:implementation class; CaseGraph runs %s",
					c.ID(), pt.Name(), p.Name(), knownImplementations()))
				continue
			}
			problems = append(problems, fmt.Sprintf("%s: ProcessTask '%s' runs process '%s' with implementation class %s, which CaseGraph does not run; it runs %s",
				c.ID(), pt.Name(), p.Name(), class, knownImplementations()))
		}
	}
	return problems
}

func knownImplementations() string {
	return "HTTPCallDefinition, CalculationDefinition, MailDefinition and PDFReportDefinition"
}
