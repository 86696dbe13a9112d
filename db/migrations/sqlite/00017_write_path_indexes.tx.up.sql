-- PostgreSQL makes cases_parent and tasks_assignee partial here and drops
-- cases_root (see its migration 00017). SQLite keeps them: its planner
-- uses a partial index only when the query repeats the index's condition.
SELECT 1;
