-- A tenant's inbox (its tasks in one state, newest first) is read in index
-- order and stops at the page's end, instead of sorting every task of the
-- tenant in that state: the planner picks it even before it has statistics.
-- It replaces (tenant, task_state), its prefix.
DROP INDEX tasks_tenant_state;
--bun:split
CREATE INDEX tasks_tenant_state_last_modified ON tasks (tenant, task_state, last_modified, id);
--bun:split
-- A list checks each row's case for a membership of the caller: with the
-- case id in the membership index, that check is one exact probe by
-- whichever of this index and the primary key the planner takes, never a
-- scan of all the caller's memberships per row. It replaces
-- (member_type, member_id), its prefix, which lookups from the caller to
-- their cases still use. A task or team write maintains no more indexes
-- than before.
DROP INDEX case_team_members_member;
--bun:split
CREATE INDEX case_team_members_member ON case_team_members (member_type, member_id, case_id);
