package engine

import (
	"github.com/casegraph/casegraph/engine/cmmn"
)

// Timers returns the timers the case waits on now: timer events that are
// Available with a due time, in creation order. Service stores them and
// sends FireTimer when one falls due; a suspended timer is not listed
// until it is resumed.
func (c *Case) Timers() []Timer {
	var out []Timer
	for _, p := range c.PlanItems {
		if p.Type == string(cmmn.TypeTimerEvent) && p.State == Available && p.TimerDue != nil {
			out = append(out, Timer{PlanItemID: p.ID, Due: *p.TimerDue})
		}
	}
	return out
}

// startTimer computes when a timer event occurs, from now: a literal
// ISO-8601 duration, or an expression giving a duration or an instant. A
// timer whose expression cannot be evaluated gets no due time and waits
// for an explicit occur, rather than failing the command that started it.
func (r *run) startTimer(p *PlanItem, t *cmmn.TimerEvent) {
	due, err := t.Due(r.exprEnv(p, nil), r.env.Now)
	if err != nil {
		return
	}
	due = due.UTC()
	p.TimerDue = &due
	r.emit(TimerSet{PlanItemID: p.ID, DueDate: due})
}
