-- The rows of a case (its events, team, plan items, tasks, file,
-- identifiers, timers, outbox calls) are written only by db.SaveCase,
-- db.ImportCaseRows and deleteCaseRows, inside the transaction that holds
-- the case's lock, and deleteCaseRows removes them itself, children first,
-- without counting on a cascade. Their foreign keys checked again what that
-- code already guarantees, one trigger query per row written: about a
-- tenth of PostgreSQL's time per start case (11 checks), for no rule the
-- code does not keep: a command writes them holding the case's lock, and
-- RemoveCaseTree takes that lock before it deletes. The proof tests check
-- that no row outlives its case. The case row keeps its keys to its
-- tenant and its definition document: a tenant deleted while a case is
-- started in it is a race no lock of ours covers.
ALTER TABLE case_event_batches DROP CONSTRAINT IF EXISTS case_event_batches_case_id_fkey;
--bun:split
ALTER TABLE case_team_members DROP CONSTRAINT IF EXISTS case_team_members_case_id_fkey;
--bun:split
ALTER TABLE case_team_roles DROP CONSTRAINT IF EXISTS case_team_roles_case_id_member_type_member_id_fkey;
--bun:split
ALTER TABLE case_team_group_roles DROP CONSTRAINT IF EXISTS case_team_group_roles_case_id_fkey;
--bun:split
ALTER TABLE plan_items DROP CONSTRAINT IF EXISTS plan_items_case_id_fkey;
--bun:split
ALTER TABLE tasks DROP CONSTRAINT IF EXISTS tasks_case_id_fkey;
--bun:split
ALTER TABLE case_files DROP CONSTRAINT IF EXISTS case_files_case_id_fkey;
--bun:split
ALTER TABLE case_identifiers DROP CONSTRAINT IF EXISTS case_identifiers_case_id_fkey;
--bun:split
ALTER TABLE case_timers DROP CONSTRAINT IF EXISTS case_timers_case_id_fkey;
--bun:split
ALTER TABLE process_outbox DROP CONSTRAINT IF EXISTS process_outbox_case_id_fkey;
