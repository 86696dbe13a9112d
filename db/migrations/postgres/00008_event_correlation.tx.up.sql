-- The reference engine's events carry the correlation id of the request
-- that caused them (its CorrelationId header, else the command's own id):
-- clients read it back from the debug events to find their request's work.
ALTER TABLE case_events ADD COLUMN correlation_id TEXT NOT NULL DEFAULT '';
