-- Up Migration

-- An item's limited part can end before the item does (src/work/worker.ts `detach`): a column run's
-- row holds one of its run's slots for its call, not while its result is being recorded. A detached
-- item keeps its lease (a holder that dies before settling it has it worked again) but no longer counts
-- against its group's limit, so the group's next item can be claimed while the result is recorded.
-- Claims clear the flag (an item claimed again counts again); only `work_claim` counts it: groups
-- claimed otherwise (work_claim_sticky) never detach.
ALTER TABLE work_items ADD COLUMN detached boolean NOT NULL DEFAULT false;

CREATE OR REPLACE FUNCTION work_claim(p_kind text, p_now timestamptz, p_limit int, p_owner text, p_lease_ms int)
RETURNS TABLE (id text, kind text, organization_id text, group_key text, payload jsonb, attempts int,
               run_at timestamptz, created_at timestamptz)
LANGUAGE plpgsql AS $fn$
-- The names of the result columns are also the table's: in the statements below they mean the table's.
#variable_conflict use_column
BEGIN
  -- Claims of one kind one at a time across every process, so a group's limit holds exactly.
  PERFORM pg_advisory_xact_lock(hashtext('work-claim:' || p_kind));
  -- A holder that stopped renewing is gone: its items are due again (their attempts already count).
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
         WHERE l.kind = p_kind AND l.group_key = grp.group_key AND l.status = 'leased'
           AND NOT l.detached)::int))
  ) c
  WHERE grp.group_key IS NOT NULL
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
SET status = 'leased', detached = false, lease_owner = p_owner, lease_expires_at = now() + make_interval(secs => p_lease_ms / 1000.0),
    attempts = w.attempts + 1, updated_at = now()
FROM chosen WHERE w.id = chosen.id AND w.status = 'pending'
RETURNING w.id, w.kind, w.organization_id, w.group_key, w.payload, w.attempts, w.run_at, w.created_at;
END
$fn$;


-- Detaches, settles and claims in one round trip and one transaction: the worker's loop (as
-- work_settle_claim, migration 0015, with the detached items first, so that the slots they free count
-- for the claim).
CREATE FUNCTION work_detach_settle_claim(p_owner text, p_detached text[], p_settled jsonb, p_kind text,
                                         p_now timestamptz, p_limit int, p_lease_ms int)
RETURNS TABLE (id text, kind text, organization_id text, group_key text, payload jsonb, attempts int,
               run_at timestamptz, created_at timestamptz)
LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE work_items w SET detached = true
  WHERE w.id = ANY(p_detached) AND w.lease_owner = p_owner AND w.status = 'leased';
  PERFORM work_settle(p_owner, p_settled);
  IF p_limit > 0 THEN
    RETURN QUERY SELECT * FROM work_claim(p_kind, p_now, p_limit, p_owner, p_lease_ms);
  END IF;
END
$fn$;

-- Down Migration
DROP FUNCTION work_detach_settle_claim(text, text[], jsonb, text, timestamptz, int, int);
CREATE OR REPLACE FUNCTION work_claim(p_kind text, p_now timestamptz, p_limit int, p_owner text, p_lease_ms int)
RETURNS TABLE (id text, kind text, organization_id text, group_key text, payload jsonb, attempts int,
               run_at timestamptz, created_at timestamptz)
LANGUAGE plpgsql AS $fn$
-- The names of the result columns are also the table's: in the statements below they mean the table's.
#variable_conflict use_column
BEGIN
  -- Claims of one kind one at a time across every process, so a group's limit holds exactly.
  PERFORM pg_advisory_xact_lock(hashtext('work-claim:' || p_kind));
  -- A holder that stopped renewing is gone: its items are due again (their attempts already count).
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

ALTER TABLE work_items DROP COLUMN detached;
