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
  i integer;
BEGIN
  -- Stream order, not payload order: two batches naming the same streams take their row locks in the
  -- same order and cannot deadlock. Parts of one stream keep their order; idx is the part's place in
  -- the payload (from 0).
  FOR a, i IN
    SELECT value, (ordinality - 1)::integer
    FROM jsonb_array_elements(p_appends) WITH ORDINALITY
    ORDER BY value->>'stream', ordinality
  LOOP
    RETURN QUERY
      SELECT i, r.ok, r.revision, r.last_tx, r.last_position
      FROM append_events(a->>'stream', a->>'expected', a->'events') r;
  END LOOP;
END;
$$;

-- Down Migration
DROP FUNCTION append_to_streams;
