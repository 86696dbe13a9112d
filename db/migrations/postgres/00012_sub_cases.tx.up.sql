-- A sub case takes the id of the case task that started it, and its case
-- plan item takes the case's id: the two plan items share an id, as in the
-- reference engine. Every other plan item id stays unique across cases
-- (00005); a case plan's id is its case's, unique in cases.
DROP INDEX plan_items_id;
--bun:split
CREATE UNIQUE INDEX plan_items_id ON plan_items (id) WHERE type <> 'CasePlan';
--bun:split
-- Lookups by id alone, case plans included.
CREATE INDEX plan_items_any_id ON plan_items (id);
--bun:split
-- Walking a tree down (storage, sub-case task lists) and finding its root.
CREATE INDEX cases_parent ON cases (parent_case_id);
--bun:split
CREATE INDEX cases_root ON cases (root_case_id);
