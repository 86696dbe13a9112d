-- Calls of process tasks (HTTP, mail) waiting to be made. A command that
-- starts a process task writes its row in its own transaction; a worker
-- claims it after the commit for a lease (claimed_until), makes the call
-- outside any transaction and deletes the row in the transaction that
-- reports the outcome to the case. A row whose lease ran out (its worker
-- died) is claimed again: calls are made at least once.
CREATE TABLE process_outbox (
    call_id       TEXT PRIMARY KEY,
    case_id       TEXT NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    task_id       TEXT NOT NULL,
    payload       TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    claimed_until TIMESTAMPTZ,
    attempts      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT NOT NULL DEFAULT ''
);
--bun:split
CREATE INDEX process_outbox_claimable ON process_outbox (claimed_until, created_at);
--bun:split
CREATE INDEX process_outbox_case ON process_outbox (case_id);
