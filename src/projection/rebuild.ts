import pg from 'pg';
import type { Pool } from '../db/pool.ts';
import type { EventStore, Position } from '../event-store/port.ts';
import { START } from '../event-store/port.ts';
import { checkpoints } from './checkpoints.ts';
import { lockKeys } from './locks.ts';
import {
  type RebuildOptions,
  type RebuildProgress,
  rebuildCheckpointName,
  rebuildRecords,
} from './rebuild-records.ts';
import { RebuildFailedError, RebuildWorker } from './rebuild-worker.ts';
import { lagOf } from './status-admin.ts';
import type { Projection } from './types.ts';

export { RebuildFailedError, rebuildCheckpointName };

/** The projection says it must not be rebuilt (Projection.notRebuildable). */
export class RebuildRefusedError extends Error {
  constructor(
    readonly projection: string,
    reason: string,
  ) {
    super(`${projection} cannot be rebuilt: ${reason}`);
  }
}

export type { RebuildOptions, RebuildProgress } from './rebuild-records.ts';

/** Another process (or another command) is rebuilding this projection right now. */
export class RebuildBusyError extends Error {
  constructor(readonly projection: string) {
    super(`a rebuild of ${projection} is already running`);
  }
}

export interface RebuildResult {
  outcome: 'swapped' | 'interrupted';
  projection: string;
  version: number;
  resumed: boolean;
  position: Position;
  processed: number;
  seconds: number;
}

const SWAP_ATTEMPTS = 20;

/**
 * Blue/green rebuild of one projection: the code's version is built from the start of the log into
 * shadow tables while the live tables keep serving (and, same version, keep following); once the shadow
 * has caught up, one transaction swaps it in. See docs/operations.md.
 */
export async function rebuildProjection(
  store: EventStore,
  pool: Pool,
  projection: Projection,
  options: RebuildOptions,
): Promise<RebuildResult> {
  if (projection.notRebuildable) throw new RebuildRefusedError(projection.name, projection.notRebuildable);
  const started = performance.now();
  const lock = await takeRebuildLock(pool, projection.name);
  try {
    const { record, resumed } = await rebuildRecords.begin(pool, projection, {
      actor: options.actor,
      reason: options.reason ?? 'operator',
    });
    const worker = new RebuildWorker(store, pool, projection, record.tables, options);
    const from = (await checkpoints.get(pool, rebuildCheckpointName(projection.name)))?.position ?? START;
    const total = await countEventsAfter(store, pool, from, projection.handles);
    const progress = async (phase: RebuildProgress['phase']) =>
      await options.onProgress?.({
        projection: projection.name,
        version: projection.version,
        phase,
        processed: worker.processed,
        total,
        resumed,
      });
    await progress('building');
    for (let attempt = 1; ; attempt++) {
      const caughtUp = await worker.build(from, () => progress('building'));
      const result = (outcome: RebuildResult['outcome']): RebuildResult => ({
        outcome,
        projection: projection.name,
        version: projection.version,
        resumed,
        position: worker.position,
        processed: worker.processed,
        seconds: (performance.now() - started) / 1000,
      });
      if (!caughtUp) return result('interrupted');
      await progress('swapping');
      const swapped = await worker.swap(
        { reason: options.reason ?? record.reason, actor: options.actor, startedBy: record.actor },
        started,
      );
      if (swapped) {
        await progress('swapped');
        return result('swapped');
      }
      if (attempt >= SWAP_ATTEMPTS)
        throw new Error(`could not take the table locks to swap ${projection.name}`);
    }
  } finally {
    await lock.end().catch(() => {});
  }
}

async function takeRebuildLock(pool: Pool, projection: string): Promise<pg.Client> {
  const client = new pg.Client(pool.options);
  client.on('error', () => {});
  await client.connect();
  const { rows } = await client.query('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [
    lockKeys.rebuild(projection),
  ]);
  if (!rows[0].ok) {
    await client.end();
    throw new RebuildBusyError(projection);
  }
  return client;
}

/** Events (of `types`) after `from`, for a progress bar; only the PostgreSQL store can count them cheaply. */
export async function countEventsAfter(
  store: EventStore,
  pool: Pool,
  from: Position,
  types?: readonly string[],
): Promise<number | undefined> {
  if (store.kind !== 'postgres') return undefined;
  return (await lagOf(store, pool, from, await store.head(), types)).events;
}
