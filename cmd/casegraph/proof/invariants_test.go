package proof_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/load"
	"github.com/casegraph/casegraph/db"
)

// ackLog records every command a server acknowledged.
type ackLog struct {
	mu   sync.Mutex
	acks []load.Ack
}

func (a *ackLog) add(x load.Ack) {
	a.mu.Lock()
	a.acks = append(a.acks, x)
	a.mu.Unlock()
}

func (a *ackLog) list() []load.Ack {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]load.Ack(nil), a.acks...)
}

func openDB(t *testing.T, url string) *db.DB {
	t.Helper()
	d, err := db.Open(context.Background(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// waitTimers waits until the tenant's cases wait on no timer.
func waitTimers(t *testing.T, d *db.DB, tenant string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var n int
		if err := d.QueryRowContext(context.Background(),
			"SELECT COUNT(*) FROM case_timers WHERE case_id IN (SELECT id FROM cases WHERE tenant = ?)", tenant).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d timers still wait after %s", n, within)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// event is the part of a stored event the checks read.
type event struct {
	seq          int64
	typ          string
	PlanItemID   string `json:"planItemId"`
	TaskID       string `json:"taskId"`
	Type         string `json:"type"`
	CurrentState string `json:"currentState"`
	Transition   string `json:"transition"`
	TaskState    string `json:"taskState"`
}

// taskPlanState is the plan item state each task state goes with.
var taskPlanState = map[string]string{
	"Unassigned": "Active", "Assigned": "Active", "Delegated": "Active",
	"Suspended": "Suspended", "Completed": "Completed", "Terminated": "Terminated",
}

// checkInvariants checks what must hold of the tenant's cases whatever the
// servers went through, and that every acknowledged command is there.
// With timersDone, every timer has fired, and exactly once.
func checkInvariants(t *testing.T, d *db.DB, tenant string, acks []load.Ack, timersDone bool) {
	t.Helper()
	ctx := context.Background()
	// A command's events of a case are one row; the checks read them one
	// by one, numbered from the row's first sequence number.
	rows, err := d.QueryContext(ctx, `SELECT e.case_id, e.first_seq, e.last_seq, e.events FROM case_event_batches e
		WHERE e.case_id IN (SELECT id FROM cases WHERE tenant = ?) ORDER BY e.case_id, e.first_seq`, tenant)
	if err != nil {
		t.Fatal(err)
	}
	events := map[string][]event{}
	for rows.Next() {
		var (
			caseID, batch string
			first, last   int64
			batched       []struct {
				Type    string          `json:"type"`
				Payload json.RawMessage `json:"payload"`
			}
		)
		if err := rows.Scan(&caseID, &first, &last, &batch); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(batch), &batched); err != nil {
			t.Fatalf("case %s events %d-%d: %v", caseID, first, last, err)
		}
		if int64(len(batched)) != last-first+1 {
			t.Errorf("case %s: events %d-%d hold %d events", caseID, first, last, len(batched))
		}
		for i, b := range batched {
			e := event{seq: first + int64(i), typ: b.Type}
			if err := json.Unmarshal(b.Payload, &e); err != nil {
				t.Fatalf("case %s event %d: %v", caseID, e.seq, err)
			}
			events[caseID] = append(events[caseID], e)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()

	cases := query(t, d, "SELECT id, state FROM cases WHERE tenant = ?", tenant)
	if len(cases) == 0 {
		t.Fatal("the run left no case")
	}
	caseSet := map[string]bool{}
	for _, c := range cases {
		caseSet[c[0]] = true
		// Sequence numbers 1..n without a gap: no command was half
		// written, none lost between others.
		evs := events[c[0]]
		for i, e := range evs {
			if e.seq != int64(i+1) {
				t.Errorf("case %s: event %d has sequence number %d", c[0], i+1, e.seq)
				break
			}
		}
		if len(evs) == 0 {
			t.Errorf("case %s has no event", c[0])
		}
	}
	for _, c := range query(t, d, `SELECT id FROM cases c WHERE tenant = ? AND NOT EXISTS
		(SELECT 1 FROM case_team_members m WHERE m.case_id = c.id AND m.is_owner)`, tenant) {
		t.Errorf("case %s has no owner", c[0])
	}

	// Read tables against the events: the last transition of every plan
	// item is its state, the last task event its task state.
	planState := map[[2]string]string{}
	taskState := map[[2]string]string{}
	occurred := map[[2]string]int{}
	present := map[string]map[string]bool{} // case → "type/task" seen
	for caseID, evs := range events {
		present[caseID] = map[string]bool{}
		for _, e := range evs {
			if e.typ == "PlanItemTransitioned" {
				planState[[2]string{caseID, e.PlanItemID}] = e.CurrentState
				if e.Type == "TimerEvent" && e.Transition == "Occur" {
					occurred[[2]string{caseID, e.PlanItemID}]++
				}
			}
			if e.TaskID != "" && e.TaskState != "" {
				taskState[[2]string{caseID, e.TaskID}] = e.TaskState
			}
			present[caseID][e.typ+"/"+e.TaskID] = true
		}
	}
	for _, p := range query(t, d, "SELECT case_id, id, state, type FROM plan_items WHERE case_id IN (SELECT id FROM cases WHERE tenant = ?)", tenant) {
		if want := planState[[2]string{p[0], p[1]}]; p[2] != want {
			t.Errorf("case %s plan item %s: read table says %s, events %s", p[0], p[1], p[2], want)
		}
		n := occurred[[2]string{p[0], p[1]}]
		if p[3] == "TimerEvent" && (n > 1 || timersDone && n != 1) {
			t.Errorf("case %s timer %s (%s) occurred %d times", p[0], p[1], p[2], n)
		}
	}
	follow := map[string]int{}
	for _, r := range query(t, d, `SELECT t.case_id, t.id, t.task_state, COALESCE(p.state, ''), t.task_name FROM tasks t
		LEFT JOIN plan_items p ON p.case_id = t.case_id AND p.id = t.id WHERE t.tenant = ?`, tenant) {
		if want := taskPlanState[r[2]]; r[3] != want {
			t.Errorf("case %s task %s is %s, its plan item %q", r[0], r[1], r[2], r[3])
		}
		if want := taskState[[2]string{r[0], r[1]}]; want != "" && r[2] != want {
			t.Errorf("case %s task %s: read table says %s, events %s", r[0], r[1], r[2], want)
		}
		if r[4] == "Follow up" || r[4] == "Act" {
			follow[r[0]]++
		}
	}
	for _, c := range cases {
		if n := follow[c[0]]; n > 1 || timersDone && n != 1 {
			t.Errorf("case %s has %d tasks its timer opens, want 1", c[0], n)
		}
	}

	// No row outlives its case: since migration 00016 no foreign key
	// would refuse one on PostgreSQL, the code keeps the rule. (Each proof
	// runs on a schema of its own, so this reads every case's rows.)
	for _, table := range []string{"case_event_batches", "case_team_members", "case_team_roles", "case_team_group_roles",
		"plan_items", "tasks", "case_files", "case_identifiers", "case_timers", "process_outbox"} {
		for _, r := range query(t, d, "SELECT case_id FROM "+table+" AS r WHERE NOT EXISTS (SELECT 1 FROM cases AS c WHERE c.id = r.case_id) LIMIT 5") {
			t.Errorf("%s holds a row of case %s, which is not there", table, r[0])
		}
	}

	// Every acknowledged command is there.
	eventOf := map[string]string{load.OpClaim: "HumanTaskClaimed", load.OpSave: "HumanTaskOutputSaved", load.OpComplete: "HumanTaskCompleted"}
	team := map[[2]string]bool{}
	for _, m := range query(t, d, "SELECT case_id, member_id FROM case_team_members WHERE case_id IN (SELECT id FROM cases WHERE tenant = ?)", tenant) {
		team[[2]string{m[0], m[1]}] = true
	}
	for _, a := range acks {
		switch {
		case !caseSet[a.CaseID]:
			t.Errorf("acknowledged %s: case %s is missing", a.Op, a.CaseID)
		case a.Op == load.OpTeamChange && !team[[2]string{a.CaseID, a.User}]:
			t.Errorf("acknowledged team change: %s is not in case %s", a.User, a.CaseID)
		case eventOf[a.Op] != "" && !present[a.CaseID][eventOf[a.Op]+"/"+a.TaskID]:
			t.Errorf("acknowledged %s of task %s: no %s event in case %s", a.Op, a.TaskID, eventOf[a.Op], a.CaseID)
		}
	}
}

// query returns the rows of a query, every column as a string.
func query(t *testing.T, d *db.DB, q string, args ...any) [][]string {
	t.Helper()
	rows, err := d.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			switch v := v.(type) {
			case []byte:
				row[i] = string(v)
			case string:
				row[i] = v
			case nil:
			default:
				b, _ := json.Marshal(v)
				row[i] = string(b)
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// workGoesOn runs a short load on targets after a fault and fails the test,
// saying after what, when any request failed: the proof that work
// continues. It returns the run and what it acknowledged.
func workGoesOn(t *testing.T, targets []string, users, count int, token func(context.Context, string) (string, error), after string) (*load.Result, *ackLog) {
	t.Helper()
	acks := &ackLog{}
	more, err := load.Run(context.Background(), load.Config{
		Targets: targets, Users: users, Count: count, Duration: 30 * time.Second,
		Token: token, OnAck: acks.add})
	if err != nil {
		t.Fatal(err)
	}
	if more.Stats.Errors() != 0 {
		var report bytes.Buffer
		more.Stats.Report(&report, more.Elapsed)
		t.Errorf("%s:\n%s", after, report.String())
	}
	return more, acks
}
