-- A command on a case may read the case without locking it and send all
-- its writes as one multi-statement query, which PostgreSQL runs as one
-- transaction of its own. The case row's update checks the version the
-- command read (WHERE version = ...); when another command changed the
-- case in between it updates nothing, and the query's other writes must
-- not stay either. This function, given the rows the update wrote, raises
-- an error when that is not one: the error ends the query's transaction,
-- rolling all of its writes back, and its SQLSTATE (CG409) tells
-- CaseGraph to run the command again on the case as it is now.
CREATE OR REPLACE FUNCTION casegraph_case_written(written bigint, case_id text, read_version bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	IF written <> 1 THEN
		RAISE EXCEPTION 'case % changed after this command read its version %', case_id, read_version
			USING ERRCODE = 'CG409';
	END IF;
END
$$;
