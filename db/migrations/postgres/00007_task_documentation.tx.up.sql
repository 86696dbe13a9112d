-- Task lists show the plan item's documentation text, as the reference
-- engine's task records do.
ALTER TABLE tasks ADD COLUMN documentation TEXT NOT NULL DEFAULT '';
