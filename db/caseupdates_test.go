package db_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/engine"
)

// TestCaseUpdatesTogether checks the group commit of commands on cases
// read without a lock (PostgreSQL): commands on different cases at the
// same moment are written in one query; one that lost its race fails
// alone and the others are written; two on one case never share a query,
// and the later fails its version check on its own; a row the database
// refuses has each written again on its own.
func TestCaseUpdatesTogether(t *testing.T) {
	if !slices.Contains(dbtest.Flavors(), db.Postgres) {
		t.Skip("SQLite writes each command in its own transaction")
	}
	d := setup(t, func(t *testing.T) *db.DB { return dbtest.Open(t, db.Postgres) })
	writes := &dbtest.Statements{Match: "casegraph_update_case"}
	//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
	d.AddQueryHook(writes)

	type read struct {
		rec db.CaseRecord
		c   *engine.Case
	}
	load := func(id string) read {
		rec, c, err := db.LoadCase(ctx, d, id)
		must(t, err)
		return read{rec, c}
	}
	// join saves a command that read r and adds member, as
	// service.caseChange does without a lock.
	join := func(ctx context.Context, r read, member string) error {
		next := r.c.Clone()
		next.Team.Members = append(next.Team.Members, user(member, false, "Clerk"))
		next.Sequence++
		_, err := db.SaveCase(ctx, d, db.CaseWrite{Record: r.rec, State: next, User: "alice", At: t0,
			Events: []engine.Event{{Type: "CaseTeamMembersChanged", Payload: map[string]any{"id": member}}}, Before: &db.ReadState{State: r.c}})
		return err
	}
	type command struct {
		r      read
		member string
	}
	// together runs commands at once, held until all are queued.
	together := func(ctx context.Context, cmds []command) []error {
		queued, release := d.HoldCaseUpdates()
		errs := make([]error, len(cmds))
		var wg sync.WaitGroup
		for i, cmd := range cmds {
			wg.Go(func() { errs[i] = join(ctx, cmd.r, cmd.member) })
		}
		for deadline := time.Now().Add(10 * time.Second); queued() < len(cmds); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d commands queued after 10 s", queued(), len(cmds))
			}
		}
		release()
		wg.Wait()
		return errs
	}
	members := func(id string) int {
		return count(t, d, "case_team_members", "case_id = ?", id)
	}

	var ids []string
	for i := range 8 {
		ids = append(ids, fmt.Sprintf("u%d", i))
		newCase(t, d, caseSpec{id: ids[i], name: "P", members: []engine.Member{user("alice", true)}})
	}
	newCase(t, d, caseSpec{id: "raced", name: "P", members: []engine.Member{user("alice", true)}})
	reads := map[string]read{}
	for _, id := range append(slices.Clone(ids), "raced") {
		reads[id] = load(id)
	}
	// Another command changes "raced" after its read.
	must(t, join(ctx, reads["raced"], "zoe"))
	before := writes.Count()

	var cmds []command
	for _, id := range ids {
		cmds = append(cmds, command{reads[id], "bob"})
	}
	cmds = append(cmds, command{reads["raced"], "bob"}, command{reads["u3"], "carol"})
	errs := together(ctx, cmds)
	// Which of the two commands on u3 queued first is the goroutines'
	// luck: that one is written.
	u3 := []error{errs[3], errs[9]}
	if (u3[0] == nil) == (u3[1] == nil) || !errors.Is(errors.Join(u3...), db.ErrStaleVersion) {
		t.Errorf("two commands from one read of u3: %v, want one written and one ErrStaleVersion", u3)
	}
	errs[3] = nil
	for i, id := range ids {
		if errs[i] != nil {
			t.Errorf("command on %s beside a stale one: %v", id, errs[i])
		}
		if n := members(id); n != 2 {
			t.Errorf("case %s has %d members, want 2", id, n)
		}
		if r := load(id); r.rec.Version != reads[id].rec.Version+1 {
			t.Errorf("case %s at version %d, want %d", id, r.rec.Version, reads[id].rec.Version+1)
		}
	}
	wantErr(t, "the command that lost its race", errs[8], db.ErrStaleVersion)
	if n := members("raced"); n != 2 {
		t.Errorf("case raced has %d members, want its owner and zoe", n)
	}
	// The nine, then the eight without the one that lost its race, then
	// the later command on u3 alone.
	if n := writes.Count() - before; n != 3 {
		t.Errorf("%d queries, want 3", n)
	}

	// A row the database refuses fails its own command only.
	for _, id := range ids {
		reads[id] = load(id)
	}
	_, err := d.ExecContext(ctx, "INSERT INTO case_team_roles (case_id, member_type, member_id, role) VALUES ('u5', 'user', 'dave', 'Clerk')")
	must(t, err)
	cmds = cmds[:0]
	for _, id := range ids {
		cmds = append(cmds, command{reads[id], "dave"})
	}
	before = writes.Count()
	errs = together(ctx, cmds)
	for i, id := range ids {
		switch {
		case id == "u5":
			if errs[i] == nil || errors.Is(errs[i], db.ErrStaleVersion) || !db.IsUniqueViolation(errs[i]) {
				t.Errorf("the command colliding with a stray row: %v, want the unique violation", errs[i])
			}
			if n := members(id); n != 2 {
				t.Errorf("case u5 has %d members after its failed command, want 2", n)
			}
		case errs[i] != nil:
			t.Errorf("command on %s beside a failing one: %v", id, errs[i])
		case members(id) != 3:
			t.Errorf("case %s has %d members, want 3", id, members(id))
		}
	}
	// The eight together, then each alone.
	if n := writes.Count() - before; n != 9 {
		t.Errorf("%d queries, want 9", n)
	}

	// A caller that gives up before its turn is answered at once and not
	// written.
	queued, release := d.HoldCaseUpdates()
	gone, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	r := load("u0")
	if err := join(gone, r, "erin"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("command of a caller gone: %v", err)
	}
	if n := queued(); n != 0 {
		t.Errorf("%d commands queued after their callers left", n)
	}
	release()
	if after := load("u0"); after.rec.Version != r.rec.Version {
		t.Errorf("the command of a caller gone was written: version %d, want %d", after.rec.Version, r.rec.Version)
	}
}
