import pg from 'pg';
import type { Pool, PoolClient } from '../db/pool.ts';
import { inTransaction } from '../db/pool.ts';
import type { EventStore, Position, RecordedEvent } from '../event-store/port.ts';
import { comparePositions, START } from '../event-store/port.ts';
import { projectionAudit } from './audit.ts';
import { checkpoints } from './checkpoints.ts';
import { advisoryLockHeld, lockKeys } from './locks.ts';
import { rebuildCheckpointName, rebuildRecords } from './rebuild-records.ts';
import { promoteShadow } from './shadow-tables.ts';
import type { Projection } from './types.ts';

export { rebuildCheckpointName };

/** Another process (or another command) is rebuilding this projection right now. */
export class RebuildBusyError extends Error {
  constructor(readonly projection: string) {
    super(`a rebuild of ${projection} is already running`);
  }
}

/** An event the new version cannot apply: the rebuild stops there and can be resumed after a fix. */
export class RebuildFailedError extends Error {
  constructor(
    readonly projection: string,
    readonly eventId: string,
    readonly reason: string,
  ) {
    super(`rebuild of ${projection} failed at event ${eventId}: ${reason}`);
  }
}

export interface RebuildProgress {
  projection: string;
  version: number;
  phase: 'building' | 'swapping' | 'swapped';
  /** Events of the log read by this run so far. */
  processed: number;
  /** Events between the rebuild's checkpoint when this run started and the head then, when countable. */
  total?: number;
  resumed: boolean;
}

export interface RebuildOptions {
  /** Who asked: an operator's name, or `system:startup` for a version bump. */
  actor: string;
  reason?: 'operator' | 'version';
  /** Events read and applied per transaction. */
  batchSize?: number;
  /** Stops after the batch in flight; the next run resumes from the rebuild's checkpoint. */
  signal?: AbortSignal;
  /** Called after each batch and at each phase; a returned promise is waited for (e.g. to let a test act before the swap). */
  onProgress?: (progress: RebuildProgress) => void | Promise<void>;
  /** How long the swap waits for a table lock (readers, the live runner) before it backs off and retries. */
  swapLockTimeoutMs?: number;
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

const LOCK_NOT_AVAILABLE = '55P03';
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

/** Whether a rebuild of `projection` is running in some process now (its advisory lock is held). */
export function rebuildRunning(pool: Pool, projection: string): Promise<boolean> {
  return advisoryLockHeld(pool, lockKeys.rebuild(projection));
}

/** Events (of `types`) after `from`, for a progress bar; only the PostgreSQL store can count them cheaply. */
export async function countEventsAfter(
  store: EventStore,
  pool: Pool,
  from: Position,
  types?: readonly string[],
): Promise<number | undefined> {
  if (store.kind !== 'postgres') return undefined;
  const { rows } = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM events WHERE (tx_id, position) > ($1::text::xid8, $2::bigint)
       AND ($3::text[] IS NULL OR type = ANY($3::text[]))`,
    [from.commit < 0n ? '0' : String(from.commit), String(from.prepare), types ? [...types] : null],
  );
  return Number(rows[0]!.n);
}

class RebuildWorker {
  processed = 0;
  position: Position = START;
  private readonly batchSize: number;
  private readonly checkpointName: string;

  constructor(
    private readonly store: EventStore,
    private readonly pool: Pool,
    private readonly projection: Projection,
    private readonly shadows: Record<string, string>,
    private readonly options: RebuildOptions,
  ) {
    this.batchSize = options.batchSize ?? 2000;
    this.checkpointName = rebuildCheckpointName(projection.name);
  }

  private readonly table = (logical: string): string => {
    const shadow = this.shadows[logical];
    if (!shadow) throw new Error(`${this.projection.name} wrote to ${logical}, which it does not declare`);
    return shadow;
  };

  /** A page of the events this projection applies (the store filters by type where it can). */
  private readPage(from: Position): Promise<RecordedEvent[]> {
    return this.store.readAll({ from, limit: this.batchSize, types: this.projection.handles });
  }

  /**
   * Pages through the log into the shadow tables, reading the next page while the current one is applied.
   * True once a page comes back short (caught up); false when interrupted. The rebuild's checkpoint is
   * the last event read, so with a filtering store it stands on the projection's own events.
   */
  async build(from: Position, onBatch: () => Promise<void>): Promise<boolean> {
    const stored = await checkpoints.get(this.pool, this.checkpointName);
    this.position = stored?.position ?? from;
    let page = await this.readPage(this.position);
    for (;;) {
      if (this.options.signal?.aborted) return false;
      if (page.length === 0) return true;
      const last = page[page.length - 1]!.position;
      const next = page.length === this.batchSize ? this.readPage(last) : undefined;
      // A rejected prefetch must not go unhandled while the batch is applied; it is awaited below.
      next?.catch(() => {});
      await this.applyBatch(page);
      await onBatch();
      if (!next) return true;
      page = await next;
    }
  }

  private async applyBatch(events: readonly RecordedEvent[]): Promise<void> {
    try {
      await this.commit(events);
    } catch (error) {
      if (events.length === 1) throw await this.fail(events[0]!, error);
      // Find the event that throws: everything before it is kept, the rebuild stops at it.
      for (const event of events) {
        try {
          await this.commit([event]);
        } catch (single) {
          throw await this.fail(event, single);
        }
      }
      throw error;
    }
  }

  private async commit(events: readonly RecordedEvent[]): Promise<void> {
    const from = this.position;
    const handled = events.filter((e) => this.projection.handles.includes(e.type));
    const last = events[events.length - 1]!.position;
    await inTransaction(this.pool, async (tx) => {
      // A crash may lose the last commits, never split one: the checkpoint moves in the same transaction.
      await tx.query('SET LOCAL synchronous_commit = off');
      const row = await checkpoints.get(tx, this.checkpointName, true);
      if (!row || comparePositions(row.position, from) !== 0)
        throw new Error(`the rebuild checkpoint of ${this.projection.name} moved under this rebuild`);
      if (handled.length > 0) await this.projection.apply(handled, { tx, table: this.table });
      await checkpoints.advance(tx, this.checkpointName, last, handled.length);
    });
    this.position = last;
    this.processed += events.length;
  }

  private async fail(event: RecordedEvent, error: unknown): Promise<RebuildFailedError> {
    const reason = error instanceof Error ? error.message : String(error);
    await checkpoints.setState(this.pool, this.checkpointName, 'failed', {
      message: reason,
      eventId: event.id,
    });
    return new RebuildFailedError(this.projection.name, event.id, reason);
  }

  /**
   * The swap, in one transaction: wait for the live runner's batch (its checkpoint row lock), bring the
   * shadow up to at least the live checkpoint, replace the live tables by the shadows, move the live
   * checkpoint to the shadow's position and version. False when a table lock was not had in time.
   */
  async swap(by: { reason: string; actor: string; startedBy: string }, started: number): Promise<boolean> {
    const name = this.projection.name;
    try {
      await inTransaction(this.pool, async (tx) => {
        await tx.query(`SET LOCAL lock_timeout = ${Math.round(this.options.swapLockTimeoutMs ?? 3000)}`);
        await tx.query(
          'INSERT INTO projection_checkpoints (name, version) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
          [name, this.projection.version],
        );
        const live = (await checkpoints.get(tx, name, true))!;
        const rebuild = await checkpoints.get(tx, this.checkpointName, true);
        if (!rebuild || comparePositions(rebuild.position, this.position) !== 0)
          throw new Error(`the rebuild checkpoint of ${name} moved under this rebuild`);
        const { position, applied } = await this.catchUpInside(tx, rebuild.position, live.position);
        // The live runner's start-up creates missing tables under this lock: keep out of its way.
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKeys.ddl(name)]);
        for (const [logical, shadow] of Object.entries(this.shadows))
          await promoteShadow(tx, logical, shadow);
        await tx.query(
          `UPDATE projection_checkpoints
           SET version = $2, commit_position = $3, prepare_position = $4, events_applied = $5,
               state = 'running', last_error = NULL, failed_event_id = NULL, updated_at = now()
           WHERE name = $1`,
          [
            name,
            this.projection.version,
            String(position.commit),
            String(position.prepare),
            rebuild.eventsApplied + applied,
          ],
        );
        await tx.query('DELETE FROM projection_checkpoints WHERE name = $1', [this.checkpointName]);
        await rebuildRecords.remove(tx, name);
        await projectionAudit.record(tx, {
          projection: name,
          action: 'rebuild',
          actor: by.actor,
          detail: {
            reason: by.reason,
            startedBy: by.startedBy,
            fromVersion: live.version,
            toVersion: this.projection.version,
            position: { commit: String(position.commit), prepare: String(position.prepare) },
            eventsApplied: rebuild.eventsApplied + applied,
            replacedFailure: live.state === 'failed' ? live.failedEventId : undefined,
            seconds: Math.round((performance.now() - started) / 100) / 10,
          },
        });
        this.position = position;
      });
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) return false;
      throw error;
    }
  }

  /**
   * Applies, inside the swap transaction, whatever the log gained since the last batch: everything the
   * live runner has applied and more. The position handed to the live runner is the later of the last
   * event read and the live checkpoint: events between them that were not read are not this
   * projection's (the store filtered them out), and the live runner has passed them already.
   */
  private async catchUpInside(
    tx: PoolClient,
    from: Position,
    live: Position,
  ): Promise<{ position: Position; applied: number }> {
    let position = from;
    let applied = 0;
    for (;;) {
      const page = await this.readPage(position);
      if (page.length > 0) {
        const handled = page.filter((e) => this.projection.handles.includes(e.type));
        if (handled.length > 0) await this.projection.apply(handled, { tx, table: this.table });
        applied += handled.length;
        position = page[page.length - 1]!.position;
        this.processed += page.length;
      }
      if (page.length < this.batchSize) break;
    }
    return { position: comparePositions(position, live) < 0 ? live : position, applied };
  }
}
