import type { Pool, PoolClient } from '../db/pool.ts';
import { inTransaction } from '../db/pool.ts';
import type { EventStore, Position, RecordedEvent } from '../event-store/port.ts';
import { comparePositions, START } from '../event-store/port.ts';
import { applyContext, replayContext } from './apply-context.ts';
import { projectionAudit } from './audit.ts';
import { checkpoints } from './checkpoints.ts';
import { lockKeys } from './locks.ts';
import { type RebuildOptions, rebuildCheckpointName, rebuildRecords } from './rebuild-records.ts';
import { dropRetired, promoteShadow } from './shadow-tables.ts';
import type { Projection } from './types.ts';

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

const LOCK_NOT_AVAILABLE = '55P03';

/**
 * One run of a rebuild: builds the shadow tables from the rebuild's checkpoint, then swaps them in.
 * Both halves move the same shadow position, so they live together.
 */
export class RebuildWorker {
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
      const live = await checkpoints.get(tx, this.projection.name);
      await this.applyShadow(tx, handled, live?.position ?? START);
      await checkpoints.advance(tx, this.checkpointName, last, handled.length);
    });
    this.position = last;
    this.processed += events.length;
  }

  /**
   * Applies events to the shadow tables. Work for the events up to the live checkpoint was enqueued by
   * the live projection when it applied them (and may be done and swept since): only the later ones,
   * which a paused or failed live projection has not reached, enqueue theirs here.
   */
  private async applyShadow(tx: PoolClient, events: readonly RecordedEvent[], live: Position): Promise<void> {
    const split = events.findIndex((e) => comparePositions(e.position, live) > 0);
    const reacted = split === -1 ? events : events.slice(0, split);
    const fresh = split === -1 ? [] : events.slice(split);
    if (reacted.length > 0) await this.projection.apply(reacted, replayContext(tx, this.table, this.store));
    if (fresh.length > 0) await this.projection.apply(fresh, applyContext(tx, this.table, this.store));
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
      // What the swap set aside (a partitioned table's old tables) goes after it, a table at a time.
      for (const logical of Object.keys(this.shadows)) await dropRetired(this.pool, logical).catch(() => {});
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
        await this.applyShadow(tx, handled, live);
        applied += handled.length;
        position = page[page.length - 1]!.position;
        this.processed += page.length;
      }
      if (page.length < this.batchSize) break;
    }
    return { position: comparePositions(position, live) < 0 ? live : position, applied };
  }
}
