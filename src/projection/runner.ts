import pg from 'pg';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { backoffMs } from '../db/backoff.ts';
import type { Pool } from '../db/pool.ts';
import { inTransaction } from '../db/pool.ts';
import type { EventStore, Position } from '../event-store/port.ts';
import { comparePositions } from '../event-store/port.ts';
import { BatchCommitter } from './batch-committer.ts';
import { type CheckpointRow, checkpoints } from './checkpoints.ts';
import { followLive, type LiveSlot } from './live-follow.ts';
import { lockKeys } from './locks.ts';
import type { Projection, ProjectionState } from './types.ts';

export interface RunnerOptions {
  /** Events per transaction at most. */
  batchSize?: number;
  /** How often a runner without the lock tries to take it over. */
  standbyRetryMs?: number;
  /** How often a failed or version-paused runner re-reads its checkpoint row (operations: retry, skip, swap). */
  repairPollMs?: number;
  onError?: (error: unknown, context: string) => void;
  /**
   * After each batch commits: a reactor's new work items are there for the workers to claim. `applied`:
   * the events the batch applied (0: only the checkpoint moved, nothing can have been enqueued).
   */
  onCommitted?: (projection: string, applied: number) => void;
}

/**
 * Keeps one projection's tables up to date with the log: pages through history, then follows live.
 * Each batch and the checkpoint it reaches commit together, so a crash loses nothing and applies
 * nothing twice. Across processes only the holder of the projection's advisory lock runs; the others
 * wait on standby. The runner supervises itself: when its database, its lock connection or its live tail
 * goes away it lets go of the lock, waits out a backoff ('retrying') and starts over from its stored
 * checkpoint, for as long as it takes.
 */
export class ProjectionRunner {
  private readonly batches: BatchCommitter;
  private state: ProjectionState = 'starting';
  private lockClient?: pg.Client;
  /** Set when the lock connection dies under a running loop: the loop must stop applying and restart. */
  private lockLost?: Error;
  /** Restarts since the runner last reached the live tail: the next backoff. */
  private attempt = 0;
  private reason?: string;
  private readonly live: LiveSlot = {};
  private stopped = false;
  private wakeStandby?: () => void;
  private done?: Promise<void>;
  private readonly batchSize: number;
  private readonly standbyRetryMs: number;
  private readonly repairPollMs: number;

  constructor(
    readonly projection: Projection,
    private readonly store: EventStore,
    private readonly pool: Pool,
    private readonly options: RunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 500;
    this.standbyRetryMs = options.standbyRetryMs ?? 1000;
    this.repairPollMs = options.repairPollMs ?? 1000;
    this.batches = new BatchCommitter(projection, pool, {
      isFailed: () => this.isFailed(),
      markFailed: () => {
        this.state = 'failed';
      },
      onError: (error, context) => this.options.onError?.(error, context),
      committed: (applied) => this.options.onCommitted?.(projection.name, applied),
      source: store,
    });
  }

  get currentState(): ProjectionState {
    return this.state;
  }

  get position(): Position {
    return this.batches.position;
  }

  /** Why the runner is retrying (the last error's message); undefined once it runs again. */
  get lastError(): string | undefined {
    return this.reason;
  }

  private isFailed(): boolean {
    return this.state === 'failed';
  }

  /** Starts in the background; resolves once the runner either holds the lock or went on standby. */
  async start(): Promise<void> {
    await this.ensureTables();
    const row = await checkpoints.ensure(this.pool, this.projection.name, this.projection.version);
    this.batches.markCommitted(row.position);
    // A failed projection still takes its lock: it waits there for an operator's retry or skip.
    if (row.state === 'failed') this.state = 'failed';
    await this.tryLock();
    this.done = this.supervise();
  }

  /** Runs the loop; whatever stops it other than `stop` (a lost database) restarts it after a backoff. */
  private async supervise(): Promise<void> {
    let lockTried = true;
    while (!this.stopped) {
      try {
        await this.run(lockTried);
        return;
      } catch (error) {
        if (this.stopped) return;
        this.reason = error instanceof Error ? error.message : String(error);
        this.state = 'retrying';
        this.options.onError?.(error, `${this.projection.name}: restarting after a backoff`);
        this.live.current?.unsubscribe();
        await this.batches.settle();
        // Another process may take over meanwhile; this one starts over from the stored checkpoint.
        await this.releaseLock();
        this.lockLost = undefined;
        // A stop that came meanwhile found no pause to cut short.
        if (this.stopped) return;
        await this.pauseFor(backoffMs(this.attempt++));
        lockTried = false;
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.live.current?.unsubscribe();
    this.wakeStandby?.();
    await this.done;
    await this.batches.settle();
    if (this.lockClient) await this.batches.recordIdleProgress().catch(() => {});
    await this.releaseLock();
    if (this.state !== 'failed') this.state = 'stopped';
  }

  /** Resolves once this projection has applied everything up to `position` (read-your-writes). */
  async waitFor(position: Position, timeoutMs = 5000): Promise<void> {
    if (comparePositions(this.position, position) >= 0) return;
    if (this.lockClient) {
      await firstValueFrom(
        this.batches.positions.pipe(
          filter((p) => comparePositions(p, position) >= 0),
          timeout({ first: timeoutMs }),
        ),
      );
      return;
    }
    // Another process runs this projection: watch its checkpoint in the database.
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const row = await checkpoints.get(this.pool, this.projection.name);
      if (row && comparePositions(row.position, position) >= 0) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`projection ${this.projection.name} did not reach the position in ${timeoutMs} ms`);
  }

  private async ensureTables(): Promise<void> {
    await inTransaction(this.pool, async (tx) => {
      // Two processes starting at once must not both create the same table.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKeys.ddl(this.projection.name)]);
      for (const [logical, ddl] of Object.entries(this.projection.tables)) {
        const { rows } = await tx.query('SELECT to_regclass($1) AS t', [logical]);
        if (rows[0].t === null) for (const statement of ddl(logical)) await tx.query(statement);
      }
    });
  }

  private async tryLock(): Promise<boolean> {
    const client = new pg.Client(this.pool.options);
    // The lock lives and dies with this connection: losing it (the database went away, or an operator
    // terminated the session) means another process may now hold the lock.
    client.on('error', (error) => this.lockGone(client, error));
    client.on('end', () => this.lockGone(client, new Error('the lock connection closed')));
    try {
      await client.connect();
      const { rows } = await client.query('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [
        lockKeys.runner(this.projection.name),
      ]);
      if (rows[0].ok) {
        this.lockClient = client;
        return true;
      }
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    await client.end().catch(() => {});
    return false;
  }

  private lockGone(client: pg.Client, error: Error): void {
    if (this.lockClient !== client) return;
    this.lockClient = undefined;
    if (this.stopped) return;
    this.lockLost = error;
    // Cut the live follow and any pause short: the loop notices the loss and restarts.
    this.live.current?.unsubscribe();
    this.wakeStandby?.();
  }

  /** Lets go of the lock (cleared first, so that its connection's end is not taken for a loss). */
  private async releaseLock(): Promise<void> {
    const client = this.lockClient;
    this.lockClient = undefined;
    await client?.end().catch(() => {});
  }

  /** The loop: standby until it holds the lock, then catch up and follow live. Throws to restart. */
  private async run(lockTried: boolean): Promise<void> {
    let tryNow = !lockTried;
    while (!this.stopped) {
      if (this.lockLost) throw this.lockLost;
      // Released for newer code (holdWhileBlocked) or never taken: never apply without the lock.
      if (!this.lockClient) {
        if (tryNow && (await this.tryLock())) continue;
        tryNow = true;
        this.state = 'standby';
        await this.pauseFor(this.standbyRetryMs);
        continue;
      }
      const row = await checkpoints.get(this.pool, this.projection.name);
      if (row) this.batches.markCommitted(row.position);
      if (row && (await this.holdWhileBlocked(row))) continue;
      this.state = 'catching_up';
      await this.catchUp();
      if (this.stopped) return;
      if (this.isFailed()) continue;
      if (this.lockLost) continue;
      this.state = 'running';
      this.attempt = 0;
      this.reason = undefined;
      await followLive(this.store, this.batches, this.batchSize, this.live);
    }
  }

  /**
   * Operations (docs/operations.md): a failed projection waits for an operator's retry or skip to clear
   * its row; a row of an older version waits for its rebuild's swap (this code must not write to the
   * old version's tables), a newer one is left to newer code, which gets the lock. True while blocked,
   * after one poll pause.
   */
  private async holdWhileBlocked(row: CheckpointRow): Promise<boolean> {
    if (row.state === 'failed') this.state = 'failed';
    else if (row.version < this.projection.version) this.state = 'rebuilding';
    else if (row.version > this.projection.version) {
      this.state = 'standby';
      await this.releaseLock();
    } else return false;
    await this.pauseFor(this.repairPollMs);
    return true;
  }

  /** A pause that `stop` cuts short. */
  private pauseFor(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeStandby = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Pages through the log until a page comes back short: history is applied, go live. */
  private async catchUp(): Promise<void> {
    while (!this.stopped && !this.lockLost) {
      const page = await this.store.readAll({ from: this.position, limit: this.batchSize });
      if (page.length === 0) return;
      if (!(await this.batches.applyBatch(page))) return;
      if (page.length < this.batchSize) return;
    }
  }
}
