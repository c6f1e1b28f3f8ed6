-- Up Migration

-- The PostgreSQL event store. One row per event; `tx_id` is the writing transaction, so readers can
-- stay below the oldest transaction still running and never skip an event that commits late.
CREATE TABLE events (
  position        bigint GENERATED ALWAYS AS IDENTITY,
  tx_id           xid8 NOT NULL DEFAULT pg_current_xact_id(),
  stream_name     text NOT NULL,
  stream_revision bigint NOT NULL,
  event_id        uuid NOT NULL UNIQUE,
  type            text NOT NULL,
  data            jsonb NOT NULL,
  metadata        jsonb NOT NULL DEFAULT '{}',
  recorded_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- Global reads go by (tx_id, position); nothing reads by position alone, so this one index serves.
  PRIMARY KEY (tx_id, position),
  UNIQUE (stream_name, stream_revision)
);

-- The current revision of every stream; its row lock serialises writers of one stream only.
CREATE TABLE streams (
  stream_name text PRIMARY KEY,
  revision    bigint NOT NULL
);

-- One round trip per append: the expected-revision check, the revision bump and the insert happen in the
-- caller's single statement (and so in one short transaction). No NOTIFY here: a notifying transaction
-- holds a server-wide lock through its commit, which serialises every append and defeats group commit;
-- the adapter wakes followers after the commit instead.
-- expected: 'any' | 'no_stream' | 'exists' | a revision as text. p_events: a JSON array of
-- { id, type, data, metadata } (one parameter: no per-element array-literal escaping of large payloads).
-- Returns ok=false with the actual revision (-1 = no stream) when the expectation does not hold.
CREATE FUNCTION append_events(
  p_stream text, p_expected text, p_events jsonb
) RETURNS TABLE (ok boolean, revision bigint, last_tx xid8, last_position bigint)
LANGUAGE plpgsql AS $$
DECLARE
  n bigint := jsonb_array_length(p_events);
  new_rev bigint;
  current_rev bigint;
BEGIN
  IF p_expected = 'no_stream' THEN
    INSERT INTO streams (stream_name, revision) VALUES (p_stream, n - 1)
      ON CONFLICT (stream_name) DO NOTHING
      RETURNING streams.revision INTO new_rev;
  ELSIF p_expected = 'any' THEN
    INSERT INTO streams (stream_name, revision) VALUES (p_stream, n - 1)
      ON CONFLICT (stream_name) DO UPDATE SET revision = streams.revision + n
      RETURNING streams.revision INTO new_rev;
  ELSIF p_expected = 'exists' THEN
    UPDATE streams SET revision = streams.revision + n WHERE stream_name = p_stream
      RETURNING streams.revision INTO new_rev;
  ELSE
    UPDATE streams SET revision = streams.revision + n
      WHERE stream_name = p_stream AND streams.revision = p_expected::bigint
      RETURNING streams.revision INTO new_rev;
  END IF;

  IF new_rev IS NULL THEN
    SELECT s.revision INTO current_rev FROM streams s WHERE s.stream_name = p_stream;
    RETURN QUERY SELECT false, coalesce(current_rev, -1), NULL::xid8, NULL::bigint;
    RETURN;
  END IF;

  RETURN QUERY
  WITH inserted AS (
    INSERT INTO events (stream_name, stream_revision, event_id, type, data, metadata)
      SELECT p_stream, new_rev - n + e.ord, (e.ev->>'id')::uuid, e.ev->>'type', e.ev->'data', e.ev->'metadata'
      FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(ev, ord)
      ORDER BY e.ord
    RETURNING events.tx_id, events.position
  )
  SELECT true, new_rev, max(i.tx_id), max(i.position) FROM inserted i;
END;
$$;

-- Down Migration
DROP FUNCTION append_events;
DROP TABLE streams;
DROP TABLE events;
