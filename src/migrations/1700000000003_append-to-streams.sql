-- Up Migration

-- Several independent appends in one statement and one transaction (a sync storing a batch of
-- articles, each in its own stream). Each element is checked and appended by append_events on its own:
-- an expectation that does not hold fails that element only (ok=false, as append_events answers) and
-- the others still commit. One round trip and one commit for the batch instead of one per stream.
-- p_appends: a JSON array of { stream, expected, events } in append_events' own terms.
CREATE FUNCTION append_to_streams(p_appends jsonb)
RETURNS TABLE (idx integer, ok boolean, revision bigint, last_tx xid8, last_position bigint)
LANGUAGE plpgsql AS $$
DECLARE
  a jsonb;
  i integer := 0;
BEGIN
  FOR a IN SELECT value FROM jsonb_array_elements(p_appends) LOOP
    RETURN QUERY
      SELECT i, r.ok, r.revision, r.last_tx, r.last_position
      FROM append_events(a->>'stream', a->>'expected', a->'events') r;
    i := i + 1;
  END LOOP;
END;
$$;

-- Down Migration
DROP FUNCTION append_to_streams;
