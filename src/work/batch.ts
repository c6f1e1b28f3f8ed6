import type { Pool } from '../db/pool.ts';
import { GroupCommit } from '../group-commit.ts';
import { type claim, type ItemRow, itemOf, type Settlement, type WorkItem } from './queue.ts';

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

/** Settles items `owner` holds in one statement; answers, in order, whether each was still its own. */
export async function settleMany(
  db: Pool,
  owner: string,
  settlements: readonly { id: string; outcome: Settlement }[],
): Promise<boolean[]> {
  if (settlements.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `UPDATE work_items w
     SET status = s.status, run_at = coalesce(s.run_at, w.run_at), last_error = s.error,
         lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
     FROM jsonb_to_recordset($2::jsonb) AS s(id text, status text, run_at timestamptz, error text)
     WHERE w.id = s.id AND w.lease_owner = $1 AND w.status = 'leased'
     RETURNING w.id`,
    [
      owner,
      JSON.stringify(
        settlements.map(({ id, outcome }) => ({
          id,
          status: outcome.status === 'retry' ? 'pending' : outcome.status,
          run_at: outcome.status === 'retry' ? outcome.at.toISOString() : null,
          error: outcome.status === 'done' ? null : outcome.error,
        })),
      ),
    ],
  );
  const settled = new Set(rows.map((r) => r.id));
  return settlements.map((s) => settled.has(s.id));
}

const groups = new WeakMap<Pool, Map<string, GroupCommit<{ id: string; outcome: Settlement }, boolean>>>();

/**
 * `settle` with the settlements of one owner that arrive together made one statement (a group commit):
 * for work finishing hundreds of items a second, where one UPDATE each was a round trip each.
 */
export function settleInGroups(pool: Pool, owner: string, id: string, outcome: Settlement): Promise<boolean> {
  let byOwner = groups.get(pool);
  if (!byOwner) {
    byOwner = new Map();
    groups.set(pool, byOwner);
  }
  let group = byOwner.get(owner);
  if (!group) {
    group = new GroupCommit((items) => settleMany(pool, owner, items), { maxBatch: 200, maxInFlight: 2 });
    byOwner.set(owner, group);
  }
  return group.submit({ id, outcome });
}
