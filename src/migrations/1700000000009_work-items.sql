-- Up Migration

-- Work outside the request (DESIGN section 9): column runs' rows, webhook deliveries, schedules. A
-- reactor (a projection without tables of its own) enqueues items in the transaction that moves its
-- checkpoint, so each event becomes work exactly once; workers of any process claim items with a
-- lease, and an item whose holder died is claimed again once its lease has expired. Not a read model:
-- a rebuild must not forget what was already done. Ids are deterministic (kind and business key), so
-- enqueueing an item twice is a no-op.
CREATE TABLE work_items (
  id               text PRIMARY KEY,
  kind             text NOT NULL,
  organization_id  text NOT NULL,
  -- Items of one group (a run, a subscription) share a concurrency limit across every process.
  group_key        text,
  group_limit      integer CHECK (group_limit IS NULL OR group_limit > 0),
  payload          jsonb NOT NULL,
  status           text NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'leased', 'done', 'dead', 'cancelled')),
  attempts         integer NOT NULL DEFAULT 0,
  run_at           timestamptz NOT NULL,
  lease_owner      text,
  lease_expires_at timestamptz,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);

-- What a claim scans: the groups with pending items (a loose index scan), each group's oldest first,
-- and the ungrouped items oldest first.
CREATE INDEX work_items_pending_by_group ON work_items (kind, group_key, run_at, id) WHERE status = 'pending';
CREATE INDEX work_items_pending_ungrouped ON work_items (kind, run_at, id)
  WHERE status = 'pending' AND group_key IS NULL;
-- What a group's limit counts (its items under a lease), and where expired leases are found.
CREATE INDEX work_items_leased_by_group ON work_items (kind, group_key) WHERE status = 'leased';
-- What the sweeper removes: settled items, oldest first.
CREATE INDEX work_items_settled ON work_items (updated_at) WHERE status IN ('done', 'dead', 'cancelled');

-- Down Migration
DROP TABLE work_items;
