import type { Pool, PoolClient } from '../db/pool.ts';

/**
 * Durable work items (DESIGN section 9, migration 0009): enqueued by reactors in the transaction that
 * moves their checkpoint, claimed by workers of any process under a lease, settled once. What an item
 * did is recorded elsewhere, as events with deterministic ids: this table only says what is left to do.
 */

export type Db = Pool | PoolClient;

export interface WorkItemInput {
  /** Deterministic (the kind and a business key, e.g. `run-queue:<runId>`): a repeat is a no-op. */
  id: string;
  kind: string;
  organizationId: string;
  /** Items of one group (a run, a subscription) share `groupLimit` leases across every process. */
  groupKey?: string;
  groupLimit?: number;
  payload: unknown;
  /** Not before this time (default: at once). */
  runAt?: Date;
}

export interface WorkItem {
  id: string;
  kind: string;
  organizationId: string;
  groupKey: string | null;
  payload: unknown;
  /** Claims of this item so far, this one included. */
  attempts: number;
  runAt: Date;
  createdAt: Date;
}

export type Settlement =
  | { status: 'done' }
  | { status: 'retry'; at: Date; error: string }
  | { status: 'dead'; error: string };

/**
 * When this process last enqueued items of each kind ('*': items of any kind made due again), by
 * `performance.now()`: a general nudge (`Workers.nudge()`, after every projection commit) wakes only
 * the workers of kinds that may have new items, not every idle worker for a claim that finds nothing.
 * Noted when the statement is sent, before its transaction commits: the nudges of the commits that
 * follow within a while (`Workers`) wake the kind, so the one after the enqueuing commit does too.
 */
const enqueuedAt = new Map<string, number>();
export const noteEnqueue = (kind: string) => enqueuedAt.set(kind, performance.now());
export const lastEnqueueOf = (kind: string): number => enqueuedAt.get(kind) ?? Number.NEGATIVE_INFINITY;

/**
 * Enqueues items that do not exist yet; answers how many were new. A default `run_at` is the database's
 * time cut to milliseconds: claims compare it with the service clock, a JavaScript Date.
 */
export async function enqueue(db: Db, items: readonly WorkItemInput[]): Promise<number> {
  if (items.length === 0) return 0;
  for (const kind of new Set(items.map((item) => item.kind))) noteEnqueue(kind);
  const { rowCount } = await db.query(
    `INSERT INTO work_items (id, kind, organization_id, group_key, group_limit, payload, run_at)
     SELECT i.id, i.kind, i.organization_id, i.group_key, i.group_limit, i.payload, coalesce(i.run_at, date_trunc('milliseconds', now()))
     FROM jsonb_to_recordset($1::jsonb) AS i(id text, kind text, organization_id text, group_key text,
                                               group_limit integer, payload jsonb, run_at timestamptz)
     ON CONFLICT (id) DO NOTHING`,
    [
      JSON.stringify(
        items.map((item) => ({
          id: item.id,
          kind: item.kind,
          organization_id: item.organizationId,
          group_key: item.groupKey ?? null,
          group_limit: item.groupLimit ?? null,
          payload: item.payload ?? null,
          run_at: item.runAt?.toISOString() ?? null,
        })),
      ),
    ],
  );
  return rowCount ?? 0;
}

/**
 * Claims up to `limit` due items of a kind for `owner`, for `leaseMs`. Claims of one kind are taken one
 * at a time across every process (a transaction-scoped advisory lock), so a group's limit holds
 * exactly. Groups take turns: each group's oldest due items first, round-robin across groups, so one
 * group with a long backlog (a slow webhook receiver, a large run) cannot starve the others.
 * Due compares `run_at` with `now` (the service's clock, which tests move); leases use the database's
 * own time, because they are about processes being alive.
 */
export async function claim(
  pool: Pool,
  input: { kind: string; owner: string; limit: number; leaseMs: number; now: Date },
): Promise<WorkItem[]> {
  if (input.limit <= 0) return [];
  // One round trip (migration 0013): the kind's claim lock, expired leases given back, the claim.
  const { rows } = await pool.query<ItemRow>('SELECT * FROM work_claim($1, $2, $3, $4, $5)', [
    input.kind,
    input.now,
    input.limit,
    input.owner,
    input.leaseMs,
  ]);
  return rows.map(itemOf);
}

export interface ItemRow {
  id: string;
  kind: string;
  organization_id: string;
  group_key: string | null;
  payload: unknown;
  attempts: number;
  run_at: Date;
  created_at: Date;
}

export const itemOf = (row: ItemRow): WorkItem => ({
  id: row.id,
  kind: row.kind,
  organizationId: row.organization_id,
  groupKey: row.group_key,
  payload: row.payload,
  attempts: row.attempts,
  runAt: row.run_at,
  createdAt: row.created_at,
});

/** Extends the leases `owner` still holds; answers the ids it still holds (others were taken over). */
export async function renew(
  db: Db,
  owner: string,
  ids: readonly string[],
  leaseMs: number,
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(
    `UPDATE work_items SET lease_expires_at = now() + make_interval(secs => $3::int / 1000.0)
     WHERE id = ANY($1) AND lease_owner = $2 AND status = 'leased'
     RETURNING id`,
    [ids, owner, leaseMs],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Settles an item `owner` holds. An item whose lease was taken over is left to its new holder (false):
 * its outcome is recorded by events with deterministic ids, so the repeat changes nothing.
 */
export async function settle(db: Db, owner: string, id: string, outcome: Settlement): Promise<boolean> {
  const status = outcome.status === 'retry' ? 'pending' : outcome.status;
  const { rowCount } = await db.query(
    `UPDATE work_items
     SET status = $3, run_at = coalesce($4, run_at), last_error = $5,
         lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
     WHERE id = $1 AND lease_owner = $2 AND status = 'leased'`,
    [
      id,
      owner,
      status,
      outcome.status === 'retry' ? outcome.at : null,
      outcome.status === 'done' ? null : outcome.error,
    ],
  );
  return (rowCount ?? 0) > 0;
}

/** An outcome of an item `owner` holds, as the settle functions of migration 0015 take it. */
export interface HeldSettlement {
  id: string;
  outcome: Settlement;
}

const settledJson = (settlements: readonly HeldSettlement[]) =>
  JSON.stringify(
    settlements.map(({ id, outcome }) => ({
      id,
      status: outcome.status === 'retry' ? 'pending' : outcome.status,
      run_at: outcome.status === 'retry' ? outcome.at.toISOString() : null,
      error: outcome.status === 'done' ? null : outcome.error,
    })),
  );

/**
 * Settles several items `owner` holds at once (as `settle` does one); answers how many it still held.
 */
export async function settleMany(
  db: Db,
  owner: string,
  settlements: readonly HeldSettlement[],
): Promise<number> {
  if (settlements.length === 0) return 0;
  const { rows } = await db.query<{ n: number }>('SELECT work_settle($1, $2::jsonb) AS n', [
    owner,
    settledJson(settlements),
  ]);
  return rows[0]?.n ?? 0;
}

/**
 * Settles what `owner` finished and claims up to `limit` due items of a kind, in one round trip and one
 * transaction (migration 0015): the leases the settlements free count for the claim. A worker's loop
 * does this instead of a settle per item and a claim per freed slot.
 */
export async function settleAndClaim(
  pool: Pool,
  input: {
    kind: string;
    owner: string;
    settlements: readonly HeldSettlement[];
    limit: number;
    leaseMs: number;
    now: Date;
  },
): Promise<WorkItem[]> {
  if (input.settlements.length === 0) return claim(pool, input);
  return settleAndClaimBy('work_settle_claim', pool, input);
}

/**
 * `settleAndClaim` through a database function of its arguments (owner, settlements, kind, now, limit,
 * lease): `work_settle_claim` (migration 0015), or another claim's (src/work/batch.ts).
 */
export async function settleAndClaimBy(
  sqlFunction: string,
  pool: Pool,
  input: Parameters<typeof settleAndClaim>[1],
): Promise<WorkItem[]> {
  const { rows } = await pool.query<ItemRow>(`SELECT * FROM ${sqlFunction}($1, $2::jsonb, $3, $4, $5, $6)`, [
    input.owner,
    settledJson(input.settlements),
    input.kind,
    input.now,
    Math.max(0, input.limit),
    input.leaseMs,
  ]);
  return rows.map(itemOf);
}

/** Gives back a lease without an outcome (shutdown): the item is due again at once, for anyone. */
export async function release(db: Db, owner: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE work_items SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
     WHERE id = ANY($1) AND lease_owner = $2 AND status = 'leased'`,
    [ids, owner],
  );
}

/** Settled items back to pending (a redelivery, a replay); answers the ids that were requeued. */
export async function requeue(db: Db, ids: readonly string[], runAt?: Date): Promise<string[]> {
  if (ids.length === 0) return [];
  noteEnqueue('*');
  const { rows } = await db.query<{ id: string }>(
    `UPDATE work_items SET status = 'pending', run_at = coalesce($2, date_trunc('milliseconds', now())), last_error = NULL, updated_at = now()
     WHERE id = ANY($1) AND status IN ('done', 'dead', 'cancelled')
     RETURNING id`,
    [ids, runAt ?? null],
  );
  return rows.map((r) => r.id);
}

/** Removes settled items older than `olderThanMs`, a batch at a time; answers how many went. */
export async function sweep(db: Db, olderThanMs: number, batch = 1000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM work_items WHERE id IN (
       SELECT id FROM work_items
       WHERE status IN ('done', 'dead', 'cancelled') AND updated_at < now() - make_interval(secs => $1::bigint / 1000.0)
       LIMIT $2)`,
    [olderThanMs, batch],
  );
  return rowCount ?? 0;
}
