-- Plan item and task ids are addressed without their case (GET
-- /cases/{any}/planitems/{id}, /tasks/{id}): they must be unique across
-- cases, or a caller-chosen id could shadow another case's item.
DROP INDEX plan_items_id;
--bun:split
CREATE UNIQUE INDEX plan_items_id ON plan_items (id);
--bun:split
DROP INDEX tasks_id;
--bun:split
CREATE UNIQUE INDEX tasks_id ON tasks (id);
