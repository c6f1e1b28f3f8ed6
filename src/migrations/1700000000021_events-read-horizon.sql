-- Up Migration

-- Readers of $all (the projections' live tail) read only below the oldest transaction still running:
-- a position is taken at insert but seen at commit. Until now that was every transaction with an id
-- (pg_snapshot_xmin), so any long write anywhere on the server held every reader back: a projection's
-- batch, a work-queue claim, a rebuild waiting for its swap, a transaction in another database. Every
-- command waiting on a read model (read-your-writes) waited on them too. Now it is only the
-- transactions that may append events: appends take a shared advisory lock before they write (so
-- before they have a transaction id), and a running transaction whose backend holds no such lock, seen
-- in one consistent read of pg_locks after the reader's snapshot, will never append and is passed.
-- Appends must go through append_events (as the adapter's do), each in a transaction of its own or
-- first in its transaction.
CREATE OR REPLACE FUNCTION append_events(
  p_stream text, p_expected text, p_events jsonb
) RETURNS TABLE (ok boolean, revision bigint, last_tx xid8, last_position bigint)
LANGUAGE plpgsql AS $$
DECLARE
  n bigint := jsonb_array_length(p_events);
  new_rev bigint;
  current_rev bigint;
BEGIN
  -- First, before this transaction writes anything (and so before it has a transaction id): readers of
  -- $all see who may still append from this lock (events_read_horizon). Shared: appends never wait on it.
  PERFORM pg_advisory_xact_lock_shared(5461067, 1);
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

-- The transaction id readers of $all stay below: the oldest transaction of the caller's snapshot that
-- may still append events, or the snapshot's xmax when none may. STABLE: it reads the caller's snapshot,
-- the one the events are read with. A transaction that ended between that snapshot and the read of
-- pg_locks is not seen there and counts as one that may append (a later read passes it).
CREATE FUNCTION events_read_horizon() RETURNS xid8
LANGUAGE sql STABLE AS $$
  WITH locks AS MATERIALIZED (
    SELECT locktype, database, classid, objid, objsubid, transactionid, pid, mode, granted FROM pg_locks
  ), appenders AS (
    SELECT pid FROM locks
    WHERE locktype = 'advisory' AND granted AND classid = 5461067 AND objid = 1 AND objsubid = 2
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
  ), bystanders AS (
    SELECT transactionid FROM locks
    WHERE locktype = 'transactionid' AND mode = 'ExclusiveLock' AND granted
      AND pid NOT IN (SELECT pid FROM appenders)
  )
  SELECT coalesce(min(x), pg_snapshot_xmax(pg_current_snapshot()))
  FROM pg_snapshot_xip(pg_current_snapshot()) AS x
  WHERE xid(x) NOT IN (SELECT transactionid FROM bystanders)
$$;

-- Down Migration
DROP FUNCTION events_read_horizon;
CREATE OR REPLACE FUNCTION append_events(
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
