-- Ids of archived and deleted cases: the reference engine never lets a
-- new case reuse one. Restoring an archive frees its ids again.
CREATE TABLE retired_case_ids (
    id         TEXT PRIMARY KEY,
    tenant     TEXT NOT NULL,
    archived   BOOLEAN NOT NULL,
    retired_at TIMESTAMPTZ NOT NULL
);
