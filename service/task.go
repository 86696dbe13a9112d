package service

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
)

// Task is a human task: the one view of it that both doors translate
// (REST into the reference engine's TaskRecord, GraphQL into its Task
// type), whether it was read from the task list's rows or from its case's
// state. Whatever the two doors must show alike is decided here.
type Task struct {
	ID        string
	CaseID    string
	Tenant    string
	CaseName  string
	TaskName  string
	TaskState string
	// Role is the performer case role; "" when any member may perform it.
	Role     string
	Assignee string // "" when unassigned
	Owner    string // "" when unassigned
	DueDate  *time.Time
	// Duration is the period from activation to the due date, as
	// TaskDuration writes it; "" without a due date.
	Duration     string
	CreatedOn    time.Time
	CreatedBy    string
	ActivatedOn  time.Time
	LastModified time.Time
	ModifiedBy   string
	// Input and Output are JSON objects; {} when empty.
	Input, Output json.RawMessage
	// TaskModel is the definition's task model as JSON: parsed when it is
	// JSON, a JSON string when it is other text, and {} when the task has
	// none, as the reference engine answers it.
	TaskModel json.RawMessage
	// Documentation is the plan item's documentation text.
	Documentation string
}

// taskOfRow is the view of a task list row.
func taskOfRow(r db.Task) Task {
	return Task{ID: r.ID, CaseID: r.CaseID, Tenant: r.Tenant, CaseName: r.CaseName, TaskName: r.TaskName, TaskState: r.TaskState,
		Role: r.Role, Assignee: r.Assignee, Owner: r.Owner, DueDate: r.DueDate, Duration: TaskDuration(r.ActivatedOn, r.DueDate),
		CreatedOn: r.CreatedOn, CreatedBy: r.CreatedBy, ActivatedOn: r.ActivatedOn, LastModified: r.LastModified, ModifiedBy: r.ModifiedBy,
		Input: jsonObjectText(r.Input), Output: jsonObjectText(r.Output), TaskModel: taskModelJSON(r.TaskModel), Documentation: r.Documentation}
}

// taskOfState is the view of the task of plan item p of case rec, read
// from the case's state: the same values db writes into the task row.
func taskOfState(rec CaseRecord, p *PlanItem) Task {
	t := p.Task
	modified, modifiedBy := t.Modified(p)
	return Task{ID: p.ID, CaseID: rec.ID, Tenant: rec.Tenant, CaseName: rec.Name, TaskName: p.Name, TaskState: string(t.State),
		Role: t.Role, Assignee: t.Assignee, Owner: t.Owner, DueDate: t.DueDate, Duration: TaskDuration(t.ActivatedOn, t.DueDate),
		CreatedOn: p.CreatedOn, CreatedBy: t.CreatedBy, ActivatedOn: t.ActivatedOn, LastModified: modified, ModifiedBy: modifiedBy,
		Input: jsonObjectOf(t.Input), Output: jsonObjectOf(t.Output), TaskModel: taskModelJSON(t.TaskModel), Documentation: t.Documentation}
}

// Task returns the view of the case's task id, as its state holds it;
// false when the case has no such task (yet).
func (v CaseView) Task(id string) (Task, bool) {
	p := v.State.PlanItem(id)
	if p == nil || p.Task == nil {
		return Task{}, false
	}
	return taskOfState(v.Record, p), true
}

// Tasks returns the views of every task of the case, in plan item order.
func (v CaseView) Tasks() []Task {
	out := []Task{}
	for _, p := range v.State.PlanItems {
		if p.Task != nil {
			out = append(out, taskOfState(v.Record, p))
		}
	}
	return out
}

var emptyObject = json.RawMessage("{}")

// jsonObjectText is stored JSON text as it is, or {} when it is empty,
// null or not JSON.
func jsonObjectText(s string) json.RawMessage {
	if s == "" || s == "null" || !json.Valid([]byte(s)) {
		return emptyObject
	}
	return json.RawMessage(s)
}

// jsonObjectOf encodes a state's JSON object; {} when it is empty. The
// state was stored, so it encodes.
func jsonObjectOf(m map[string]any) json.RawMessage {
	if len(m) == 0 {
		return emptyObject
	}
	b, err := json.Marshal(m)
	if err != nil {
		return emptyObject
	}
	return b
}

func taskModelJSON(s string) json.RawMessage {
	if s == "" {
		return emptyObject
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// TaskQuery filters and pages a task list, as GET /tasks does.
type TaskQuery struct {
	Tenant      string
	CaseID      string // only the tasks of this case (live updates)
	Identifiers string
	CaseName    string // exact
	TaskName    string // exact
	// TaskState is one state or several separated by ';'.
	TaskState string
	Assignee  string
	Owner     string
	// DueOn, DueBefore and DueAfter are dates (yyyy-mm-dd) in TimeZone
	// (an offset such as +01:00; UTC when empty).
	DueOn, DueBefore, DueAfter string
	TimeZone                   string
	Offset                     int
	NumberOfResults            int // default DefaultPageSize
	SortBy                     string
	SortOrder                  string
	After                      *Keyset // pages by keyset instead of Offset
	// CaseChangedSince keeps the tasks of cases changed at or after it
	// (live resume).
	CaseChangedSince *time.Time
}

// ListTasks returns the tasks the caller may see: of cases it is in the
// team of, those of roles it holds there, those without a role, and as an
// owner all of them. With an assignee filter, plain membership suffices.
func (s *Service) ListTasks(ctx context.Context, who auth.Identity, q TaskQuery) ([]Task, error) {
	const op = "service.ListTasks"
	f, err := taskFilter(q)
	if err != nil {
		return nil, &Error{Op: op, Kind: Invalid, Msg: err.Error()}
	}
	rows, err := db.ListTasks(ctx, s.db, who.UserID, f)
	if err != nil {
		return nil, wrap(op, err)
	}
	tasks := make([]Task, len(rows))
	for i, r := range rows {
		tasks[i] = taskOfRow(r)
	}
	return tasks, nil
}

// CountTaskList counts the tasks ListTasks would list, all pages
// together.
func (s *Service) CountTaskList(ctx context.Context, who auth.Identity, q TaskQuery) (int, error) {
	const op = "service.CountTaskList"
	f, err := taskFilter(q)
	if err != nil {
		return 0, &Error{Op: op, Kind: Invalid, Msg: err.Error()}
	}
	f.After = nil
	n, err := db.CountTaskList(ctx, s.db, who.UserID, f)
	return n, wrap(op, err)
}

func taskFilter(q TaskQuery) (db.TaskFilter, error) {
	ids, err := parseIdentifierFilter(q.Identifiers)
	if err != nil {
		return db.TaskFilter{}, errors.New("Invalid identifiers filter: " + err.Error())
	}
	f := db.TaskFilter{Tenant: q.Tenant, CaseID: q.CaseID, Identifiers: ids, CaseName: q.CaseName, TaskName: q.TaskName,
		Assignee: q.Assignee, Owner: q.Owner, Offset: q.Offset, Limit: pageSize(q.NumberOfResults), SortBy: q.SortBy,
		Ascending: strings.EqualFold(q.SortOrder, "asc"), After: q.After, CaseChangedSince: q.CaseChangedSince}
	for _, st := range strings.Split(q.TaskState, ";") {
		if st = strings.TrimSpace(st); st != "" {
			f.TaskStates = append(f.TaskStates, st)
		}
	}
	loc := time.UTC
	if tz := strings.TrimSpace(q.TimeZone); tz != "" {
		t, err := time.Parse("-07:00", tz)
		if err != nil {
			return db.TaskFilter{}, errors.New("Invalid timeZone header '" + tz + "'; use an offset such as +01:00")
		}
		_, offset := t.Zone()
		loc = time.FixedZone(tz, offset)
	}
	day := func(name, v string) (*time.Time, error) {
		if v == "" {
			return nil, nil
		}
		d, err := time.ParseInLocation("2006-01-02", v, loc)
		if err != nil {
			return nil, errors.New("Invalid date '" + v + "' for " + name + "; use yyyy-mm-dd")
		}
		return &d, nil
	}
	on, err := day("dueOn", q.DueOn)
	if err != nil {
		return db.TaskFilter{}, err
	}
	before, err := day("dueBefore", q.DueBefore)
	if err != nil {
		return db.TaskFilter{}, err
	}
	after, err := day("dueAfter", q.DueAfter)
	if err != nil {
		return db.TaskFilter{}, err
	}
	if on != nil {
		next := on.AddDate(0, 0, 1)
		f.DueFrom, f.DueBefore = on, &next
	}
	if before != nil {
		f.DueBefore = before
	}
	if after != nil {
		// After the day: from the start of the next one.
		next := after.AddDate(0, 0, 1)
		f.DueFrom = &next
	}
	return f, nil
}

// GetTask returns a task of a case the caller is in the team of.
func (s *Service) GetTask(ctx context.Context, who auth.Identity, id string) (Task, error) {
	const op = "service.GetTask"
	notFound := TaskNotFound(op, id)
	caseID, err := db.TaskCase(ctx, s.db, who.UserID, id)
	if errors.Is(err, db.ErrNotFound) {
		return Task{}, s.hidden(ctx, op, who, notFound, taskCaseOf(id))
	}
	if err != nil {
		return Task{}, wrap(op, err)
	}
	t, err := db.GetTask(ctx, s.db, caseID, id)
	if errors.Is(err, db.ErrNotFound) {
		return Task{}, notFound
	}
	if err != nil {
		return Task{}, wrap(op, err)
	}
	return taskOfRow(t), nil
}

// CaseTask is a task of a case with whether the caller may perform it.
type CaseTask struct {
	Task
	MayPerform bool
}

// CaseTasks returns every task of a case the caller is in the team of.
func (s *Service) CaseTasks(ctx context.Context, who auth.Identity, caseID string) ([]CaseTask, error) {
	const op = "service.CaseTasks"
	ca, err := s.memberCase(ctx, s.db, op, who, caseID)
	if err != nil {
		return nil, err
	}
	rows, err := db.CaseTasks(ctx, s.db, caseID)
	if err != nil {
		return nil, wrap(op, err)
	}
	def, err := s.caseDefinition(ctx, s.db, ca.rec, ca.c)
	if err != nil {
		return nil, wrap(op, err)
	}
	may := engine.MayPerform(def, ca.c, ca.actor)
	out := make([]CaseTask, len(rows))
	for i, t := range rows {
		out[i] = CaseTask{Task: taskOfRow(t), MayPerform: may(t.ID)}
	}
	return out, nil
}

// TaskDuration is the period between a task's activation and its due
// date, written as Java's Duration.toString writes it (PT2M, PT48H,
// PT1.5S), as the reference engine's task records carry it; "" without a
// due date.
func TaskDuration(activatedOn time.Time, due *time.Time) string {
	if due == nil {
		return ""
	}
	d := due.Sub(activatedOn)
	if d == 0 {
		return "PT0S"
	}
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	h, m := d/time.Hour, (d%time.Hour)/time.Minute
	sec := d % time.Minute
	out := "PT"
	if h > 0 {
		out += sign + strconv.FormatInt(int64(h), 10) + "H"
	}
	if m > 0 {
		out += sign + strconv.FormatInt(int64(m), 10) + "M"
	}
	if sec > 0 {
		out += sign + strings.TrimRight(strings.TrimRight(strconv.FormatFloat(sec.Seconds(), 'f', 9, 64), "0"), ".") + "S"
	}
	return out
}

// TaskCount is how many tasks a user has claimed and could claim.
type TaskCount = db.TaskCount

// CountTasks counts the caller's claimed and claimable tasks.
func (s *Service) CountTasks(ctx context.Context, who auth.Identity, tenant string) (TaskCount, error) {
	c, err := db.CountTasks(ctx, s.db, who.UserID, tenant)
	return c, wrap("service.CountTasks", err)
}
