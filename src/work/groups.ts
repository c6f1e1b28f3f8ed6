import { type Db, noteEnqueue } from './queue.ts';

/**
 * The items of one group (a subscription's messages, a column's auto-run): cancelled together, made
 * due together. Split from queue.ts, which holds the life of one item (enqueue, claim, renew, settle).
 */

/**
 * The pending items of a group become `cancelled` (a deleted subscription's messages); answers their
 * ids.
 */
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
