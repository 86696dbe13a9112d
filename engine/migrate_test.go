package engine

import (
	"slices"
	"testing"
	"time"
)

// migrate runs Migrate on the case under test, onto model name, which then
// is the case's definition.
func (x *tc) migrate(name string, cmd MigrateDefinition, as Actor) []Event {
	x.t.Helper()
	x.now = x.now.Add(time.Minute)
	if cmd.Previous == nil {
		cmd.Previous = x.def
	}
	before := x.c.Sequence
	def := model(x.t, name)
	events, err := Migrate(def, x.c, cmd, as, x.env())
	if err != nil {
		x.t.Fatalf("Migrate to %s: %v", name, err)
	}
	if x.c.Sequence != before+int64(len(events)) {
		x.t.Fatalf("sequence %d after %d events from %d", x.c.Sequence, len(events), before)
	}
	checkEvents(x.t, x.c, events)
	x.def, x.events = def, events
	// The migrated state must survive storage and keep running.
	x.c = roundTrip(x.t, x.c)
	return events
}

func migrateCase(t *testing.T) *tc {
	x := start(t, "migrate_v1", map[string]any{})
	x.c.Team.Members = append(x.c.Team.Members, Member{ID: "bob", Type: UserMember, CaseRoles: []string{"Clerk", "Manager"}})
	x.do(ChangeCaseFile{Op: FileUpdate, Path: "Request", Value: map[string]any{"Subject": "roof",
		"Attachments": []any{map[string]any{"Subject": "photo"}}}}, alice)
	x.do(ChangeCaseFile{Op: FileUpdate, Path: "Obsolete", Value: map[string]any{"Subject": "old"}}, alice)
	x.want(map[string]State{"Intake": Active, "Review": Active, "Archive": Active, "Approve": Active, "Legacy": Active,
		"Remark": Active, "Old mark": Available, "Closing": Active, "Close": Active})
	return x
}

func TestMigrateMatchesRenamesMovesAddsAndRemoves(t *testing.T) {
	x := migrateCase(t)
	ids := map[string]string{}
	for _, n := range []string{"Intake", "Review", "Archive", "Approve", "Legacy", "Remark", "Old mark", "Closing"} {
		ids[n] = x.item(n).ID
	}
	events := x.migrate("migrate_v2", MigrateDefinition{}, alice)

	if events[0].Type != "CaseDefinitionMigrated" {
		t.Fatalf("first event %s, want CaseDefinitionMigrated", events[0].Type)
	}
	if x.c.Name != "Migrate v2" || x.c.DefinitionID != "migrate2.case" || x.c.PlanItems[0].Name != "Migrate v2" ||
		x.c.PlanItems[0].DefinitionID != "cp_migrate2" {
		t.Errorf("case runs %s %q, case plan %s %q", x.c.DefinitionID, x.c.Name, x.c.PlanItems[0].DefinitionID, x.c.PlanItems[0].Name)
	}
	// RENAMED: same id, new name, same instance, same state.
	if p := x.item("Approve request"); p.ID != ids["Approve"] || p.State != Active {
		t.Errorf("Approve request is %s %s, want the former Approve %s, Active", p.ID, p.State, ids["Approve"])
	}
	// Matched by name: a new definition id.
	if p := x.item("Remark"); p.ID != ids["Remark"] || p.DefinitionID != "pi_remark_v2" || p.State != Active {
		t.Errorf("Remark is %s %s %s", p.ID, p.DefinitionID, p.State)
	}
	// MOVED: Archive now lives in the Closing stage, still Active.
	if p := x.item("Archive"); p.ID != ids["Archive"] || p.StageID != ids["Closing"] || p.State != Active {
		t.Errorf("Archive is %s in %s, %s; want %s in Closing %s, Active", p.ID, p.StageID, p.State, ids["Archive"], ids["Closing"])
	}
	// REMOVED: the active task and the waiting milestone are terminated,
	// with their task workflow.
	x.want(map[string]State{"Legacy": Terminated, "Old mark": Terminated})
	if task := x.item("Legacy").Task; task == nil || task.State != TaskTerminated {
		t.Errorf("Legacy task %+v, want Terminated", task)
	}
	// ADDED: Check starts as the plan says; Notify and Approved wait for
	// their entry criteria.
	x.want(map[string]State{"Check": Active, "Notify": Available, "Approved": Available})
	if p := x.item("Notify"); p.StageID != ids["Intake"] {
		t.Errorf("Notify is in %s, want Intake %s", p.StageID, ids["Intake"])
	}
	if x.item("Check").Task == nil {
		t.Error("the new Check task was not activated")
	}
	if n := len(x.items("Review")) + len(x.items("Archive")) + len(x.items("Close")); n != 3 {
		t.Errorf("%d instances of Review, Archive and Close, want one each: %s", n, x.summary())
	}
	// Events: one PlanItemMigrated per kept item, the removals, the new
	// items.
	var migrated []string
	for _, e := range events {
		if p, ok := e.Payload.(PlanItemMigrated); ok {
			migrated = append(migrated, p.Name)
		}
	}
	slices.Sort(migrated)
	want := []string{"Approve request", "Archive", "Close", "Closing", "Intake", "Migrate v2", "Remark", "Review"}
	if !slices.Equal(migrated, want) {
		t.Errorf("PlanItemMigrated for %v, want %v", migrated, want)
	}
	got := transitions(events)
	for _, w := range []string{"Legacy:Exit", "Old mark:ParentTerminate", "Check:Create", "Check:Start", "Notify:Create"} {
		if !slices.Contains(got, w) {
			t.Errorf("transitions %v lack %s", got, w)
		}
	}

	// The case goes on under the new definition: sentries of new items
	// listen to migrated ones.
	x.do(CompleteHumanTask{PlanItemID: ids["Approve"]}, alice)
	x.want(map[string]State{"Approve request": Completed, "Approved": Completed})
	x.do(CompleteHumanTask{PlanItemID: ids["Review"]}, alice)
	x.want(map[string]State{"Notify": Active})
}

func TestMigrateKeepsTaskWorkflow(t *testing.T) {
	x := migrateCase(t)
	review := x.item("Review").ID
	clerk := Actor{UserID: "bob", Roles: []string{"Clerk", "Manager"}}
	x.do(ClaimTask{TaskID: review}, clerk)
	x.do(SaveTaskOutput{TaskID: review, Output: map[string]any{"Remarks": "half done"}}, clerk)
	x.migrate("migrate_v2", MigrateDefinition{}, alice)

	task := x.item("Review").Task
	if task == nil || task.State != Assigned || task.Assignee != "bob" || task.Owner != "bob" || task.Output["Remarks"] != "half done" {
		t.Fatalf("Review's workflow after migration: %+v", task)
	}
	if task.Role != "Manager" {
		t.Errorf("performer role %q, want the new definition's Manager", task.Role)
	}
	var migrated *HumanTaskMigrated
	for _, e := range x.events {
		if p, ok := e.Payload.(HumanTaskMigrated); ok && p.TaskID == review {
			migrated = &p
		}
	}
	if migrated == nil || migrated.Role != "Manager" || migrated.State != Assigned {
		t.Errorf("HumanTaskMigrated %+v", migrated)
	}
	// Bob still holds Manager, and completes the task he has.
	x.do(CompleteHumanTask{PlanItemID: review, Output: map[string]any{"Remarks": "done"}}, Actor{UserID: "bob", Roles: []string{"Manager"}})
	x.want(map[string]State{"Review": Completed, "Notify": Active})
}

func TestMigrateRolesAndCaseFile(t *testing.T) {
	x := migrateCase(t)
	events := x.migrate("migrate_v2", MigrateDefinition{}, alice)
	bobRoles := x.c.Team.Members[1].CaseRoles
	if !slices.Equal(bobRoles, []string{"Manager"}) {
		t.Errorf("bob's roles %v, want [Manager]: Clerk is no longer declared", bobRoles)
	}
	if got, want := x.fileJSON(), `{"Request":{"Subject":"roof"}}`; got != want {
		t.Errorf("case file %s, want %s", got, want)
	}
	for k := range x.c.FileStates {
		if k != "Request" {
			t.Errorf("file state of %s stayed", k)
		}
	}
	var dropped []string
	var roles []string
	for _, e := range events {
		switch p := e.Payload.(type) {
		case CaseFileItemDropped:
			dropped = append(dropped, p.Path)
		case CaseRolesDropped:
			roles = p.Roles
		}
	}
	slices.Sort(dropped)
	if !slices.Equal(dropped, []string{"Obsolete", "Request/Attachments"}) || !slices.Equal(roles, []string{"Clerk"}) {
		t.Errorf("dropped case file items %v and roles %v", dropped, roles)
	}
}

func TestMigrateNewTeam(t *testing.T) {
	x := migrateCase(t)
	team := Team{Members: []Member{{ID: "carol", Type: UserMember, IsOwner: true, CaseRoles: []string{"Manager"}}}}
	events := x.migrate("migrate_v2", MigrateDefinition{Team: &team}, alice)
	if len(x.c.Team.Members) != 1 || x.c.Team.Members[0].ID != "carol" {
		t.Errorf("team %+v, want carol alone", x.c.Team)
	}
	if !slices.ContainsFunc(events, func(e Event) bool { return e.Type == "CaseTeamSet" }) {
		t.Errorf("no CaseTeamSet in %v", eventTypesOf(events))
	}
}

func TestMigrateRefusals(t *testing.T) {
	x := migrateCase(t)
	sub := roundTrip(t, x.c)
	sub.ParentID = "parent-1"
	if _, err := Migrate(model(t, "migrate_v2"), sub, MigrateDefinition{}, alice, x.env()); asError(t, err).Kind != ErrInvalid {
		t.Errorf("migrating a sub case: %v", err)
	}
	// An id that the new definition gives to another kind of item.
	clash := roundTrip(t, x.c)
	for _, p := range clash.PlanItems {
		if p.Name == "Legacy" {
			p.DefinitionID = "pi_approved" // a milestone in v2
		}
	}
	if _, err := Migrate(model(t, "migrate_v2"), clash, MigrateDefinition{}, alice, x.env()); asError(t, err).Kind != ErrInvalid {
		t.Errorf("migrating a task onto a milestone's id: %v", err)
	}
	if _, err := Migrate(nil, roundTrip(t, x.c), MigrateDefinition{}, alice, x.env()); asError(t, err).Kind != ErrInvalid {
		t.Errorf("migrating without a definition: %v", err)
	}
}

// A stage that has not started gets its items from the new definition
// when it starts; an item moved into a stage with no running instance is
// terminated.
func TestMigrateIntoStageThatDidNotStart(t *testing.T) {
	x := start(t, "stages", map[string]any{})
	x.want(map[string]State{"Review": Available, "Collect A": Active})
	collectA := x.item("Collect A").ID
	x.migrate("migrate_stages_v2", MigrateDefinition{}, alice)
	// Collect A moved into Review in v2, whose instance waits: Collect A
	// has nowhere to go and ends.
	if p := x.item("Collect A"); p.ID != collectA || p.State != Terminated {
		t.Errorf("Collect A is %s %s, want %s Terminated", p.ID, p.State, collectA)
	}
	x.do(MakeTransition{PlanItem: "Begin review", Transition: Occur}, alice)
	x.want(map[string]State{"Review": Active, "Check": Active})
	if n := len(x.items("Collect A")); n != 2 {
		t.Errorf("%d instances of Collect A, want the old one and one made by Review's start: %s", n, x.summary())
	}
}

// Migrating to the definition the case already runs changes no state:
// every item, planned discretionary ones included, is matched by its id
// and stays where it is; nothing is created or terminated.
func TestMigrateToSameDefinition(t *testing.T) {
	for _, name := range []string{"migrate_v1", "stages", "discretionary", "workflow"} {
		t.Run(name, func(t *testing.T) {
			x := start(t, name, map[string]any{})
			if name == "discretionary" {
				x.do(PlanDiscretionaryItem{ParentID: "case-1", DefinitionID: "di_extra", Name: "Extra"}, alice)
			}
			before := roundTrip(t, x.c)
			events := x.migrate(name, MigrateDefinition{}, alice)
			if len(x.c.PlanItems) != len(before.PlanItems) {
				t.Fatalf("%d plan items after, %d before", len(x.c.PlanItems), len(before.PlanItems))
			}
			for i, p := range x.c.PlanItems {
				b := before.PlanItems[i]
				if p.ID != b.ID || p.DefinitionID != b.DefinitionID || p.Name != b.Name || p.StageID != b.StageID || p.State != b.State {
					t.Errorf("item %d: %+v, was %+v", i, p, b)
				}
			}
			for _, e := range events {
				switch e.Type {
				case "PlanItemCreated", "PlanItemTransitioned", "CaseFileItemDropped", "CaseRolesDropped":
					t.Errorf("unexpected %s %+v", e.Type, e.Payload)
				}
			}
		})
	}
}
