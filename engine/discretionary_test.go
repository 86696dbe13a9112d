package engine

import (
	"slices"
	"testing"
)

// The members of the planning tests' team: alice owns the case, bob is an
// Employee, mia a Manager, carol has no role.
var (
	pBob = Actor{UserID: "bob", Roles: []string{"Employee"}}
	pMia = Actor{UserID: "mia", Roles: []string{"Manager"}}
)

func planningTeam() Team {
	return Team{Members: []Member{
		{ID: "alice", Type: UserMember, IsOwner: true, CaseRoles: []string{}},
		{ID: "bob", Type: UserMember, CaseRoles: []string{"Employee"}},
		{ID: "carol", Type: UserMember, CaseRoles: []string{}},
		{ID: "mia", Type: UserMember, CaseRoles: []string{"Manager"}},
	}}
}

// offered returns "Name@Parent" for what actor may plan now.
func (x *tc) offered(as Actor) []string {
	var out []string
	for _, it := range DiscretionaryItems(x.def, x.c, as) {
		out = append(out, it.Name+"@"+it.ParentName)
	}
	return out
}

// TestDiscretionaryItems lists what each member may plan: tables on the
// case plan, a stage (with a nested table) and a human task, filtered by
// authorized roles and applicability rules.
func TestDiscretionaryItems(t *testing.T) {
	open := []string{"Extra@Discretionary", "Review@Discretionary", "Gated@Discretionary", "After main@Discretionary",
		"Again@Discretionary", "Manual@Discretionary", "Extra step@Phase", "Quick extra@Quick"}
	with := func(add ...string) []string {
		out := slices.Clone(open)
		for _, a := range add {
			switch a {
			case "Approval@Discretionary":
				out = slices.Insert(out, 1, a)
			case "Follow-up@Main":
				out = slices.Insert(out, slices.Index(out, "Extra step@Phase"), a)
			case "Escalate@Phase":
				out = slices.Insert(out, slices.Index(out, "Quick extra@Quick"), a)
			}
		}
		return out
	}
	tests := []struct {
		name string
		prep []Command
		as   Actor
		want []string
	}{
		{"a member without roles", nil, carol, open},
		{"an employee", nil, pBob, with("Follow-up@Main")},
		{"a manager, also in the nested table", nil, pMia, with("Approval@Discretionary", "Escalate@Phase")},
		{"an owner manages every role", nil, alice, with("Approval@Discretionary", "Follow-up@Main", "Escalate@Phase")},
		{"an applicability rule that fails", []Command{ChangeCaseFile{Op: FileCreate, Path: "Settings", Value: map[string]any{"open": false}}},
			alice, slices.DeleteFunc(with("Approval@Discretionary", "Follow-up@Main"), func(s string) bool { return s == "Extra step@Phase" })},
		{"an applicability rule that holds", []Command{ChangeCaseFile{Op: FileCreate, Path: "Settings", Value: map[string]any{"open": true}}},
			pMia, with("Approval@Discretionary", "Escalate@Phase")},
		{"a human task's table closes when it ends, and a rule on it fails", []Command{MakeTransition{PlanItem: "Main", Transition: Complete}},
			pBob, slices.DeleteFunc(slices.Clone(open), func(s string) bool { return s == "Gated@Discretionary" })},
		{"a stage's table closes when it ends", []Command{MakeTransition{PlanItem: "Step", Transition: Complete},
			MakeTransition{PlanItem: "Phase", Transition: Complete}}, carol,
			slices.DeleteFunc(slices.Clone(open), func(s string) bool { return s == "Extra step@Phase" })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := startTeam(t, "discretionary", planningTeam())
			for _, cmd := range tt.prep {
				x.do(cmd, alice)
			}
			if got := x.offered(tt.as); !slices.Equal(got, tt.want) {
				t.Errorf("offered\n got %v\nwant %v", got, tt.want)
			}
		})
	}

	x := startTeam(t, "discretionary", planningTeam())
	items := DiscretionaryItems(x.def, x.c, alice)
	find := func(name string) DiscretionaryItem {
		i := slices.IndexFunc(items, func(it DiscretionaryItem) bool { return it.Name == name })
		if i < 0 {
			t.Fatalf("%s is not offered", name)
		}
		return items[i]
	}
	for _, want := range []DiscretionaryItem{
		{Name: "Review", DefinitionID: "di_review", Type: "Stage", ParentName: "Discretionary", ParentType: "CasePlan", ParentID: "case-1"},
		{Name: "Follow-up", DefinitionID: "di_follow", Type: "HumanTask", ParentName: "Main", ParentType: "HumanTask", ParentID: x.item("Main").ID},
		{Name: "Escalate", DefinitionID: "di_escalate", Type: "HumanTask", ParentName: "Phase", ParentType: "Stage", ParentID: x.item("Phase").ID},
	} {
		if got := find(want.Name); got != want {
			t.Errorf("offered %+v, want %+v", got, want)
		}
	}
	if DiscretionaryItems(nil, x.c, alice) != nil || DiscretionaryItems(x.def, nil, alice) != nil {
		t.Error("no definition or no case offers something")
	}
}

// TestPlanDiscretionaryItem plans items, and checks the errors of §1.9.
func TestPlanDiscretionaryItem(t *testing.T) {
	notApplicable := func(name string) string {
		return "Cannot plan a discretionary item named '" + name + "'. It may not be applicable at this moment"
	}
	noAuth := func(name string) string {
		return "No authorization available to plan a discretionary item named '" + name + "'"
	}
	closeMain := []Command{MakeTransition{PlanItem: "Main", Transition: Complete}}
	tests := []struct {
		name   string
		prep   []Command
		as     Actor
		parent string // name of the parent plan item, or an id
		def    string
		id     string
		msg    string // the ErrInvalid message, "" when planning succeeds
		state  State  // of the planned item
	}{
		{"on the case plan, with an id", nil, carol, "Discretionary", "di_extra", "planned-1", "", Active},
		{"on the case plan, without an id", nil, carol, "Discretionary", "di_extra", "", "", Active},
		{"a stage", nil, carol, "Discretionary", "di_review", "", "", Active},
		{"from a human task's table, into its stage", nil, pBob, "Main", "di_follow", "", "", Active},
		{"from a nested table", nil, pMia, "Phase", "di_escalate", "", "", Active},
		{"by an owner", nil, alice, "Main", "di_follow", "", "", Active},
		{"with an entry criterion", nil, carol, "Discretionary", "di_after", "", "", Available},
		{"with an entry criterion satisfied already", closeMain, carol, "Discretionary", "di_after", "", "", Active},
		{"with manual activation", nil, carol, "Discretionary", "di_manual", "", "", Enabled},
		{"without the item's role", nil, carol, "Discretionary", "di_approval", "", noAuth("Approval"), ""},
		{"without the human task table's role", nil, pMia, "Main", "di_follow", "", noAuth("Follow-up"), ""},
		{"without the nested table's role", nil, pBob, "Phase", "di_escalate", "", noAuth("Escalate"), ""},
		{"an applicability rule fails", []Command{ChangeCaseFile{Op: FileCreate, Path: "Settings", Value: map[string]any{"open": false}}},
			alice, "Phase", "di_escalate", "", notApplicable("Escalate"), ""},
		{"a rule on another item fails", closeMain, alice, "Discretionary", "di_gated", "", notApplicable("Gated"), ""},
		{"the human task ended", closeMain, alice, "Main", "di_follow", "", notApplicable("Follow-up"), ""},
		{"from another table", nil, alice, "Phase", "di_extra", "", notApplicable("Extra"), ""},
		{"an unknown item", nil, alice, "Discretionary", "di_nope", "", notApplicable("di_nope"), ""},
		{"a plan item that is not discretionary", nil, alice, "Discretionary", "pi_main", "", notApplicable("Main"), ""},
		{"an unknown parent", nil, alice, "nope", "di_extra", "",
			"Cannot plan a discretionary item named 'Extra', because the case has no stage or task with id 'nope' to plan it in", ""},
		{"a parent without a table", nil, alice, "Step", "di_extra", "", notApplicable("Extra"), ""},
		{"an id in use", nil, alice, "Discretionary", "di_extra", "case-1",
			"Cannot plan a discretionary item named 'Extra' with the specified id case-1, because the case already has a plan item with that id", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := startTeam(t, "discretionary", planningTeam())
			for _, cmd := range tt.prep {
				x.do(cmd, alice)
			}
			parent := tt.parent
			if ps := x.items(parent); len(ps) > 0 {
				parent = ps[0].ID
			}
			name := ""
			if it := x.def.PlanItem(tt.def); it != nil {
				name = it.Name()
			}
			cmd := PlanDiscretionaryItem{ParentID: parent, DefinitionID: tt.def, PlanItemID: tt.id}
			if tt.msg != "" {
				if name == "" {
					cmd.Name = tt.def // the name is informational; the reference engine echoes it
				}
				if err := x.fail(cmd, tt.as); err.Kind != ErrInvalid || err.Msg != tt.msg {
					t.Errorf("error %d %q, want %q", err.Kind, err.Msg, tt.msg)
				}
				return
			}
			events := x.do(cmd, tt.as)
			id := PlannedItemID(events)
			if tt.id != "" && id != tt.id {
				t.Errorf("planned item id %q, want %q", id, tt.id)
			}
			p := x.c.PlanItem(id)
			if p == nil {
				t.Fatalf("no plan item %q:%s", id, x.summary())
			}
			stage := x.c.PlanItem(parent)
			if stage.Type == "HumanTask" {
				stage = x.c.PlanItem(stage.StageID)
			}
			if p.Name != name || p.DefinitionID != tt.def || p.StageID != stage.ID || p.Index != 0 || !p.Discretionary || p.State != tt.state {
				t.Errorf("planned %+v", *p)
			}
		})
	}
}

// TestPlanTwice checks that planning an item again adds an instance with
// the next index, and that a planned item repeats and completes as any.
func TestPlanTwice(t *testing.T) {
	x := startTeam(t, "discretionary", planningTeam())
	plan := PlanDiscretionaryItem{ParentID: "case-1", DefinitionID: "di_extra", Name: "Extra"}
	first := PlannedItemID(x.do(plan, carol))
	if created, ok := x.events[0].Payload.(PlanItemCreated); !ok || created.PlanItemID != first || !created.Discretionary {
		t.Errorf("planning starts with %+v", x.events[0].Payload)
	}
	second := PlannedItemID(x.do(plan, carol))
	extras := x.items("Extra")
	if len(extras) != 2 || extras[0].ID != first || extras[1].ID != second || extras[0].Index != 0 || extras[1].Index != 1 {
		t.Fatalf("planned twice:%s", x.summary())
	}

	again := PlanDiscretionaryItem{ParentID: "case-1", DefinitionID: "di_again", Name: "Again"}
	x.do(again, carol)
	x.do(CompleteHumanTask{PlanItemID: x.item("Again").ID}, carol)
	reps := x.items("Again")
	if len(reps) != 2 || reps[0].State != Completed || reps[1].State != Active || reps[1].Index != 1 || !reps[1].Discretionary {
		t.Errorf("a planned repeating item:%s", x.summary())
	}

	x.do(PlanDiscretionaryItem{ParentID: "case-1", DefinitionID: "di_review", PlanItemID: "review-1"}, carol)
	check := x.item("Check")
	if check.StageID != "review-1" || check.State != Active || check.Discretionary {
		t.Errorf("the item of a planned stage: %+v", *check)
	}
	x.do(CompleteHumanTask{PlanItemID: check.ID}, carol)
	if got := x.c.PlanItem("review-1").State; got != Completed {
		t.Errorf("planned stage is %s after its work is done", got)
	}
	if PlannedItemID(nil) != "" {
		t.Error("no events plan an item")
	}
}

// TestStageWaitsForDiscretionaryItems checks that a stage without
// autoComplete stays open while its table offers an applicable item,
// planned or not, and that one with autoComplete does not wait.
func TestStageWaitsForDiscretionaryItems(t *testing.T) {
	tests := []struct {
		name  string
		open  any // Settings.open; nil leaves Settings empty
		plan  bool
		phase State
	}{
		{"an applicable item keeps the stage open", nil, false, Active},
		{"a planned item done keeps it open: it may be planned again", true, true, Active},
		{"an inapplicable item does not", false, false, Completed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := startTeam(t, "discretionary", planningTeam())
			if tt.open != nil {
				x.do(ChangeCaseFile{Op: FileCreate, Path: "Settings", Value: map[string]any{"open": tt.open}}, alice)
			}
			phase := x.item("Phase")
			if tt.plan {
				id := PlannedItemID(x.do(PlanDiscretionaryItem{ParentID: phase.ID, DefinitionID: "di_extra_step"}, carol))
				x.do(CompleteHumanTask{PlanItemID: id}, carol)
			}
			x.do(CompleteHumanTask{PlanItemID: x.item("Step").ID}, carol)
			if phase.State != tt.phase {
				t.Fatalf("Phase is %s, want %s:%s", phase.State, tt.phase, x.summary())
			}
			if phase.State == Active {
				x.do(MakeTransition{PlanItem: phase.ID, Transition: Complete}, carol)
				if phase.State != Completed {
					t.Errorf("Phase is %s after completing it by hand", phase.State)
				}
			}
		})
	}

	x := startTeam(t, "discretionary", planningTeam())
	quick := x.item("Quick")
	id := PlannedItemID(x.do(PlanDiscretionaryItem{ParentID: quick.ID, DefinitionID: "di_quick_extra"}, carol))
	x.do(CompleteHumanTask{PlanItemID: x.item("Quick step").ID}, carol)
	if quick.State != Active {
		t.Fatalf("Quick is %s while a planned item is active", quick.State)
	}
	x.do(CompleteHumanTask{PlanItemID: id}, carol)
	if quick.State != Completed {
		t.Errorf("Quick (autoComplete) is %s: it waits for an item it may still offer", quick.State)
	}
}
