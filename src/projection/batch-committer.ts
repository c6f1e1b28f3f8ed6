import { BehaviorSubject, type Observable } from 'rxjs';
import type { Pool, PoolClient } from '../db/pool.ts';
import { inTransaction } from '../db/pool.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import type { EventStore, Position, RecordedEvent } from '../event-store/port.ts';
import { comparePositions, START } from '../event-store/port.ts';
import { applyContext } from './apply-context.ts';
import { type CheckpointRow, type CheckpointTableRow, checkpoints } from './checkpoints.ts';
import type { Projection } from './types.ts';

/** Thrown inside a batch when another runner moved the checkpoint first: nothing of ours is committed. */
class CheckpointMoved extends Error {}

/** Never apply on top of a checkpoint someone else moved (a rebuild's swap, a second runner). */
function guard(row: CheckpointRow | undefined, expected: Position): void {
  if (!row || comparePositions(row.position, expected) !== 0) throw new CheckpointMoved();
}

/** How often a projection that handles none of the recent events still records its progress. */
const IDLE_CHECKPOINT_MS = 1000;

export interface CommitterHooks {
  /** A failed projection records no idle progress. */
  isFailed: () => boolean;
  /** Called once a poison event is recorded, before `onError` hears of it. */
  markFailed: () => void;
  onError?: (error: unknown, context: string) => void;
  /**
   * After each transaction of this committer commits (it may have held readers of the log back), with
   * the events it applied: 0 for a checkpoint moved over events the projection does not handle.
   */
  committed?: (applied: number) => void;
  /** The clock of the idle window (milliseconds, as Date.now). */
  now?: () => number;
  /** The store the events come from: where they are in SQL, if they are (ApplyContext.eventDataSql). */
  source?: Pick<EventStore, 'eventDataSql'>;
}

/**
 * Writes one projection's batches: each batch and the checkpoint it reaches commit together, and never
 * on top of a checkpoint someone else moved. Owns the position the runner has reached and the checkpoint
 * as stored, which differ while batches of unhandled events are skipped in memory.
 */
export class BatchCommitter {
  private readonly position$ = new BehaviorSubject<Position>(START);
  /** The position reached, the current one first: what read-your-writes waits on. */
  readonly positions: Observable<Position> = this.position$.asObservable();
  private committed: Position = START;
  private committedAt = 0;
  private idleFlush?: NodeJS.Timeout;
  private inflight: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly projection: Projection,
    private readonly pool: Pool,
    private readonly hooks: CommitterHooks,
  ) {}

  private now(): number {
    return this.hooks.now?.() ?? Date.now();
  }

  get position(): Position {
    return this.position$.value;
  }

  /** The checkpoint as stored: the guard compares against it, not against the in-memory position. */
  markCommitted(position: Position): void {
    this.committed = position;
    this.committedAt = this.now();
    this.position$.next(position);
  }

  /** Applies one batch with its checkpoint; false when the runner must stop or re-read its checkpoint. */
  async applyBatch(batch: readonly RecordedEvent[]): Promise<boolean> {
    const from = this.position$.value;
    const fresh = batch.filter((e) => comparePositions(e.position, from) > 0);
    if (fresh.length === 0) return true;
    try {
      const committing = this.commit(fresh);
      // stop() waits for the batch under way, but its failure is handled here, not re-thrown there.
      this.inflight = committing.catch(() => {});
      await committing;
      return true;
    } catch (error) {
      if (error instanceof CheckpointMoved) return false;
      // The database went away or a statement ran past its bound: no event is to blame, and the
      // runner retries the batch once the database answers again.
      if (isDatabaseUnavailable(error)) throw error;
      return this.isolatePoison(fresh, error);
    }
  }

  /** Waits for the batch (or idle checkpoint write) under way and cancels the pending idle write. */
  async settle(): Promise<void> {
    await this.inflight;
    clearTimeout(this.idleFlush);
  }

  /** Stores a position reached by skipping events, so that status and other processes see it too. */
  async recordIdleProgress(): Promise<void> {
    // Both read now: batches go on while this write is under way. Guarding on the checkpoint as it is
    // by then would let a batch that committed meanwhile be overwritten by this older position, and
    // taking this position as the current one would move the runner back over events it skipped since.
    const position = this.position$.value;
    const expected = this.committed;
    if (comparePositions(position, expected) <= 0 || this.hooks.isFailed()) return;
    await inTransaction(this.pool, async (tx) => {
      await this.guardCheckpoint(tx, expected);
      await checkpoints.advance(tx, this.projection.name, position, 0);
    });
    this.hooks.committed?.(0);
    this.committed = position;
    this.committedAt = this.now();
    if (comparePositions(position, this.position$.value) > 0) this.position$.next(position);
  }

  private async commit(events: readonly RecordedEvent[]): Promise<void> {
    const handled = events.filter((e) => this.projection.handles.includes(e.type));
    const last = events[events.length - 1]!.position;
    // A batch of nothing this projection handles changes no row: move on in memory and write the
    // checkpoint at most once a second, instead of one transaction per batch for every projection.
    // After a crash those events are read again and skipped again.
    if (handled.length === 0 && this.now() - this.committedAt < IDLE_CHECKPOINT_MS) {
      this.position$.next(last);
      this.idleFlush ??= setTimeout(() => {
        this.idleFlush = undefined;
        this.inflight = this.inflight.then(() => this.recordIdleProgress()).catch(() => {});
      }, IDLE_CHECKPOINT_MS);
      return;
    }
    await this.inBatch(
      async (tx) => {
        if (handled.length > 0)
          await this.projection.apply(handled, applyContext(tx, undefined, this.hooks.source));
      },
      checkpoints.advanceSql(this.projection.name, last, handled.length),
    );
    this.hooks.committed?.(handled.length);
    this.markCommitted(last);
  }

  /**
   * A batch's transaction in as few round trips as the projection allows: BEGIN, asynchronous commit
   * and the checkpoint guard in the first, the checkpoint's advance and COMMIT in the last. Read-your-
   * writes waits on these commits, and the rows a batch locks are held until the last one returns.
   * Asynchronous commit: a server crash may lose the last batches, never split one (their checkpoint
   * moves with them), and the runner applies them again after the restart; the log itself is written
   * with synchronous commits.
   */
  private async inBatch(apply: (tx: PoolClient) => Promise<void>, advance: string): Promise<void> {
    const tx = await this.pool.connect();
    let broken: Error | undefined;
    try {
      const name = this.projection.name;
      const first = (await tx.query(
        `BEGIN; SET LOCAL synchronous_commit = off; ${checkpoints.getForUpdateSql(name)}`,
      )) as unknown as { rows: CheckpointTableRow[] }[];
      const row = first[2]!.rows[0];
      guard(row && checkpoints.toRow(row), this.committed);
      await apply(tx);
      await tx.query(`${advance}; COMMIT`);
    } catch (error) {
      broken = await tx.query('ROLLBACK').then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      throw error;
    } finally {
      tx.release(broken);
    }
  }

  private async guardCheckpoint(tx: PoolClient, expected: Position): Promise<void> {
    guard(await checkpoints.get(tx, this.projection.name, true), expected);
  }

  /** Re-applies the failed batch one event at a time to find the event that throws, and stops there. */
  private async isolatePoison(events: readonly RecordedEvent[], batchError: unknown): Promise<boolean> {
    for (const event of events) {
      try {
        await this.commit([event]);
      } catch (error) {
        if (error instanceof CheckpointMoved) return false;
        if (isDatabaseUnavailable(error)) throw error;
        const message = error instanceof Error ? error.message : String(error ?? batchError);
        // Recorded before it shows as failed here, so whoever sees the state also finds the event.
        await checkpoints
          .setState(this.pool, this.projection.name, 'failed', { message, eventId: event.id })
          .catch((e) => this.hooks.onError?.(e, `${this.projection.name}: recording the failure`));
        this.hooks.markFailed();
        this.hooks.onError?.(error, `${this.projection.name}: poison event ${event.id}`);
        return false;
      }
    }
    return true;
  }
}
