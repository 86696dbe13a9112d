package engine

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/casegraph/casegraph/engine/cmmn"
)

func newForestFrom(t *testing.T, file string) *forest {
	t.Helper()
	data, err := os.ReadFile("../testdata/cases/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := cmmn.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return &forest{t: t, defs: defs, cases: map[string]*Case{}, now: t0}
}

func (f *forest) startCase(id string, inputs map[string]any) *Case {
	f.t.Helper()
	c, out, err := StartWithEffects(f.defs.Main(), StartCase{ID: id, Tenant: "world", Inputs: inputs,
		Team: Team{Members: []Member{claimOwner}}}, alice, f.env())
	if err != nil {
		f.t.Fatal(err)
	}
	f.cases[c.ID] = c
	f.settle(out.Effects)
	return c
}

// lastCall returns the last call asked for and forgets the calls.
func (f *forest) lastCall() CallProcess {
	f.t.Helper()
	if len(f.calls) == 0 {
		f.t.Fatal("no process call was asked for")
	}
	c := f.calls[len(f.calls)-1]
	f.calls = nil
	return c
}

var permitInput = map[string]any{"Request": map[string]any{"registry": "http://registry.test", "applicant": "ann", "area": int64(40), "urgent": true}}

func TestProcessTaskHTTPThenCalculationThenSubCase(t *testing.T) {
	f := newForestFrom(t, "permitfee.xml")
	c := f.startCase("permit", permitInput)
	lookup := f.item("permit", "Lookup")
	if lookup.State != Active {
		t.Fatalf("Lookup is %s, want Active", lookup.State)
	}
	call := f.lastCall()
	if call.HTTP == nil || call.HTTP.URL != "http://registry.test/registry/ann" || call.HTTP.Method != "POST" {
		t.Fatalf("call = %+v", call.HTTP)
	}
	if call.HTTP.Body != `{"applicant": "ann", "area": 40}` {
		t.Fatalf("body = %q", call.HTTP.Body)
	}
	if len(call.HTTP.Headers) != 2 || call.HTTP.Headers[1] != (HTTPHeader{Name: "X-Applicant", Value: "ann"}) {
		t.Fatalf("headers = %+v", call.HTTP.Headers)
	}
	if call.CallID == "" || call.CallID != lookup.Process.CallID || call.TaskID != lookup.ID || call.CaseID != "permit" {
		t.Fatalf("call ids = %+v, task %+v", call, lookup.Process)
	}
	// A report for another call changes nothing.
	if err := f.try("permit", ProcessCompleted{TaskID: lookup.ID, CallID: "other", StatusCode: 200}); !isKind(err, ErrNoEffect) {
		t.Fatalf("stale outcome: %v", err)
	}
	f.do("permit", ProcessCompleted{TaskID: lookup.ID, CallID: call.CallID, StatusCode: 200,
		Output: map[string]any{"responseCode": int64(200), "responsePayload": map[string]any{"rate": int64(3)}}})
	if lookup.State != Completed {
		t.Fatalf("Lookup is %s", lookup.State)
	}
	if got := c.File["Registry"]; !equalJSON(got, map[string]any{"rate": int64(3)}) {
		t.Fatalf("Registry = %v", got)
	}
	// 40 * 3 plus 10 for the one urgent request.
	if got := c.File["Fee"]; !equalJSON(got, int64(130)) {
		t.Fatalf("Fee = %#v", got)
	}
	if fee := f.item("permit", "ComputeFee"); fee.State != Completed {
		t.Fatalf("ComputeFee is %s", fee.State)
	}
	if got := c.File["Approved"]; got != true {
		t.Fatalf("Approved = %#v", got)
	}
	if c.State() != Completed {
		t.Fatalf("case is %s", c.State())
	}
}

func TestProcessTaskFailureAndReactivate(t *testing.T) {
	f := newForestFrom(t, "permitfee.xml")
	c := f.startCase("permit", permitInput)
	lookup := f.item("permit", "Lookup")
	call := f.lastCall()
	f.do("permit", ProcessFailed{TaskID: lookup.ID, CallID: call.CallID, StatusCode: 503, Reason: "The registry answered 503 Service Unavailable",
		Output: map[string]any{"responseCode": int64(503)}})
	if lookup.State != Failed || lookup.Process.FailureReason != "The registry answered 503 Service Unavailable" || lookup.Process.StatusCode != 503 {
		t.Fatalf("Lookup = %s %+v", lookup.State, lookup.Process)
	}
	if got := c.File["ErrorCode"]; !equalJSON(got, int64(503)) {
		t.Fatalf("ErrorCode = %#v", got)
	}
	f.do("permit", MakeTransition{PlanItem: lookup.ID, Transition: Reactivate})
	again := f.lastCall()
	if lookup.State != Active || again.CallID == call.CallID || lookup.Process.Calls != 2 || lookup.Process.FailureReason != "" {
		t.Fatalf("after reactivate: %s %+v, call %s", lookup.State, lookup.Process, again.CallID)
	}
	// The old call's outcome no longer counts.
	if err := f.try("permit", ProcessCompleted{TaskID: lookup.ID, CallID: call.CallID}); !isKind(err, ErrNoEffect) {
		t.Fatalf("old outcome: %v", err)
	}
	f.do("permit", ProcessCompleted{TaskID: lookup.ID, CallID: again.CallID, StatusCode: 200, Output: map[string]any{"responsePayload": map[string]any{}}})
	// Without a rate the fee takes the second step: 40 * 2 + 10.
	if got := c.File["Fee"]; !equalJSON(got, int64(90)) {
		t.Fatalf("Fee = %#v", got)
	}
}

func TestProcessTaskSuspendedKeepsOutcome(t *testing.T) {
	f := newForestFrom(t, "permitfee.xml")
	c := f.startCase("permit", permitInput)
	lookup := f.item("permit", "Lookup")
	call := f.lastCall()
	f.do("permit", MakeTransition{PlanItem: lookup.ID, Transition: Suspend})
	f.do("permit", ProcessCompleted{TaskID: lookup.ID, CallID: call.CallID, StatusCode: 200, Output: map[string]any{"responsePayload": map[string]any{"rate": int64(1)}}})
	if lookup.State != Suspended || c.File["Registry"] != nil {
		t.Fatalf("while suspended: %s, Registry %v", lookup.State, c.File["Registry"])
	}
	f.do("permit", MakeTransition{PlanItem: lookup.ID, Transition: Resume})
	if lookup.State != Completed || len(f.calls) != 0 {
		t.Fatalf("after resume: %s, calls %v", lookup.State, f.calls)
	}
}

func TestProcessTaskMailAuditAndPDF(t *testing.T) {
	f := newForestFrom(t, "notify.xml")
	f.startCase("n1", map[string]any{"Letter": map[string]any{"to": []any{map[string]any{"email": "ann@example.com", "name": "Ann"}},
		"cc": "bob@example.com, cy@example.com", "name": "Ann", "audit": "http://audit.test/ping"}})
	if len(f.calls) != 2 {
		t.Fatalf("calls = %+v", f.calls)
	}
	mail, audit := f.calls[0], f.calls[1]
	if mail.Mail == nil || mail.Mail.Subject != "Your permit, Ann" || mail.Mail.Body != "Dear Ann, your permit is ready." ||
		len(mail.Mail.To) != 1 || mail.Mail.To[0].Email != "ann@example.com" || len(mail.Mail.Cc) != 2 {
		t.Fatalf("mail = %+v", mail.Mail)
	}
	if audit.HTTP == nil || audit.HTTP.URL != "http://audit.test/ping" {
		t.Fatalf("audit = %+v", audit)
	}
	if st := f.item("n1", "Audit").State; st != Completed {
		t.Fatalf("non-blocking Audit is %s", st)
	}
	report := f.item("n1", "Report")
	if report.State != Failed || report.Process.FailureReason != ErrPDFReports {
		t.Fatalf("Report = %s %+v", report.State, report.Process)
	}
	// The non-blocking task's outcome is still recorded.
	f.do("n1", ProcessFailed{TaskID: audit.TaskID, CallID: audit.CallID, Reason: "connection refused"})
	if a := f.item("n1", "Audit"); a.State != Completed || a.Process.FailureReason != "connection refused" {
		t.Fatalf("Audit = %s %+v", a.State, a.Process)
	}
	if m := f.item("n1", "Mail"); m.State != Active {
		t.Fatalf("Mail is %s", m.State)
	}
	f.do("n1", ProcessCompleted{TaskID: mail.TaskID, CallID: mail.CallID})
	if m := f.item("n1", "Mail"); m.State != Completed {
		t.Fatalf("Mail is %s", m.State)
	}
}

func TestProcessMailWithoutRecipientsFails(t *testing.T) {
	f := newForestFrom(t, "notify.xml")
	f.startCase("n2", map[string]any{"Letter": map[string]any{"name": "Ann", "audit": "http://audit.test/ping"}})
	m := f.item("n2", "Mail")
	if m.State != Failed || !strings.Contains(m.Process.FailureReason, "no recipients") {
		t.Fatalf("Mail = %s %+v", m.State, m.Process)
	}
}

func isKind(err error, kind ErrorKind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == kind
}

// equalJSON compares two values by their JSON form, so that number types
// do not matter.
func equalJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
