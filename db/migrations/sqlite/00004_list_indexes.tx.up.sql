-- Lists sort by last modification, newest first, and page: these indexes let
-- a page be read in order and stop early instead of sorting every row.
CREATE INDEX tasks_state_last_modified ON tasks (task_state, last_modified, id);
--bun:split
CREATE INDEX tasks_last_modified ON tasks (last_modified, id);
--bun:split
CREATE INDEX cases_last_modified ON cases (last_modified, id);
--bun:split
-- Role memberships are matched by role name: the case team side of it.
CREATE INDEX case_team_roles_role ON case_team_roles (case_id, role);
