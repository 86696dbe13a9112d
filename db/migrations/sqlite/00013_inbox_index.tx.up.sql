-- A tenant's inbox (its tasks in one state, newest first) is read in index
-- order and stops at the page's end, instead of sorting every task of the
-- tenant in that state: the planner picks it even before it has statistics.
-- It replaces (tenant, task_state), its prefix, so a task write maintains
-- no more indexes than before.
DROP INDEX tasks_tenant_state;
--bun:split
CREATE INDEX tasks_tenant_state_last_modified ON tasks (tenant, task_state, last_modified, id);
