package engine

import (
	"fmt"
	"strings"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// ProcessRun is what a process task did: the call it waits for, how often
// it called, and the last outcome.
type ProcessRun struct {
	// CallID names the call the task waits for; "" when none is under
	// way. A reactivated task calls anew under a new id, so that the
	// outcome of an older call is told from the current one.
	CallID string `json:"callId,omitempty"`
	// Calls counts the calls the task asked for.
	Calls int `json:"calls"`
	// StatusCode is the HTTP status of the last response; 0 when there
	// was none.
	StatusCode int `json:"statusCode,omitempty"`
	// FailureReason says why the task last failed; "" after a success.
	FailureReason string `json:"failureReason,omitempty"`
	// Pending is an outcome that came while the task was suspended; it
	// applies when the task resumes.
	Pending *ProcessResult `json:"pending,omitempty"`
}

// ProcessResult is the outcome of a call, as the worker reports it.
type ProcessResult struct {
	Failed     bool           `json:"failed,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	StatusCode int            `json:"statusCode,omitempty"`
	Output     map[string]any `json:"output,omitempty"`
}

// CallProcess asks for a process task's call (an HTTP request or a mail)
// to be made outside the engine: service stores it in an outbox in the
// command's transaction, a worker makes the call after the commit and
// reports with ProcessCompleted or ProcessFailed. The request is rendered
// here, from the task's input, so the worker needs no definition.
type CallProcess struct {
	CaseID   string       `json:"caseId"`
	TaskID   string       `json:"taskId"`
	TaskName string       `json:"taskName"`
	CallID   string       `json:"callId"`
	HTTP     *HTTPRequest `json:"http,omitempty"`
	Mail     *MailMessage `json:"mail,omitempty"`
}

func (CallProcess) effect() {}

// HTTPRequest is an HTTP call with its substitutions made.
type HTTPRequest struct {
	Method  string       `json:"method"`
	URL     string       `json:"url"`
	Headers []HTTPHeader `json:"headers,omitempty"`
	Body    string       `json:"body,omitempty"`
}

// HTTPHeader is one request header.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// MailMessage is a mail with its recipients and body resolved.
type MailMessage struct {
	From        *MailAddress     `json:"from,omitempty"`
	To          []MailAddress    `json:"to,omitempty"`
	Cc          []MailAddress    `json:"cc,omitempty"`
	Bcc         []MailAddress    `json:"bcc,omitempty"`
	ReplyTo     []MailAddress    `json:"replyTo,omitempty"`
	Subject     string           `json:"subject"`
	Body        string           `json:"body"`
	BodyType    string           `json:"bodyType"`
	Attachments []MailAttachment `json:"attachments,omitempty"`
}

// MailAddress is a recipient or sender.
type MailAddress struct {
	Email string `json:"email"`
	Name  string `json:"name,omitempty"`
}

// MailAttachment is a file sent with a mail; Content is base64.
type MailAttachment struct {
	FileName string `json:"fileName"`
	MimeType string `json:"mimeType,omitempty"`
	Content  string `json:"content"`
}

// ProcessCompleted reports that call CallID of process task TaskID
// succeeded, with the implementation's raw output (for an HTTP call:
// responseCode, responseMessage, responsePayload, responseHeaders).
type ProcessCompleted struct {
	TaskID     string
	CallID     string
	StatusCode int
	Output     map[string]any
}

// ProcessFailed reports that call CallID of process task TaskID failed,
// with the reason and whatever raw output there was.
type ProcessFailed struct {
	TaskID     string
	CallID     string
	Reason     string
	StatusCode int
	Output     map[string]any
}

func (ProcessCompleted) command() {}
func (ProcessFailed) command()    {}

// ErrPDFReports is why a PDF report task fails.
const ErrPDFReports = "PDF reports are not supported by CaseGraph"

func (r *run) processTaskDef(p *PlanItem) *cmmn.ProcessTask {
	if def := r.definition(p); def != nil {
		pt, _ := def.Definition().(*cmmn.ProcessTask)
		return pt
	}
	return nil
}

// processTaskTransition starts a process task's work when it becomes
// Active (again, after a failure), and applies an outcome that came while
// it was suspended when it resumes.
func (r *run) processTaskTransition(p *PlanItem, from State) {
	pt := r.processTaskDef(p)
	if pt == nil || pt.Process() == nil || p.State != Active {
		return
	}
	if from == Suspended {
		if p.Process != nil && p.Process.Pending != nil {
			res := *p.Process.Pending
			p.Process.Pending = nil
			r.processOutcome(p, pt, res)
		}
		return
	}
	r.startProcess(p, pt)
}

// startProcess runs a calculation at once, or asks for the call of an
// HTTP or mail task. Whatever cannot even be asked (a substitution that
// fails, a PDF report) fails the task with its reason.
func (r *run) startProcess(p *PlanItem, pt *cmmn.ProcessTask) {
	run := p.Process
	if run == nil {
		run = &ProcessRun{}
		p.Process = run
	}
	run.CallID, run.StatusCode, run.FailureReason, run.Pending = "", 0, "", nil
	proc := pt.Process()
	inputs := r.taskInput(p, pt)
	env := r.exprEnv(p, inputs)
	call := CallProcess{CaseID: r.c.ID, TaskID: p.ID, TaskName: p.Name}
	switch {
	case proc.Calculation() != nil:
		out, err := r.calculate(p, proc, inputs)
		if err != nil {
			r.failProcess(p, 0, err.Error())
			return
		}
		r.completeProcess(p, pt, out)
		return
	case proc.HTTPCall() != nil:
		req, err := renderHTTP(proc.HTTPCall(), env)
		if err != nil {
			r.failProcess(p, 0, err.Error())
			return
		}
		call.HTTP = req
	case proc.Mail() != nil:
		msg, err := renderMail(proc.Mail(), inputs, env)
		if err != nil {
			r.failProcess(p, 0, err.Error())
			return
		}
		call.Mail = msg
	case strings.TrimSpace(proc.Class()) == cmmn.ClassPDFReport:
		r.failProcess(p, 0, ErrPDFReports)
		return
	case proc.Implementation() == nil:
		// Nothing to run: deployment refuses such models (service), and
		// engine tests complete the task by hand.
		return
	default:
		r.failProcess(p, 0, fmt.Sprintf("CaseGraph does not run process implementation class '%s'", proc.Class()))
		return
	}
	run.Calls++
	run.CallID = r.newID()
	call.CallID = run.CallID
	r.effects = append(r.effects, call)
	if !pt.IsBlocking() {
		r.enqueue(action{kind: doTransition, item: p, t: Complete})
	}
}

// failProcess records why a process task failed and faults it.
func (r *run) failProcess(p *PlanItem, code int, reason string) {
	if p.Process == nil {
		p.Process = &ProcessRun{}
	}
	p.Process.StatusCode, p.Process.FailureReason = code, reason
	r.emit(ProcessTaskFailed{CaseInstanceID: r.c.ID, PlanItemID: p.ID, Name: p.Name, StatusCode: code, Reason: reason})
	if p.State == Active {
		r.enqueue(action{kind: doTransition, item: p, t: Fault})
	}
}

// completeProcess maps a process's output through the task's output
// mappings into the case file and completes the task; output that does
// not fit fails it instead.
func (r *run) completeProcess(p *PlanItem, pt *cmmn.ProcessTask, output map[string]any) {
	norm, err := normalize(output, 0)
	out, _ := norm.(map[string]any)
	if err != nil || out == nil {
		out = map[string]any{}
	}
	values, problems := r.taskOutput(p, pt, out, out)
	if len(problems) > 0 {
		r.failProcess(p, p.Process.StatusCode, "The output of the process does not fit: "+strings.Join(problems, ", "))
		return
	}
	if err := r.bindValues(p, pt, values); err != nil {
		r.failProcess(p, p.Process.StatusCode, err.Error())
		return
	}
	r.emit(ProcessTaskCompleted{CaseInstanceID: r.c.ID, PlanItemID: p.ID, Name: p.Name, StatusCode: p.Process.StatusCode})
	if p.State == Active {
		r.enqueue(action{kind: doTransition, item: p, t: Complete})
	}
}

func (r *run) bindValues(p *PlanItem, pt *cmmn.ProcessTask, values map[*cmmn.Parameter]any) error {
	for _, tp := range pt.Outputs() {
		if v := values[tp]; v != nil && tp.Binding() != nil {
			if err := r.bindOutput(tp, v, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// processDone runs ProcessCompleted and ProcessFailed. An outcome of a
// call the task no longer waits for (it was reactivated, terminated, or
// the outcome was reported already) changes nothing.
func (r *run) processDone(taskID, callID string, res ProcessResult) error {
	p := r.item(taskID)
	if p == nil || p.Type != string(cmmn.TypeProcessTask) {
		return errorf(ErrNotFound, "There is no process task with identifier '%s' in case %s", taskID, r.c.ID)
	}
	if p.Process == nil || p.Process.CallID == "" || p.Process.CallID != callID {
		return errorf(ErrNoEffect, "Process task %s does not wait for call %s", p.Name, callID)
	}
	pt := r.processTaskDef(p)
	if pt == nil || pt.Process() == nil {
		return errorf(ErrNoEffect, "The definition of process task %s is missing", p.Name)
	}
	if norm, err := normalize(res.Output, 0); err == nil {
		res.Output, _ = norm.(map[string]any)
	} else {
		res.Output = nil
	}
	if p.State == Suspended {
		p.Process.Pending = &res
		return nil
	}
	r.processOutcome(p, pt, res)
	return nil
}

// processOutcome applies a call's outcome: the implementation's mappings
// take the raw output to the process's outputs, and a blocking task that
// still waits completes with them or fails. A non-blocking task completed
// when the call was asked; only the outcome is recorded.
func (r *run) processOutcome(p *PlanItem, pt *cmmn.ProcessTask, res ProcessResult) {
	run := p.Process
	run.CallID = ""
	run.StatusCode = res.StatusCode
	out := processOutput(r, p, pt.Process(), res)
	if res.Failed {
		if p.State == Active {
			// The failure mappings (an error code, the error payload)
			// still reach the case file, for the model to act on.
			if values, problems := r.taskOutput(p, pt, out, out); len(problems) == 0 {
				if err := r.bindValues(p, pt, values); err != nil {
					res.Reason += "; " + err.Error()
				}
			}
		}
		r.failProcess(p, res.StatusCode, res.Reason)
		return
	}
	if p.State != Active {
		run.FailureReason = ""
		r.emit(ProcessTaskCompleted{CaseInstanceID: r.c.ID, PlanItemID: p.ID, Name: p.Name, StatusCode: res.StatusCode})
		return
	}
	r.completeProcess(p, pt, out)
}

// processOutput maps an implementation's raw output onto the process's
// outputs. Without mappings, outputs take the raw values of their names.
func processOutput(r *run, p *PlanItem, proc *cmmn.Process, res ProcessResult) map[string]any {
	raw := res.Output
	if raw == nil {
		raw = map[string]any{}
	}
	var mappings []*cmmn.ImplementationMapping
	if h := proc.HTTPCall(); h != nil {
		mappings = append(mappings, h.Mappings...)
		if res.Failed {
			mappings = append(mappings, h.Failure...)
		} else {
			mappings = append(mappings, h.Success...)
		}
	}
	out := map[string]any{}
	if len(mappings) == 0 {
		for _, o := range proc.Outputs() {
			out[o.Name()] = raw[o.Name()]
		}
		return out
	}
	for _, m := range mappings {
		v := raw[m.Source]
		if x := m.Transformation; x != nil {
			// A transformation that fails (or a JSON path, which
			// CaseGraph does not evaluate) gives no value.
			res, err := x.Eval(r.exprEnv(p, map[string]any{m.Source: v}))
			v = nil
			if err == nil {
				v = canonical(res)
			}
		}
		out[m.Target] = v
	}
	return out
}

// renderHTTP makes the substitutions of an HTTP call.
func renderHTTP(h *cmmn.HTTPCall, env *exprEnv) (*HTTPRequest, error) {
	if h.URL == nil {
		return nil, fmt.Errorf("the HTTP call has no URL")
	}
	url, err := h.URL.Render(env)
	if err != nil {
		return nil, fmt.Errorf("the URL of the HTTP call cannot be made: %v", err)
	}
	req := &HTTPRequest{Method: h.Method, URL: strings.TrimSpace(url)}
	for _, hd := range h.Headers {
		v := ""
		if hd.Value != nil {
			if v, err = hd.Value.Render(env); err != nil {
				return nil, fmt.Errorf("the header %s of the HTTP call cannot be made: %v", hd.Name, err)
			}
		}
		req.Headers = append(req.Headers, HTTPHeader{Name: hd.Name, Value: v})
	}
	if h.Body != nil {
		if req.Body, err = h.Body.Render(env); err != nil {
			return nil, fmt.Errorf("the body of the HTTP call cannot be made: %v", err)
		}
	}
	return req, nil
}

// renderMail reads a mail's recipients and content from the process's
// inputs (to, cc, bcc, from, replyTo, subject, body, attachments); the
// implementation's subject and body templates win over the inputs.
func renderMail(m *cmmn.Mail, inputs map[string]any, env *exprEnv) (*MailMessage, error) {
	msg := &MailMessage{BodyType: m.BodyType}
	var err error
	if msg.To, err = mailAddresses("to", inputs["to"]); err != nil {
		return nil, err
	}
	if msg.Cc, err = mailAddresses("cc", inputs["cc"]); err != nil {
		return nil, err
	}
	if msg.Bcc, err = mailAddresses("bcc", inputs["bcc"]); err != nil {
		return nil, err
	}
	if msg.ReplyTo, err = mailAddresses("replyTo", inputs["replyTo"]); err != nil {
		return nil, err
	}
	from, err := mailAddresses("from", inputs["from"])
	if err != nil {
		return nil, err
	}
	if len(from) > 0 {
		msg.From = &from[0]
	}
	if len(msg.To)+len(msg.Cc)+len(msg.Bcc) == 0 {
		return nil, fmt.Errorf("the mail has no recipients: give the process input 'to', 'cc' or 'bcc' a value")
	}
	msg.Subject, _ = inputs["subject"].(string)
	if m.Subject != nil {
		if msg.Subject, err = m.Subject.Render(env); err != nil {
			return nil, fmt.Errorf("the subject of the mail cannot be made: %v", err)
		}
	}
	if body, ok := inputs["body"].(string); ok {
		msg.Body = body
	}
	if m.Body != nil {
		if msg.Body, err = m.Body.Render(env); err != nil {
			return nil, fmt.Errorf("the body of the mail cannot be made: %v", err)
		}
	}
	if list, ok := inputs["attachments"].([]any); ok {
		for _, a := range list {
			obj, _ := a.(map[string]any)
			content, _ := obj["content"].(string)
			name, _ := obj["fileName"].(string)
			if content == "" || name == "" {
				return nil, fmt.Errorf("every mail attachment needs a fileName and a base64 content")
			}
			mime, _ := obj["mimeType"].(string)
			msg.Attachments = append(msg.Attachments, MailAttachment{FileName: name, MimeType: mime, Content: content})
		}
	}
	return msg, nil
}

// mailAddresses reads addresses: a string (comma separated), an object
// with email and name, or a list of those.
func mailAddresses(field string, v any) ([]MailAddress, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		var out []MailAddress
		for _, a := range strings.Split(x, ",") {
			if a = strings.TrimSpace(a); a != "" {
				out = append(out, MailAddress{Email: a})
			}
		}
		return out, nil
	case map[string]any:
		email, _ := x["email"].(string)
		if strings.TrimSpace(email) == "" {
			return nil, fmt.Errorf("an address in the mail's %s has no email", field)
		}
		name, _ := x["name"].(string)
		return []MailAddress{{Email: strings.TrimSpace(email), Name: name}}, nil
	case []any:
		var out []MailAddress
		for _, e := range x {
			list, err := mailAddresses(field, e)
			if err != nil {
				return nil, err
			}
			out = append(out, list...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("the mail's %s must be an address, an object with an email, or a list of them", field)
}
