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

-- Down Migration
DROP FUNCTION work_settle_claim(text, jsonb, text, timestamptz, int, int);
DROP FUNCTION work_settle(text, jsonb);
