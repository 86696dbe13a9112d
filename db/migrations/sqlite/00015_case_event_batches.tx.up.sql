-- A command's events of a case are one row: a start case wrote 23 rows of
-- case_events (its costliest statement, most of its write-ahead log), a
-- claim 3. events is a JSON array of {"type": …, "payload": …} with each
-- payload's bytes as they were stored; first_seq..last_seq are the
-- events' sequence numbers. Two commands from the same read version take
-- the same first_seq: the key refuses the second (a stale write).
CREATE TABLE case_event_batches (
    case_id        TEXT NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    first_seq      BIGINT NOT NULL,
    last_seq       BIGINT NOT NULL,
    user_id        TEXT NOT NULL,
    at             TIMESTAMP NOT NULL,
    correlation_id TEXT NOT NULL DEFAULT '',
    events         TEXT NOT NULL,
    PRIMARY KEY (case_id, first_seq)
);
--bun:split
-- The events written so far become batches: a run of consecutive sequence
-- numbers of one case with the same user, time and correlation id (what
-- one command wrote) is one batch. seq minus the event's rank within its
-- (case, user, time, correlation) is constant along such a run.
INSERT INTO case_event_batches (case_id, first_seq, last_seq, user_id, at, correlation_id, events)
SELECT case_id, MIN(seq), MAX(seq), user_id, at, correlation_id,
       '[' || group_concat('{"type":' || json_quote(type) || ',"payload":' || payload || '}', ',' ORDER BY seq) || ']'
FROM (SELECT e.*, e.seq - ROW_NUMBER() OVER (PARTITION BY e.case_id, e.user_id, e.at, e.correlation_id ORDER BY e.seq) AS run
      FROM case_events AS e) AS r
GROUP BY case_id, user_id, at, correlation_id, run;
--bun:split
DROP TABLE case_events;
