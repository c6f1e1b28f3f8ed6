-- Up Migration

-- A run's rows are no longer work items of their own (kind 'run-row', one per row, claimed and settled
-- one by one): the run's one item (kind 'run-queue') drives them all in one process, from the run's
-- stream (src/domain/runs/run-driver.ts). Runs that were under way when this is applied go on that
-- way: their item is due again, or made again when it was swept already (a driver reads which rows
-- have a result and runs the rest), and the row items left waiting or held are cancelled. A row that
-- was in its call is called again with the same Idempotency-Key, as after a crash. Settled row items
-- stay until their retention ends.
INSERT INTO work_items (id, kind, organization_id, payload, status, attempts, run_at)
SELECT DISTINCT ON (group_key) 'run-queue:' || group_key, 'run-queue', organization_id,
       jsonb_build_object('runId', group_key), 'pending', 0, now()
FROM work_items
WHERE kind = 'run-row' AND status IN ('pending', 'leased')
ORDER BY group_key
ON CONFLICT (id) DO UPDATE
SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL, attempts = 0, run_at = now(),
    last_error = NULL, updated_at = now();

UPDATE work_items SET status = 'cancelled', lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
WHERE kind = 'run-row' AND status IN ('pending', 'leased');

-- Down Migration
-- Nothing to undo: runs started from here have no row items, which the row workers of before would
-- need; roll back only with no run under way.
