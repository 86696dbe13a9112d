-- Every start case wrote two index entries no query needs, both on a hot
-- spot: a root case has parent '' and every one of them went to the same
-- leaf of cases_parent, and cases_root served no query at all (a tree is
-- found from its root by parent, db.caseTreeIDs). Likewise every
-- unassigned task went to the '' leaf of tasks_assignee, which only the
-- lists of a given assignee read. Partial indexes keep what those queries
-- read (the planner proves parent_case_id IN ('a', ...) and assignee = 'a'
-- imply <> '') and leave out what they never ask for.
DROP INDEX IF EXISTS cases_root;
--bun:split
DROP INDEX IF EXISTS cases_parent;
--bun:split
CREATE INDEX cases_parent ON cases (parent_case_id) WHERE parent_case_id <> '';
--bun:split
DROP INDEX IF EXISTS tasks_assignee;
--bun:split
CREATE INDEX tasks_assignee ON tasks (assignee) WHERE assignee <> '';
--bun:split
-- The case's snapshot (2.6 KB for the load's model) and a start case's
-- events (7 KB) are compressed when a row passes 2 KB: lz4 does it several
-- times faster than pglz, PostgreSQL's default (pglz was about 2 % of a
-- start case's CPU). PostgreSQL 14 and later built with lz4 have it; any
-- other keeps pglz.
DO $$
BEGIN
    EXECUTE 'ALTER TABLE cases ALTER COLUMN snapshot SET COMPRESSION lz4';
    EXECUTE 'ALTER TABLE case_event_batches ALTER COLUMN events SET COMPRESSION lz4';
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'lz4 compression not available: %', SQLERRM;
END
$$;
