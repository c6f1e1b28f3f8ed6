-- Up Migration

-- work_claim (migration 0013) with one rule more, for work whose group limit bounds the items a process
-- holds ahead while the process itself bounds what it does at once (webhook deliveries: 64 messages of
-- a subscription claimed, 4 POSTs at a time). A group's items are claimed only by the owner that holds
-- its leases already, or by anyone when nobody does: all of a group in flight is in one process, so
-- that process's bound is the bound across every process. A holder that died lets go when its leases
-- run out (given back here, as in work_claim).
CREATE FUNCTION work_claim_sticky(p_kind text, p_now timestamptz, p_limit int, p_owner text, p_lease_ms int)
RETURNS TABLE (id text, kind text, organization_id text, group_key text, payload jsonb, attempts int,
               run_at timestamptz, created_at timestamptz)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('work-claim:' || p_kind));
  UPDATE work_items w SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL
  WHERE w.kind = p_kind AND w.status = 'leased' AND w.lease_expires_at <= now();
  RETURN QUERY
WITH RECURSIVE grp(group_key) AS (
  (SELECT group_key FROM work_items
   WHERE kind = p_kind AND status = 'pending' AND group_key IS NOT NULL
   ORDER BY group_key LIMIT 1)
  UNION ALL
  SELECT (SELECT w.group_key FROM work_items w
          WHERE w.kind = p_kind AND w.status = 'pending' AND w.group_key > grp.group_key
          ORDER BY w.group_key LIMIT 1)
  FROM grp WHERE grp.group_key IS NOT NULL
),
grouped AS (
  SELECT c.id, c.run_at, c.n FROM grp
  CROSS JOIN LATERAL (
    SELECT w.id, w.run_at, row_number() OVER (ORDER BY w.run_at, w.id) AS n
    FROM work_items w
    WHERE w.kind = p_kind AND w.status = 'pending' AND w.group_key = grp.group_key AND w.run_at <= p_now
    ORDER BY w.run_at, w.id
    LIMIT greatest(0, least(p_limit,
      coalesce((SELECT f.group_limit FROM work_items f
                WHERE f.kind = p_kind AND f.group_key = grp.group_key AND f.status = 'pending' LIMIT 1), p_limit)
      - (SELECT count(*) FROM work_items l
         WHERE l.kind = p_kind AND l.group_key = grp.group_key AND l.status = 'leased')::int))
  ) c
  WHERE grp.group_key IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM work_items o
                    WHERE o.kind = p_kind AND o.group_key = grp.group_key AND o.status = 'leased'
                      AND o.lease_owner <> p_owner)
),
ungrouped AS (
  SELECT w.id, w.run_at, row_number() OVER (ORDER BY w.run_at, w.id) AS n
  FROM (SELECT id, run_at FROM work_items
        WHERE kind = p_kind AND status = 'pending' AND group_key IS NULL AND run_at <= p_now
        ORDER BY run_at, id LIMIT p_limit) w
),
chosen AS (
  SELECT id FROM (SELECT * FROM grouped UNION ALL SELECT * FROM ungrouped) candidates
  ORDER BY n, run_at, id LIMIT p_limit
)
UPDATE work_items w
SET status = 'leased', lease_owner = p_owner, lease_expires_at = now() + make_interval(secs => p_lease_ms / 1000.0),
    attempts = w.attempts + 1, updated_at = now()
FROM chosen WHERE w.id = chosen.id AND w.status = 'pending'
RETURNING w.id, w.kind, w.organization_id, w.group_key, w.payload, w.attempts, w.run_at, w.created_at;
END
$fn$;

-- Down Migration
DROP FUNCTION work_claim_sticky(text, timestamptz, int, text, int);
