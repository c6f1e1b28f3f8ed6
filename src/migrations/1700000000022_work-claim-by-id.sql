-- Up Migration

-- work_claim (migration 0013) choosing the same items, but updating them by id, as migration 0018 did
-- for work_claim_sticky. Planned as one statement, the UPDATE joined the chosen items to work_items by
-- a hash of the whole table (the planner expects up to p_limit of them: 128 for a column run's rows),
-- settled items included: during a column run it was most of a claim's time (1.4 ms a claim of a few
-- rows, 0.7 ms by id; measured with pg_stat_statements tracking the function's own statements), and a
-- claim finding nothing paid for it too (0.6 ms, 0.3 ms by id). The chosen ids go into an array first, and the
-- UPDATE takes them through the primary key; they are answered oldest first, as chosen.
CREATE OR REPLACE FUNCTION work_claim(p_kind text, p_now timestamptz, p_limit int, p_owner text, p_lease_ms int)
RETURNS TABLE (id text, kind text, organization_id text, group_key text, payload jsonb, attempts int,
               run_at timestamptz, created_at timestamptz)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_ids text[];
BEGIN
  -- Claims of one kind one at a time across every process, so a group's limit holds exactly.
  PERFORM pg_advisory_xact_lock(hashtext('work-claim:' || p_kind));
  -- A holder that stopped renewing is gone: its items are due again (their attempts already count).
  UPDATE work_items w SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL
  WHERE w.kind = p_kind AND w.status = 'leased' AND w.lease_expires_at <= now();
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
                  WHERE f.kind = p_kind AND f.group_key = grp.group_key AND f.status = 'pending'
                  ORDER BY f.group_key, f.run_at, f.id LIMIT 1), p_limit)
        - (SELECT count(*) FROM work_items l
           WHERE l.kind = p_kind AND l.group_key = grp.group_key AND l.status = 'leased')::int))
    ) c
    WHERE grp.group_key IS NOT NULL
  ),
  ungrouped AS (
    SELECT w.id, w.run_at, row_number() OVER (ORDER BY w.run_at, w.id) AS n
    FROM (SELECT id, run_at FROM work_items
          WHERE kind = p_kind AND status = 'pending' AND group_key IS NULL AND run_at <= p_now
          ORDER BY run_at, id LIMIT p_limit) w
  )
  SELECT array_agg(chosen.id) INTO v_ids FROM (
    SELECT id FROM (SELECT * FROM grouped UNION ALL SELECT * FROM ungrouped) candidates
    ORDER BY n, run_at, id LIMIT p_limit
  ) chosen;
  IF v_ids IS NULL THEN
    RETURN;
  END IF;
  RETURN QUERY
  WITH claimed AS (
    UPDATE work_items w
    SET status = 'leased', lease_owner = p_owner, lease_expires_at = now() + make_interval(secs => p_lease_ms / 1000.0),
        attempts = w.attempts + 1, updated_at = now()
    WHERE w.id = ANY(v_ids) AND w.status = 'pending'
    RETURNING w.id, w.kind, w.organization_id, w.group_key, w.payload, w.attempts, w.run_at, w.created_at
  )
  SELECT * FROM claimed ORDER BY claimed.run_at, claimed.id;
END
$fn$;

-- Down Migration
-- Nothing to undo: this function claims exactly what migration 0013's did (only the plan differs), and
-- 0013's own down migration drops it.
