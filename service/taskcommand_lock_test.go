package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/service"
)

// TestOutsiderTaskCommandTakesNoLock: a command on a task by someone
// outside the case's team is refused with the task's NotFound before the
// command locks the case, so an outsider who knows a task id cannot queue
// behind, or hold up, the team's commands. A team member's command waits
// for the lock as it should.
func TestOutsiderTaskCommandTakesNoLock(t *testing.T) {
	if dbtest.DatabaseURL() == "none" {
		t.Skip("needs PostgreSQL: SQLite takes no row locks")
	}
	d := dbtest.Open(t, db.Postgres)
	svc := reviewService(t, d, "mallory")
	ctx := context.Background()
	started, err := svc.StartCase(ctx, alice, service.StartCaseInput{Definition: "review", Tenant: "acme",
		Team: []service.MemberInput{{ID: "alice", IsOwner: true, CaseRoles: []string{"Worker"}}}})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := svc.CaseTasks(ctx, alice, started.ID)
	if err != nil || len(tasks) == 0 {
		t.Fatalf("tasks: %v, %v", tasks, err)
	}
	taskID := tasks[0].ID

	// Another transaction holds the case.
	tx, err := d.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, _, err := db.LoadCaseForUpdate(ctx, tx, db.Postgres, started.ID); err != nil {
		t.Fatal(err)
	}

	mallory := auth.Identity{UserID: "mallory"}
	for op, run := range map[string]func(context.Context) error{
		"service.ClaimTask":    func(ctx context.Context) error { _, err := svc.ClaimTask(ctx, mallory, taskID); return err },
		"service.CompleteTask": func(ctx context.Context) error { _, err := svc.CompleteTask(ctx, mallory, taskID, nil); return err },
		"service.SaveTaskOutput": func(ctx context.Context) error {
			_, err := svc.SaveTaskOutput(ctx, mallory, taskID, map[string]any{"Notes": "x"})
			return err
		},
	} {
		wait, cancel := context.WithTimeout(ctx, 2*time.Second)
		start := time.Now()
		err := run(wait)
		cancel()
		// The very answer an unknown task id gets.
		if want := service.TaskNotFound(op, taskID); err == nil || err.Error() != want.Error() {
			t.Errorf("%s by an outsider: %v, want %v", op, err, want)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s by an outsider waited %v for the case's lock", op, took)
		}
	}

	// A member's command does queue behind the lock.
	wait, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := svc.ClaimTask(wait, alice, taskID); err == nil {
		t.Error("alice's claim went through while another transaction held the case")
	}
}
