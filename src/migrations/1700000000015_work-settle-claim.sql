-- Up Migration

-- Settling what a worker finished and claiming what is due next, in one round trip and one transaction
-- (src/work/queue.ts `settleAndClaim`). A worker settled each item on its own and claimed again for each
-- slot that freed: two round trips per item, which for a column run's short rows cost more than the
-- rows' calls. The settlements are applied first, so the leases they free count for the claim that
-- follows. An item whose lease was taken over is left to its new holder (its outcome is recorded
-- elsewhere with deterministic ids, so the new holder's repeat changes nothing).
CREATE FUNCTION work_settle(p_owner text, p_settled jsonb) RETURNS int
LANGUAGE sql AS $fn$
  WITH s AS (
    SELECT * FROM jsonb_to_recordset(p_settled) AS s(id text, status text, run_at timestamptz, error text)
  ), settled AS (
    UPDATE work_items w
    SET status = s.status, run_at = coalesce(s.run_at, w.run_at), last_error = s.error,
        lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
    FROM s WHERE w.id = s.id AND w.lease_owner = p_owner AND w.status = 'leased'
    RETURNING w.id
  )
  SELECT count(*)::int FROM settled;
$fn$;

CREATE FUNCTION work_settle_claim(p_owner text, p_settled jsonb, p_kind text, p_now timestamptz, p_limit int,
                                  p_lease_ms int)
RETURNS TABLE (id text, kind text, organization_id text, group_key text, payload jsonb, attempts int,
               run_at timestamptz, created_at timestamptz)
LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM work_settle(p_owner, p_settled);
  IF p_limit > 0 THEN
    RETURN QUERY SELECT * FROM work_claim(p_kind, p_now, p_limit, p_owner, p_lease_ms);
  END IF;
END
$fn$;

-- A group cancelled for good (a stopped run): its pending items cancelled, and nothing enqueued into it
-- after. Both take the group's lock, so an enqueue either lands before the cancel (and is cancelled by
-- it) or sees the cancel and adds nothing: a claim can then hand out an item of a cancelled group only
-- if it was leased before the cancel. That lets a run's rows start at their claim, without a check of
-- the run before each call.
CREATE TABLE work_cancelled_groups (
  kind         text NOT NULL,
  group_key    text NOT NULL,
  cancelled_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, group_key)
);

CREATE FUNCTION work_cancel_group(p_kind text, p_group text) RETURNS SETOF text
LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('work-group:' || p_kind || ':' || p_group));
  INSERT INTO work_cancelled_groups (kind, group_key) VALUES (p_kind, p_group) ON CONFLICT DO NOTHING;
  RETURN QUERY
    UPDATE work_items SET status = 'cancelled', updated_at = now()
    WHERE kind = p_kind AND group_key = p_group AND status = 'pending'
    RETURNING id;
END
$fn$;

-- Enqueues items of one kind and group unless the group was cancelled: answers how many were new, or
-- -1 (nothing enqueued) when it was.
CREATE FUNCTION work_enqueue_group(p_kind text, p_group text, p_items jsonb) RETURNS int
LANGUAGE plpgsql AS $fn$
DECLARE
  n int;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('work-group:' || p_kind || ':' || p_group));
  IF EXISTS (SELECT 1 FROM work_cancelled_groups WHERE kind = p_kind AND group_key = p_group) THEN
    RETURN -1;
  END IF;
  INSERT INTO work_items (id, kind, organization_id, group_key, group_limit, payload, run_at)
  SELECT i.id, p_kind, i.organization_id, p_group, i.group_limit, i.payload, date_trunc('milliseconds', now())
  FROM jsonb_to_recordset(p_items) AS i(id text, organization_id text, group_limit integer, payload jsonb)
  ON CONFLICT (id) DO NOTHING;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$fn$;

-- Down Migration
DROP FUNCTION work_settle_claim(text, jsonb, text, timestamptz, int, int);
DROP FUNCTION work_settle(text, jsonb);
DROP FUNCTION work_enqueue_group(text, text, jsonb);
DROP FUNCTION work_cancel_group(text, text);
DROP TABLE work_cancelled_groups;
