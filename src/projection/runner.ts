import pg from 'pg';
import { filter, firstValueFrom, type Subscription, timeout } from 'rxjs';
import type { Pool } from '../db/pool.ts';
import { inTransaction } from '../db/pool.ts';
import type { EventStore, Position, RecordedEvent } from '../event-store/port.ts';
import { comparePositions } from '../event-store/port.ts';
import { BatchCommitter } from './batch-committer.ts';
import { type CheckpointRow, checkpoints } from './checkpoints.ts';
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
  /** After each batch commits: a reactor's new work items are there for the workers to claim. */
  onCommitted?: (projection: string) => void;
}

/** Live tail events buffered beyond this drop the runner back to paging (the log outran the tables). */
const MAX_LIVE_BACKLOG = 10_000;

/**
 * Keeps one projection's tables up to date with the log: pages through history, then follows live.
 * Each batch and the checkpoint it reaches commit together, so a crash loses nothing and applies
 * nothing twice. Across processes only the holder of the projection's advisory lock runs; the others
 * wait on standby.
 */
export class ProjectionRunner {
  private readonly batches: BatchCommitter;
  private state: ProjectionState = 'starting';
  private lockClient?: pg.Client;
  private live?: Subscription;
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
      // A batch's transaction keeps the log's readers below it: once it commits, they go on at once.
      committed: () => {
        this.store.nudge?.();
        this.options.onCommitted?.(projection.name);
      },
    });
  }

  get currentState(): ProjectionState {
    return this.state;
  }

  get position(): Position {
    return this.batches.position;
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
    const acquired = await this.tryLock();
    this.done = this.run(acquired).catch((error) => this.options.onError?.(error, this.projection.name));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.live?.unsubscribe();
    this.wakeStandby?.();
    await this.done;
    await this.batches.settle();
    if (this.lockClient) await this.batches.recordIdleProgress().catch(() => {});
    await this.lockClient?.end().catch(() => {});
    this.lockClient = undefined;
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
    client.on('error', () => {});
    await client.connect();
    const { rows } = await client.query('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [
      lockKeys.runner(this.projection.name),
    ]);
    if (rows[0].ok) {
      this.lockClient = client;
      return true;
    }
    await client.end();
    return false;
  }

  private async run(acquired: boolean): Promise<void> {
    let holding = acquired;
    while (!holding && !this.stopped) {
      this.state = 'standby';
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.standbyRetryMs);
        this.wakeStandby = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (!this.stopped) holding = await this.tryLock();
    }
    while (!this.stopped) {
      // Released below for newer code (holdWhileBlocked): never apply without the lock.
      if (!this.lockClient) {
        this.state = 'standby';
        await this.pauseFor(this.standbyRetryMs);
        if (!this.stopped) await this.tryLock();
        continue;
      }
      const row = await checkpoints.get(this.pool, this.projection.name);
      if (row) this.batches.markCommitted(row.position);
      if (row && (await this.holdWhileBlocked(row))) continue;
      this.state = 'catching_up';
      await this.catchUp();
      if (this.stopped) return;
      if (this.isFailed()) continue;
      this.state = 'running';
      await this.followLive();
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
      await this.lockClient?.end().catch(() => {});
      this.lockClient = undefined;
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
    while (!this.stopped) {
      const page = await this.store.readAll({ from: this.position, limit: this.batchSize });
      if (page.length === 0) return;
      if (!(await this.batches.applyBatch(page))) return;
      if (page.length < this.batchSize) return;
    }
  }

  /**
   * Follows the live tail. An idle runner applies what arrives at once: a page the tail hands over
   * (synchronously, event by event) becomes one batch on the next microtask, with no batch window to
   * wait out, because read-your-writes waits on it. While a batch is being applied, what arrives
   * meanwhile gathers into the next one, so batches grow with the load by themselves. Returns to paging
   * when the tail outruns the tables.
   */
  private followLive(): Promise<void> {
    return new Promise<void>((resolve) => {
      const queue: RecordedEvent[] = [];
      let draining = false;
      // This follow's own subscription: a drain of an ended follow must not go on into the next one.
      let following: Subscription | undefined;
      const finish = () => {
        following?.unsubscribe();
        if (this.live === following) this.live = undefined;
        resolve();
      };
      const drain = async () => {
        try {
          while (queue.length > 0 && following && !following.closed) {
            if (queue.length > MAX_LIVE_BACKLOG) return finish();
            if (!(await this.batches.applyBatch(queue.splice(0, this.batchSize)))) return finish();
          }
        } catch (error) {
          this.options.onError?.(error, this.projection.name);
          return finish();
        }
        // Cleared in the same turn as the empty-queue check: an event arriving later starts a drain.
        draining = false;
      };
      following = this.store.subscribeAll(this.position).subscribe({
        next: (event) => {
          queue.push(event);
          if (draining) return;
          draining = true;
          queueMicrotask(drain);
        },
        error: (e) => {
          this.options.onError?.(e, this.projection.name);
          finish();
        },
      });
      following.add(() => resolve());
      this.live = following;
    });
  }
}
