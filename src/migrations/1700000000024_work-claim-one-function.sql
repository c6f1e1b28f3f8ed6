-- Up Migration

-- One claim for every worker: work_claim (0013) and work_claim_sticky (0016, then 0018) stated the same
-- choice of items twice, and work_claim still updated the chosen items through a join that the planner
-- made a hash of every pending row, a scan of the whole table (settled items included: they are kept
-- 30 days) per claim, as 0018 found for the sticky one. Both are now this function, 0018's plan (the
-- chosen ids into an array, updated through the primary key), sticky or not by its last argument: a
-- sticky claim takes nothing of a group another process holds leases in (webhook deliveries keep a
-- subscription's messages on one process).
CREATE FUNCTION work_claim_items(p_kind text, p_now timestamptz, p_limit int, p_owner text, p_lease_ms int,
                                 p_sticky boolean)
RETURNS TABLE (id text, kind text, organization_id text, group_key text, payload jsonb, attempts int,
               run_at timestamptz, created_at timestamptz)
LANGUAGE plpgsql AS $fn$
-- The names of the result columns are also the table's: in the statements below they mean the table's.
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
      AND NOT (p_sticky AND EXISTS (SELECT 1 FROM work_items o
                                    WHERE o.kind = p_kind AND o.group_key = grp.group_key
                                      AND o.status = 'leased' AND o.lease_owner <> p_owner))
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
  -- Oldest first, as chosen: a subscription's messages are sent in about the order of their events.
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

-- The two names the queue and the settle-and-claim functions (0015, 0023) call, kept as the one claim.
CREATE OR REPLACE FUNCTION work_claim(p_kind text, p_now timestamptz, p_limit int, p_owner text, p_lease_ms int)
RETURNS TABLE (id text, kind text, organization_id text, group_key text, payload jsonb, attempts int,
               run_at timestamptz, created_at timestamptz)
LANGUAGE sql AS $fn$
  SELECT * FROM work_claim_items(p_kind, p_now, p_limit, p_owner, p_lease_ms, false);
$fn$;

CREATE OR REPLACE FUNCTION work_claim_sticky(p_kind text, p_now timestamptz, p_limit int, p_owner text,
                                             p_lease_ms int)
RETURNS TABLE (id text, kind text, organization_id text, group_key text, payload jsonb, attempts int,
               run_at timestamptz, created_at timestamptz)
LANGUAGE sql AS $fn$
  SELECT * FROM work_claim_items(p_kind, p_now, p_limit, p_owner, p_lease_ms, true);
$fn$;

-- Down Migration
-- Nothing to undo: work_claim and work_claim_sticky claim exactly what 0013's and 0018's did (only the
-- plan differs), so the state of 0023 holds with them as they are; work_claim_items is left for them.
