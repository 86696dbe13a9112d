-- Every start case wrote five entries into plan_items_any_id, one per plan
-- item, and every non-HOT update of a plan item another: it served the
-- lookups of a plan item by id alone, case plans included. A case plan's
-- id is its case's, so those lookups now read the other plan items by
-- plan_items_id and a case plan by the primary key (case_id, id), and the
-- index goes.
DROP INDEX IF EXISTS plan_items_any_id;
--bun:split
-- No query reads case_team_roles by (case_id, role): the one that reads
-- role rows (membershipHolds) names the whole primary key.
DROP INDEX IF EXISTS case_team_roles_role;
--bun:split
-- A claim, a save or a complete changes a plan item's state and times,
-- none of them indexed: with room left on its page the new row version
-- stays there and no index is written (a HOT update). Full pages (the
-- default fillfactor, 100) sent every such update to another page and
-- wrote all three index entries again. New pages keep a fifth free.
ALTER TABLE plan_items SET (fillfactor = 80);
--bun:split
-- The lookups above find a case plan by its case's id: so it must be.
-- The engine has always made it so; NOT VALID checks new rows only, with
-- no scan of the table under lock.
ALTER TABLE plan_items ADD CONSTRAINT plan_items_case_plan_id CHECK (type <> 'CasePlan' OR id = case_id) NOT VALID;
