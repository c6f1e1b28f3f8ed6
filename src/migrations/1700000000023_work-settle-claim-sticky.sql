-- Up Migration

-- Settling what a worker finished and the sticky claim that follows (migration 0018) in one round trip
-- and one transaction, as work_settle_claim (migration 0015) does for the plain claim: webhook
-- deliveries were settled in one transaction and claimed in the next, two commits per batch of
-- messages where one does. The claim is lateral to the settle, so it runs after it and sees the leases
-- the settlements freed (each statement of a volatile function takes a new snapshot). A limit of 0
-- claims nothing: the sticky claim's LIMIT takes at most the limit.
CREATE FUNCTION work_settle_claim_sticky(p_owner text, p_settled jsonb, p_kind text, p_now timestamptz,
                                         p_limit int, p_lease_ms int)
RETURNS TABLE (id text, kind text, organization_id text, group_key text, payload jsonb, attempts int,
               run_at timestamptz, created_at timestamptz)
LANGUAGE sql AS $fn$
  SELECT c.*
  FROM work_settle(p_owner, p_settled) AS s(n)
  CROSS JOIN LATERAL work_claim_sticky(p_kind, p_now, CASE WHEN s.n >= 0 THEN p_limit ELSE 0 END, p_owner,
                                       p_lease_ms) AS c
  ORDER BY c.run_at, c.id;
$fn$;

-- Down Migration
DROP FUNCTION work_settle_claim_sticky(text, jsonb, text, timestamptz, int, int);
