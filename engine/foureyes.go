package engine

import (
	"slices"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// Four-eyes and rendez-vous pair human tasks by who works on them
// (reference §5). A task whose definition names another as four-eyes
// may not be worked on by whoever holds an instance of the other; one that
// names another as rendez-vous must be worked on by whoever holds one, once
// someone does. Both relations go both ways, rendez-vous is transitive,
// and four-eyes carries over to rendez-vous partners. Every workflow
// command that works on a task (claim, assign, delegate, complete, save,
// validate) and MayPerform ask pairing, so the mayPerform fields tell what
// a command would answer.

// pairing checks the four-eyes and rendez-vous rules of task p for user
// (reference §5): no instance of a four-eyes partner may be held by user,
// and when an instance of a rendez-vous partner is held by someone, user
// must hold one. "Held" is about now (see holder): a revoke releases a task.
func (r *run) pairing(cmd string, p *PlanItem, user string) error {
	def := r.definition(p)
	if def == nil {
		return nil
	}
	fourEyes, rendezVous := r.partners(def)
	for _, o := range fourEyes {
		for _, q := range r.byDef[o.ID()] {
			if q != p && user != "" && holder(q) == user {
				return errorf(ErrNotAllowed, "%s[%s]: Since you have worked on %s you cannot also work on %s", cmd, p.ID, q.Name, p.Name)
			}
		}
	}
	for _, o := range rendezVous {
		held, byUser := false, false
		for _, q := range r.byDef[o.ID()] {
			if h := holder(q); q != p && h != "" {
				held = true
				byUser = byUser || h == user
			}
		}
		if held && !byUser {
			return errorf(ErrNotAllowed, "%s[%s]: Since you have not worked on %s you cannot work on %s", cmd, p.ID, o.Name(), p.Name)
		}
	}
	return nil
}

// holder returns who has worked on task q as far as four-eyes and
// rendez-vous are concerned: its current assignee (who claimed it, was
// assigned or delegated it, or completed it), in the states the reference
// engine counts; "" when nobody holds it, as after a revoke.
func holder(q *PlanItem) string {
	if q.Task == nil {
		return ""
	}
	switch q.Task.State {
	case Assigned, Delegated, TaskCompleted, TaskTerminated, TaskSuspended:
		return q.Task.Assignee
	}
	return ""
}

// partners returns the tasks that must not (four-eyes) and must
// (rendez-vous) be worked on by the same user as def. Both relations go
// both ways, whichever task declares them. Rendez-vous is transitive, and
// four-eyes carries over to rendez-vous partners: when Task1 and Task2
// meet and Task1 and Task3 need four eyes, so do Task2 and Task3.
func (r *run) partners(def *cmmn.PlanItem) (fourEyes, rendezVous []*cmmn.PlanItem) {
	group := r.rendezVousGroup(def)
	for _, x := range group {
		if x != def {
			rendezVous = append(rendezVous, x)
		}
	}
	for _, x := range group {
		for _, y := range r.linked(x, (*cmmn.PlanItem).FourEyes) {
			for _, z := range r.rendezVousGroup(y) {
				if z != def && !slices.Contains(fourEyes, z) {
					fourEyes = append(fourEyes, z)
				}
			}
		}
	}
	return fourEyes, rendezVous
}

// rendezVousGroup returns def and every task joined to it by rendez-vous,
// directly or through others.
func (r *run) rendezVousGroup(def *cmmn.PlanItem) []*cmmn.PlanItem {
	group := []*cmmn.PlanItem{def}
	for i := 0; i < len(group); i++ {
		for _, y := range r.linked(group[i], (*cmmn.PlanItem).RendezVous) {
			if !slices.Contains(group, y) {
				group = append(group, y)
			}
		}
	}
	return group
}

// linked returns the items x refers to by rel, and those referring to x.
func (r *run) linked(x *cmmn.PlanItem, rel func(*cmmn.PlanItem) []*cmmn.PlanItem) []*cmmn.PlanItem {
	out := rel(x)
	for _, y := range r.def.PlanItems() {
		if y != x && slices.Contains(rel(y), x) && !slices.Contains(out, y) {
			out = append(out, y)
		}
	}
	return out
}
