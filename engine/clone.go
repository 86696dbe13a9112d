package engine

import (
	"maps"
	"slices"
)

// Clone returns a deep copy of c: changing one never changes the other.
// A command keeps the case as it found it this way, to write only the rows
// the command changed; a JSON round trip did the same at about ten times
// the cost (TestCloneIsDeep keeps the two equal field by field).
func (c *Case) Clone() *Case {
	out := *c
	out.PlanItems = make([]*PlanItem, len(c.PlanItems))
	for i, p := range c.PlanItems {
		out.PlanItems[i] = p.clone()
	}
	if c.PlanItems == nil {
		out.PlanItems = nil
	}
	out.File = cloneValues(c.File)
	out.FileStates = maps.Clone(c.FileStates)
	out.FileTransitions = maps.Clone(c.FileTransitions)
	out.FileCurrent = maps.Clone(c.FileCurrent)
	out.Team = c.Team.clone()
	return &out
}

func (p *PlanItem) clone() *PlanItem {
	if p == nil {
		return nil
	}
	out := *p
	out.TimerDue = clonePtr(p.TimerDue)
	if p.Task != nil {
		t := *p.Task
		t.DueDate = clonePtr(t.DueDate)
		t.Input = cloneValues(t.Input)
		t.Output = cloneValues(t.Output)
		out.Task = &t
	}
	if p.Process != nil {
		r := *p.Process
		if r.Pending != nil {
			pending := *r.Pending
			pending.Output = cloneValues(pending.Output)
			r.Pending = &pending
		}
		out.Process = &r
	}
	return &out
}

func (t Team) clone() Team {
	if t.Members == nil {
		return t
	}
	members := make([]Member, len(t.Members))
	for i, m := range t.Members {
		m.CaseRoles = slices.Clone(m.CaseRoles)
		if m.Mappings != nil {
			mappings := make([]GroupMapping, len(m.Mappings))
			for j, mp := range m.Mappings {
				mp.CaseRoles = slices.Clone(mp.CaseRoles)
				mappings[j] = mp
			}
			m.Mappings = mappings
		}
		members[i] = m
	}
	t.Members = members
	return t
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// cloneValues copies a map of JSON values: maps and lists are copied,
// the rest (nil, bool, numbers, strings) cannot change.
func cloneValues(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return cloneValues(x)
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}

// CloneStored is Clone in the form the clone's JSON decodes to: the
// collections its JSON leaves out when empty are nil, as decoding leaves
// them. A state kept in place of its snapshot (db's snapshot cache) must
// be the one a read would decode, to the last empty map.
func (c *Case) CloneStored() *Case {
	out := c.Clone()
	if len(out.FileStates) == 0 {
		out.FileStates = nil
	}
	if len(out.FileTransitions) == 0 {
		out.FileTransitions = nil
	}
	if len(out.FileCurrent) == 0 {
		out.FileCurrent = nil
	}
	for _, p := range out.PlanItems {
		if p != nil && p.Process != nil && p.Process.Pending != nil && len(p.Process.Pending.Output) == 0 {
			p.Process.Pending.Output = nil
		}
	}
	for i := range out.Team.Members {
		if len(out.Team.Members[i].Mappings) == 0 {
			out.Team.Members[i].Mappings = nil
		}
	}
	return out
}
