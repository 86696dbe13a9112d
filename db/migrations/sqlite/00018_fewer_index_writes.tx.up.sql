-- See PostgreSQL's 00018: lookups of a plan item by id alone read the
-- other plan items by plan_items_id and a case plan by the primary key,
-- and no query reads case_team_roles by (case_id, role). SQLite has no
-- fillfactor.
DROP INDEX IF EXISTS plan_items_any_id;
--bun:split
DROP INDEX IF EXISTS case_team_roles_role;
