package service

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
)

// Task is a human task as the task lists show it.
type Task = db.Task

// TaskQuery filters and pages a task list, as GET /tasks does.
type TaskQuery struct {
	Tenant      string
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
	tasks, err := db.ListTasks(ctx, s.db, who.UserID, f)
	return tasks, wrap(op, err)
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
	f := db.TaskFilter{Tenant: q.Tenant, Identifiers: ids, CaseName: q.CaseName, TaskName: q.TaskName,
		Assignee: q.Assignee, Owner: q.Owner, Offset: q.Offset, Limit: pageSize(q.NumberOfResults), SortBy: q.SortBy,
		Ascending: strings.EqualFold(q.SortOrder, "asc"), After: q.After}
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
	notFound := Ef(op, NotFound, "A task with id '%s' cannot be found.", id)
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
	return t, wrap(op, err)
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
		out[i] = CaseTask{Task: t, MayPerform: may(t.ID)}
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
