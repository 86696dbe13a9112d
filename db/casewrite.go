package db

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/engine"
)

// readRows are the read-table rows of one case, built from its state.
type readRows struct {
	members []teamMemberRow
	roles   []teamRoleRow
	groups  []teamGroupRoleRow
	items   []planItemRow
	tasks   []taskRow
	files   []caseFileRow // one a case
	ids     []identifierRow
	timers  []timerRow
}

// readTable names a read table of a case, as a bit.
type readTable int

const (
	teamTables readTable = 1 << iota
	itemTable
	taskTable
	fileTable
	identifierTable
	timerTable
	allTables = teamTables | itemTable | taskTable | fileTable | identifierTable | timerTable
)

func buildReadRows(rec CaseRecord, st ReadState) (readRows, error) {
	c := st.State
	var r readRows
	for _, m := range c.Team.Members {
		if m.Type == engine.GroupMember {
			// A group's rights are per mapping: its member row carries
			// neither ownership nor roles, its mapping rows do.
			r.members = append(r.members, teamMemberRow{CaseID: rec.ID, MemberType: string(m.Type), MemberID: m.ID})
			r.groups = append(r.groups, groupRoleRows(rec.ID, m)...)
			continue
		}
		r.members = append(r.members, teamMemberRow{CaseID: rec.ID, MemberType: string(m.Type), MemberID: m.ID, IsOwner: m.IsOwner, Origin: m.Origin})
		for _, role := range m.CaseRoles {
			r.roles = append(r.roles, teamRoleRow{CaseID: rec.ID, MemberType: string(m.Type), MemberID: m.ID, Role: role})
		}
	}
	for i, p := range c.PlanItems {
		r.items = append(r.items, planItemRow{ID: p.ID, CaseID: rec.ID, Position: i, DefinitionID: p.DefinitionID, Name: p.Name, Type: p.Type,
			StageID: p.StageID, Index: p.Index, State: string(p.State), HistoryState: string(p.HistoryState), Transition: string(p.LastTransition),
			IsRequired: p.Required, IsRepeating: p.Repeating, CreatedOn: p.CreatedOn, LastModified: p.LastModified, ModifiedBy: p.ModifiedBy})
		t := p.Task
		if t == nil {
			continue
		}
		input, err := json.Marshal(nonNilMap(t.Input))
		if err != nil {
			return readRows{}, fmt.Errorf("db: encode task input: %w", err)
		}
		output, err := json.Marshal(nonNilMap(t.Output))
		if err != nil {
			return readRows{}, fmt.Errorf("db: encode task output: %w", err)
		}
		modified, modifiedBy := t.Modified(p)
		r.tasks = append(r.tasks, taskRow{ID: p.ID, CaseID: rec.ID, Tenant: rec.Tenant, CaseName: rec.Name, TaskName: p.Name,
			TaskState: string(t.State), Role: t.Role, Assignee: t.Assignee, Owner: t.Owner, DueDate: t.DueDate,
			CreatedOn: p.CreatedOn, CreatedBy: t.CreatedBy, ActivatedOn: t.ActivatedOn, LastModified: modified,
			ModifiedBy: modifiedBy, Input: string(input), Output: string(output), TaskModel: t.TaskModel,
			Documentation: t.Documentation})
	}
	file, err := json.Marshal(nonNilMap(c.File))
	if err != nil {
		return readRows{}, fmt.Errorf("db: encode case file: %w", err)
	}
	r.files = []caseFileRow{{CaseID: rec.ID, Data: string(file)}}
	seen := map[Identifier]bool{}
	for _, id := range st.Identifiers {
		if !seen[id] {
			seen[id] = true
			r.ids = append(r.ids, identifierRow{CaseID: rec.ID, Tenant: rec.Tenant, Name: id.Name, Value: id.Value})
		}
	}
	for _, t := range st.Timers {
		r.timers = append(r.timers, timerRow{CaseID: rec.ID, PlanItemID: t.PlanItemID, DueAt: t.Due})
	}
	return r, nil
}

// appendRows adds the rows of o to r: the read rows of several cases,
// written with one statement a table.
func (r *readRows) appendRows(o readRows) {
	r.members = append(r.members, o.members...)
	r.roles = append(r.roles, o.roles...)
	r.groups = append(r.groups, o.groups...)
	r.items = append(r.items, o.items...)
	r.tasks = append(r.tasks, o.tasks...)
	r.files = append(r.files, o.files...)
	r.ids = append(r.ids, o.ids...)
	r.timers = append(r.timers, o.timers...)
}

// groupRoleRows are the mapping rows of group member m: one per case role
// and one with case role "" per mapping. Two mappings of one group role
// merge, an owner one making the merged one an owner.
func groupRoleRows(caseID string, m engine.Member) []teamGroupRoleRow {
	var rows []teamGroupRoleRow
	at := map[[2]string]int{}
	add := func(groupRole, caseRole string, owner bool) {
		k := [2]string{groupRole, caseRole}
		if i, ok := at[k]; ok {
			rows[i].IsOwner = rows[i].IsOwner || owner
			return
		}
		at[k] = len(rows)
		rows = append(rows, teamGroupRoleRow{CaseID: caseID, GroupID: m.ID, GroupRole: groupRole, CaseRole: caseRole, IsOwner: owner})
	}
	for _, mp := range m.Mappings {
		add(mp.GroupRole, "", mp.IsOwner)
		for _, role := range mp.CaseRoles {
			add(mp.GroupRole, role, mp.IsOwner)
		}
	}
	// An owner mapping of a group role makes each of its rows an owner's.
	for i, row := range rows {
		rows[i].IsOwner = row.IsOwner || rows[at[[2]string{row.GroupRole, ""}]].IsOwner
	}
	return rows
}

// addReadRows adds the inserts of the rows of the given tables; timer and
// file rows, which a command on a case rewrites, as preparedWrites.
func addReadRows(b *stmtBatch, r readRows, tables readTable) {
	for _, rows := range []struct {
		table readTable
		n     int
		model any
	}{
		{teamTables, len(r.members), &r.members}, {teamTables, len(r.roles), &r.roles}, {teamTables, len(r.groups), &r.groups}, {itemTable, len(r.items), &r.items},
		{taskTable, len(r.tasks), &r.tasks}, {fileTable, len(r.files), &r.files}, {identifierTable, len(r.ids), &r.ids},
		{timerTable, len(r.timers), &r.timers},
	} {
		if rows.n == 0 || tables&rows.table == 0 {
			continue
		}
		// Returning nothing: bun would return defaulted columns (a task's
		// due date), and nothing reads them back.
		q := b.idb.NewInsert().Model(rows.model).Returning("NULL")
		switch rows.table {
		case timerTable:
			b.addPrepared("insert case timers", insertTimerWrite, rows.model, q)
		case fileTable:
			b.addPrepared("insert case file", insertFileWrite, rows.model, q)
		default:
			b.add("insert case read rows", q)
		}
	}
}

// addReadRowDeletes adds the clearing of the given read tables of a case.
func addReadRowDeletes(b *stmtBatch, caseID string, tables readTable) {
	for _, t := range []struct {
		table readTable
		model any
	}{
		{teamTables, (*teamRoleRow)(nil)}, {teamTables, (*teamGroupRoleRow)(nil)}, {teamTables, (*teamMemberRow)(nil)}, {itemTable, (*planItemRow)(nil)},
		{taskTable, (*taskRow)(nil)}, {fileTable, (*caseFileRow)(nil)}, {identifierTable, (*identifierRow)(nil)},
		{timerTable, (*timerRow)(nil)},
	} {
		if tables&t.table == 0 {
			continue
		}
		b.addPrepared("clear case read rows", clearByCaseWrites[reflect.TypeOf(t.model)], nil,
			b.idb.NewDelete().Model(t.model).Where("case_id = ?", caseID), caseID)
	}
}

// addReadRowChanges writes only what differs between the read rows of a
// case before and after a command: a claim rewrites one task row and one
// plan item row, not the whole case.
func addReadRowChanges(b *stmtBatch, caseID string, before, after readRows) {
	var rewrite readTable
	addTeamChanges(b, before, after)
	if !reflect.DeepEqual(before.ids, after.ids) {
		rewrite |= identifierTable
	}
	if !reflect.DeepEqual(before.timers, after.timers) {
		rewrite |= timerTable
	}
	if !slices.Equal(before.files, after.files) {
		rewrite |= fileTable
	}
	addReadRowDeletes(b, caseID, rewrite)
	addReadRows(b, after, rewrite)
	items, goneItems := changedRows(before.items, after.items, func(r planItemRow) string { return r.ID })
	addUpserts(b, caseID, &items, len(items), goneItems, (*planItemRow)(nil))
	tasks, goneTasks := changedRows(before.tasks, after.tasks, func(r taskRow) string { return r.ID })
	addUpserts(b, caseID, &tasks, len(tasks), goneTasks, (*taskRow)(nil))
}

// addTeamChanges writes only the team rows that differ: adding a member
// inserts its rows, not the whole team's again. A member row whose
// ownership or origin changed is updated in place, never deleted and
// inserted, for deleting it would cascade to its role rows.
func addTeamChanges(b *stmtBatch, before, after readRows) {
	memberKey := func(r teamMemberRow) string { return r.MemberType + "\x00" + r.MemberID }
	members, delMembers := diffRows(before.members, after.members, memberKey)
	roles, delRoles := diffRows(before.roles, after.roles, func(r teamRoleRow) string {
		return memberKey(teamMemberRow{MemberType: r.MemberType, MemberID: r.MemberID}) + "\x00" + r.Role
	})
	groups, delGroups := diffRows(before.groups, after.groups, func(r teamGroupRoleRow) string {
		return r.GroupID + "\x00" + r.GroupRole + "\x00" + r.CaseRole
	})
	for _, d := range []struct {
		n     int
		model any
	}{{len(delRoles), &delRoles}, {len(delGroups), &delGroups}, {len(delMembers), &delMembers}} {
		if d.n == 0 {
			continue
		}
		b.add("delete team rows", b.idb.NewDelete().Model(d.model).WherePK())
	}
	if len(members) > 0 {
		b.add("upsert team members", b.idb.NewInsert().Model(&members).On("CONFLICT (case_id, member_type, member_id) DO UPDATE").
			Set("is_owner = EXCLUDED.is_owner").Set("origin = EXCLUDED.origin"))
	}
	if len(roles) > 0 {
		// Role rows are all key: a changed one is a new one.
		b.add("insert team roles", b.idb.NewInsert().Model(&roles))
	}
	if len(groups) > 0 {
		b.add("upsert team group roles", b.idb.NewInsert().Model(&groups).On("CONFLICT (case_id, group_id, group_role, case_role) DO UPDATE").
			Set("is_owner = EXCLUDED.is_owner"))
	}
}

// changedRows returns the rows of after that are new or differ from
// before, and the keys of before's rows that are gone.
func changedRows[R any](before, after []R, key func(R) string) (changed []R, gone []string) {
	changed, goneRows := diffRows(before, after, key)
	for _, r := range goneRows {
		gone = append(gone, key(r))
	}
	return changed, gone
}

// diffRows returns the rows of after that are new or differ from before,
// and before's rows whose key is gone from after.
func diffRows[R any](before, after []R, key func(R) string) (changed, gone []R) {
	old := make(map[string]R, len(before))
	for _, r := range before {
		old[key(r)] = r
	}
	for _, r := range after {
		k := key(r)
		// DeepEqual: task rows hold a due date by pointer.
		if o, ok := old[k]; !ok || !reflect.DeepEqual(o, r) {
			changed = append(changed, r)
		}
		delete(old, k)
	}
	for _, r := range before {
		if _, ok := old[key(r)]; ok {
			gone = append(gone, r)
		}
	}
	return changed, gone
}

// addUpserts writes changed rows (keyed by case_id and id) and deletes
// the ids that are gone.
func addUpserts(b *stmtBatch, caseID string, rows any, n int, gone []string, model any) {
	if len(gone) > 0 {
		b.add("delete read rows", b.idb.NewDelete().Model(model).Where("case_id = ? AND id IN (?)", caseID, bun.List(gone)))
	}
	if n == 0 {
		return
	}
	// bun sets every column but the key from EXCLUDED, as upsertByKey.
	q := b.idb.NewInsert().Model(rows).On("CONFLICT (case_id, id) DO UPDATE").Returning("NULL")
	w := upsertItemWrite
	if _, ok := model.(*taskRow); ok {
		w = upsertTaskWrite
	}
	b.addPrepared("upsert read rows", w, rows, q)
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// RebuildCaseReadRows writes every read-table row of a case afresh from its
// state, dropping whatever rows it had: the repair for read rows that went
// astray. The case row, its snapshot and its events are left alone.
func RebuildCaseReadRows(ctx context.Context, idb bun.IDB, rec CaseRecord, st ReadState) error {
	rows, err := buildReadRows(rec, st)
	if err != nil {
		return err
	}
	b := newStmtBatch(idb)
	addReadRowDeletes(b, rec.ID, allTables)
	addReadRows(b, rows, allTables)
	_, err = b.exec(ctx)
	return err
}
