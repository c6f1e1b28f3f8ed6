import type { Pool } from '../db/pool.ts';
import type { Projection } from '../projection/types.ts';
import {
  type claim,
  type ItemRow,
  itemOf,
  type settleAndClaim,
  settleAndClaimBy,
  type WorkItem,
} from './queue.ts';

/**
 * Claims as `claim` does (src/work/queue.ts), except that a group whose items another owner holds is
 * left to that owner (migration 0016): everything of a group in flight is in one process. For work
 * that claims a group's items well ahead and bounds in the process what it does at once (a webhook
 * subscription's POSTs), so that this bound holds across every process.
 */
export async function claimSticky(pool: Pool, input: Parameters<typeof claim>[1]): Promise<WorkItem[]> {
  if (input.limit <= 0) return [];
  const { kind, now, limit, owner, leaseMs } = input;
  const sql = 'SELECT * FROM work_claim_sticky($1, $2, $3, $4, $5)';
  const { rows } = await pool.query<ItemRow>(sql, [kind, now, limit, owner, leaseMs]);
  return rows.map(itemOf);
}

/**
 * Settles what `owner` finished and claims as `claimSticky` does, in one round trip and one transaction
 * (migration 0023): the leases the settlements free count for the group's limit. A worker whose spec
 * names it (`settleAndClaim`) pays one commit per batch, not a settle's and a claim's.
 */
export async function settleAndClaimSticky(
  pool: Pool,
  input: Parameters<typeof settleAndClaim>[1],
): Promise<WorkItem[]> {
  if (input.settlements.length === 0) return claimSticky(pool, input);
  return settleAndClaimBy('work_settle_claim_sticky', pool, input);
}

/**
 * What a projection batch's commit wakes: the workers of the kinds the projection says it enqueues
 * (`enqueues`), or of every kind when it does not say, and of those only the kinds this process has
 * just enqueued items of (`Workers.nudgeEnqueued`); nobody when the batch applied no event (only
 * the checkpoint moved, as each projection's does once a second over events it does not handle). A
 * read model that commits often (the webhook history, at each batch of attempts) then wakes nobody:
 * every idle kind claiming after each such commit was a third of the database's statements per
 * delivered webhook message.
 */
export function wakeOnCommit(
  projections: readonly Pick<Projection, 'name' | 'enqueues'>[],
  workers: () => { nudgeEnqueued(kinds?: readonly string[]): void } | undefined,
): (projection: string, applied?: number) => void {
  const kinds = new Map(projections.map((p) => [p.name, p.enqueues]));
  return (projection, applied) => {
    const work = workers();
    if (!work || applied === 0) return;
    const wakes = kinds.get(projection);
    if (wakes?.length !== 0) work.nudgeEnqueued(wakes);
  };
}
