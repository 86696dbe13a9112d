package service_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/service"
)

// statementLog records the statements a database runs and the rows each
// wrote, per table.
type statementLog struct {
	mu    sync.Mutex
	on    bool
	stmts []string
	trips int
	// notifies counts the live notifications sent: each its own round
	// trip, but on a connection and in a transaction shared with the
	// commands that committed meanwhile, so not a trip of the command.
	notifies int
	rows     map[string]int64
}

var writeTable = regexp.MustCompile(`^(INSERT INTO|UPDATE|DELETE FROM) "?([a-z_]+)"?`)

func (l *statementLog) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (l *statementLog) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on {
		return
	}
	if strings.HasPrefix(e.Query, "SELECT pg_notify(") {
		l.notifies++
		l.stmts = append(l.stmts, e.Query)
		return
	}
	l.trips++
	stmts := splitBatch(e.Query)
	l.stmts = append(l.stmts, stmts...)
	// A batch reports the rows of its last statement only; SQLite runs
	// the same statements one by one, so its table has every count.
	if len(stmts) > 1 {
		return
	}
	if m := writeTable.FindStringSubmatch(e.Query); m != nil && e.Err == nil && e.Result != nil {
		n, _ := e.Result.RowsAffected()
		verb := map[string]string{"INSERT INTO": "+", "UPDATE": "~", "DELETE FROM": "-"}[m[1]]
		l.rows[verb+m[2]] += n
	}
}

// splitBatch splits a multi-statement query (db's write batch) into its
// statements: they are joined by ";\n", and each starts with its verb or
// is an EXECUTE of a prepared write, which has one EXECUTE a row: the
// EXECUTEs of one prepared write in a row count as one statement, as their
// plain statement would.
func splitBatch(q string) []string {
	var stmts []string
	for _, part := range strings.Split(q, ";\n") {
		name, _, _ := strings.Cut(part, "(")
		prepared := strings.HasPrefix(part, "EXECUTE casegraph_")
		if len(stmts) > 0 && (!writeTable.MatchString(part) && !prepared || prepared && strings.HasPrefix(stmts[len(stmts)-1], name+"(")) {
			stmts[len(stmts)-1] += ";\n" + part
			continue
		}
		stmts = append(stmts, part)
	}
	return stmts
}

func (l *statementLog) start() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.on, l.stmts, l.trips, l.notifies, l.rows = true, nil, 0, 0, map[string]int64{}
}

func (l *statementLog) stop() (stmts []string, trips, notifies int, rows map[string]int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.on = false
	return l.stmts, l.trips, l.notifies, l.rows
}

// sqlCost is what one command cost.
type sqlCost struct {
	stmts    []string
	trips    int // round trips to the database, BEGIN and COMMIT included
	notifies int // statements sending live notifications (not in trips)
	rows     map[string]int64
	wal      int64 // bytes of write-ahead log, PostgreSQL only
}

// queries counts the statements other than BEGIN and COMMIT.
func (c sqlCost) queries() int {
	n := 0
	for _, s := range c.stmts {
		if s != "BEGIN" && s != "COMMIT" {
			n++
		}
	}
	return n
}

// wantStatements pins the SQL statements (BEGIN and COMMIT not counted)
// each command of the load generator's write path runs, on SQLite and on
// PostgreSQL, where one more is sent after the commit, the NOTIFY of live
// updates, shared with the commands that committed meanwhile, and a task
// command reads its case with the task's lookup (one fewer):
// a change that adds a statement to a command shows here first. Lower a
// figure when the path gets leaner; raise one only knowingly.
var wantStatements = map[string]struct{ sqlite, postgres int }{
	"start case":  {9, 10},
	"team change": {6, 7},
	"claim":       {5, 5},
	"complete":    {6, 6},
}

// wantPostgresRoundTrips pins the round trips to PostgreSQL, BEGIN and
// COMMIT included, the shared NOTIFY not: there a command's writes leave
// as one batch, a transaction of its own (no BEGIN, no COMMIT, no lock:
// the batch checks the version read).
var wantPostgresRoundTrips = map[string]int{
	"start case":  2,
	"team change": 3,
	"claim":       2,
	"complete":    2,
}

// TestSQLCostPerCommand runs the commands the load generator measures
// (testdata/cases/review.xml, the load model) and pins how many statements
// each runs. It logs, per command, the statements, the rows written per
// table and, on PostgreSQL, the write-ahead log it wrote (the least of a
// few runs: the log is the whole server's, and other work shares it).
// SQL_COST_VERBOSE=1 logs every statement too.
func TestSQLCostPerCommand(t *testing.T) {
	for _, flavor := range dbtest.Flavors() {
		t.Run(string(flavor), func(t *testing.T) {
			d := dbtest.Open(t, flavor)
			log := &statementLog{}
			//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
			d.AddQueryHook(log)
			svc := reviewService(t, d, "bob")
			ctx := context.Background()
			walLSN := func() int64 {
				if flavor != db.Postgres {
					return 0
				}
				var n int64
				if err := d.NewRaw("SELECT pg_current_wal_insert_lsn() - '0/0'").Scan(ctx, &n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			measure := func(name string, fn func() error) sqlCost {
				t.Helper()
				before := walLSN()
				log.start()
				err := fn()
				stmts, trips, notifies, rows := log.stop()
				after := walLSN()
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return sqlCost{stmts: stmts, trips: trips, notifies: notifies, rows: rows, wal: after - before}
			}

			const runs = 5
			names := []string{"start case", "team change", "claim", "complete"}
			costs := map[string][]sqlCost{}
			for range runs {
				var caseID, taskID string
				costs["start case"] = append(costs["start case"], measure("start case", func() error {
					started, err := svc.StartCase(ctx, alice, service.StartCaseInput{Definition: "review", Tenant: "acme",
						Team: []service.MemberInput{{ID: "alice", IsOwner: true, CaseRoles: []string{"Worker"}}}})
					caseID = started.ID
					return err
				}))
				costs["team change"] = append(costs["team change"], measure("team change", func() error {
					_, err := svc.UpsertCaseTeamMembers(ctx, alice, caseID,
						[]service.MemberUpdate{{ID: "bob", Type: "user", CaseRoles: []string{"Worker"}, Replace: true}})
					return err
				}))
				tasks, err := svc.CaseTasks(ctx, alice, caseID)
				if err != nil {
					t.Fatal(err)
				}
				for _, task := range tasks {
					if task.TaskName == "Review" {
						taskID = task.ID
					}
				}
				if taskID == "" {
					t.Fatalf("case %s has no Review task: %+v", caseID, tasks)
				}
				costs["claim"] = append(costs["claim"], measure("claim", func() error {
					_, err := svc.ClaimTask(ctx, alice, taskID)
					return err
				}))
				costs["complete"] = append(costs["complete"], measure("complete", func() error {
					_, err := svc.CompleteTask(ctx, alice, taskID, map[string]any{"Notes": "fine"})
					return err
				}))
			}

			var table strings.Builder
			fmt.Fprintf(&table, "\n| Command | statements | round trips | rows written (+ insert, ~ update, - delete) | WAL bytes |\n|---|---|---|---|---|\n")
			for _, name := range names {
				runs := costs[name]
				// Every run of a command must cost the same statements;
				// the first case's start also reads the definition.
				last := runs[len(runs)-1]
				for i, c := range runs[1:] {
					if c.queries() != last.queries() {
						t.Errorf("%s: run %d ran %d statements, the last %d", name, i+2, c.queries(), last.queries())
					}
				}
				want := wantStatements[name].sqlite
				if flavor == db.Postgres {
					want = wantStatements[name].postgres
					// The pg_notify that tells the other replicas'
					// live subscribers, after the commit.
					if last.notifies != 1 {
						t.Errorf("%s sends %d notifications, want 1:\n%s", name, last.notifies, strings.Join(last.stmts, "\n"))
					}
				}
				if got := last.queries(); got != want {
					t.Errorf("%s runs %d statements, pinned at %d:\n%s", name, got, want, strings.Join(last.stmts, "\n"))
				}
				if want := wantPostgresRoundTrips[name]; flavor == db.Postgres && last.trips != want {
					t.Errorf("%s takes %d round trips, pinned at %d:\n%s", name, last.trips, want, strings.Join(last.stmts, "\n"))
				}
				// A command's events are one row, however many it has (a
				// start case has 23). SQLite runs the batch's statements
				// one by one, so only there are its rows counted.
				if n := last.rows["+case_event_batches"]; flavor == db.SQLite && n != 1 {
					t.Errorf("%s writes %d rows of events, want 1", name, n)
				}
				wal := slices.MinFunc(runs, func(a, b sqlCost) int { return int(a.wal - b.wal) }).wal
				fmt.Fprintf(&table, "| %s | %d | %d | %s | %d |\n", name, last.queries(), last.trips, rowSummary(last.rows), wal)
				if os.Getenv("SQL_COST_VERBOSE") != "" {
					t.Logf("%s:\n  %s", name, strings.Join(last.stmts, "\n  "))
				}
			}
			t.Log(table.String())
		})
	}
}

func rowSummary(rows map[string]int64) string {
	keys := make([]string, 0, len(rows))
	for k, n := range rows {
		if n > 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][1:] < keys[j][1:] || keys[i][1:] == keys[j][1:] && keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s%s %d", k[:1], k[1:], rows[k])
	}
	return strings.Join(parts, ", ")
}

// reviewService is a service on d with tenant acme — alice its owner, and
// users others — where the load generator's model is deployed as
// "review" (testdata/cases/review.xml, a copy of it).
func reviewService(t *testing.T, d *db.DB, others ...string) *service.Service {
	t.Helper()
	svc := service.New(d, service.Config{PlatformOwners: []string{"admin"}})
	ctx := context.Background()
	owner := true
	users := []service.UserInput{{UserID: "alice", IsOwner: &owner}}
	for _, u := range others {
		users = append(users, service.UserInput{UserID: u})
	}
	if _, _, err := svc.CreateTenant(ctx, auth.Identity{UserID: "admin"}, "acme", users); err != nil {
		t.Fatal(err)
	}
	xml, err := os.ReadFile("../testdata/cases/review.xml")
	if err != nil {
		t.Fatal(err)
	}
	tenant := "acme"
	if _, err := svc.DeployDefinition(ctx, alice, &tenant, "review", xml); err != nil {
		t.Fatal(err)
	}
	return svc
}
