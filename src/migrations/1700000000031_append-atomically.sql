-- Up Migration

-- Appends to several streams that land together or not at all (the port's appendAtomically: a run's
-- start writes the column's claim, the credits' reservation and the run's start as one). Each part is
-- checked by append_events against its own expectation; one that does not hold raises, and the raise
-- undoes the statement's earlier parts. A part with no events is a condition only: its stream's row is
-- locked FOR SHARE (an append to it waits for this transaction, and this waits for one under way) and
-- its revision checked. The error's detail names the part and the revision found.
-- p_appends: a JSON array of { stream, expected, events } in append_events' own terms.
CREATE FUNCTION append_atomically(p_appends jsonb)
RETURNS TABLE (idx integer, revision bigint, last_tx xid8, last_position bigint)
LANGUAGE plpgsql AS $$
DECLARE
  a jsonb;
  i integer;
  r record;
  current_rev bigint;
  holds boolean;
BEGIN
  -- Before anything takes a transaction id (a row lock does): readers of $all must see this
  -- transaction as one that may append (events_read_horizon).
  PERFORM pg_advisory_xact_lock_shared(5461067, 1);
  -- Stream order, so two such appends over the same streams take their row locks in the same order.
  FOR a, i IN
    SELECT value, (ordinality - 1)::integer
    FROM jsonb_array_elements(p_appends) WITH ORDINALITY
    ORDER BY value->>'stream'
  LOOP
    IF jsonb_array_length(a->'events') = 0 THEN
      SELECT s.revision INTO current_rev FROM streams s WHERE s.stream_name = a->>'stream' FOR SHARE;
      current_rev := coalesce(current_rev, -1);
      holds := CASE a->>'expected'
        WHEN 'any' THEN true
        WHEN 'no_stream' THEN current_rev < 0
        WHEN 'exists' THEN current_rev >= 0
        ELSE current_rev >= 0 AND current_rev = (a->>'expected')::bigint
      END;
      IF NOT holds THEN
        RAISE EXCEPTION 'wrong expected revision' USING ERRCODE = 'ES409',
          DETAIL = json_build_object('idx', i, 'actual', current_rev)::text;
      END IF;
      RETURN QUERY SELECT i, current_rev, NULL::xid8, NULL::bigint;
    ELSE
      SELECT * INTO r FROM append_events(a->>'stream', a->>'expected', a->'events');
      IF NOT r.ok THEN
        RAISE EXCEPTION 'wrong expected revision' USING ERRCODE = 'ES409',
          DETAIL = json_build_object('idx', i, 'actual', r.revision)::text;
      END IF;
      RETURN QUERY SELECT i, r.revision, r.last_tx, r.last_position;
    END IF;
  END LOOP;
END;
$$;

-- Down Migration
DROP FUNCTION append_atomically;
