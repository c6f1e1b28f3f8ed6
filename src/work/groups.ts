import { type Db, noteEnqueue, type WorkItemInput } from './queue.ts';

/**
 * The items of one group (a run's rows, a subscription's messages, a column's auto-run): cancelled
 * together, enqueued into unless cancelled, made due together. Split from queue.ts, which holds the
 * life of one item (enqueue, claim, renew, settle).
 */

/** The pending items of a group become `cancelled` (a stopped run's rows); answers their ids. */
export async function cancelPending(db: Db, filter: { kind: string; groupKey: string }): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE work_items SET status = 'cancelled', updated_at = now()
     WHERE kind = $1 AND group_key = $2 AND status = 'pending'
     RETURNING id`,
    [filter.kind, filter.groupKey],
  );
  return rows.map((r) => r.id);
}

/**
 * Cancels a group for good (a stopped run): its pending items become `cancelled` and `enqueueInGroup`
 * adds nothing to it after (migration 0015: both take the group's lock). Answers the ids cancelled.
 */
export async function cancelGroup(db: Db, filter: { kind: string; groupKey: string }): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT work_cancel_group($1, $2) AS id', [
    filter.kind,
    filter.groupKey,
  ]);
  return rows.map((r) => r.id);
}

/**
 * Enqueues items into one group unless `cancelGroup` cancelled it: answers how many were new, or
 * `cancelled` (nothing enqueued). Items are due at once.
 */
export async function enqueueInGroup(
  db: Db,
  group: { kind: string; groupKey: string },
  items: readonly Omit<WorkItemInput, 'kind' | 'groupKey' | 'runAt'>[],
): Promise<number | 'cancelled'> {
  noteEnqueue(group.kind);
  const { rows } = await db.query<{ n: number }>('SELECT work_enqueue_group($1, $2, $3::jsonb) AS n', [
    group.kind,
    group.groupKey,
    JSON.stringify(
      items.map((item) => ({
        id: item.id,
        organization_id: item.organizationId,
        group_limit: item.groupLimit ?? null,
        payload: item.payload ?? null,
      })),
    ),
  ]);
  const n = rows[0]?.n ?? 0;
  return n < 0 ? 'cancelled' : n;
}

/**
 * The pending items of a group due at once (what they waited for has happened: a column's run ended
 * and its auto-run need not wait out its retry). Answers how many were moved up.
 */
export async function dueNow(db: Db, filter: { kind: string; groupKey: string }): Promise<number> {
  noteEnqueue(filter.kind);
  const { rowCount } = await db.query(
    `UPDATE work_items SET run_at = date_trunc('milliseconds', now()), updated_at = now()
     WHERE kind = $1 AND group_key = $2 AND status = 'pending' AND run_at > now()`,
    [filter.kind, filter.groupKey],
  );
  return rowCount ?? 0;
}
