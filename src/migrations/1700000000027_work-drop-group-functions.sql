-- Up Migration

-- A run's rows are driven by one driver per run now (src/domain/runs/run-driver.ts), which reads its stop
-- from run_stops: no version of the service since migration 0025 enqueues into a work group or cancels
-- one, so these two functions of migration 0015 go. Their table stays for now: processes of the version
-- before this one still sweep it (src/work/queue.ts `sweep`), and its rows age out there.
DROP FUNCTION work_enqueue_group(text, text, jsonb);
DROP FUNCTION work_cancel_group(text, text);

-- Down Migration
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
