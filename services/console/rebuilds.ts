import type { Logger } from 'pino';
import type { Pool } from '../../src/db/pool.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import { advisoryLockHeld, lockKeys } from '../../src/projection/locks.ts';
import { RebuildBusyError, RebuildRefusedError, rebuildProjection } from '../../src/projection/rebuild.ts';
import type { Projection } from '../../src/projection/types.ts';

/** A rebuild the console started in this process, as its progress callbacks tell it. */
export interface ConsoleRebuild {
  projection: string;
  version: number;
  actor: string;
  startedAt: Date;
  phase: 'starting' | 'building' | 'swapping' | 'swapped' | 'interrupted' | 'failed';
  processed: number;
  total?: number;
  resumed: boolean;
  finishedAt?: Date;
  seconds?: number;
  error?: string;
}

export { RebuildBusyError, RebuildRefusedError };

/**
 * The console's blue/green rebuilds: the same `rebuildProjection` as `stk admin projections rebuild`
 * (src/projection/rebuild.ts), run in the service's process in the background, audited with the
 * operator as its actor. Its progress is kept here for this process's pages; every process's console
 * also reads the rebuild's record and shadow checkpoint from the database (status-admin.ts). At shutdown
 * a rebuild stops after the batch in flight, and resumes from its checkpoint when started again.
 */
export class ConsoleRebuilds {
  private readonly runs = new Map<string, ConsoleRebuild>();
  private readonly running = new Set<Promise<void>>();
  private readonly abort = new AbortController();

  constructor(private readonly store: EventStore) {}

  get(name: string): ConsoleRebuild | undefined {
    return this.runs.get(name);
  }

  /** Starts a rebuild; refused at once when the projection must not be rebuilt or one is under way. */
  async start(
    projection: Projection,
    actor: string,
    { pool, logger }: { pool: Pool; logger: Logger },
  ): Promise<ConsoleRebuild> {
    if (projection.notRebuildable) throw new RebuildRefusedError(projection.name, projection.notRebuildable);
    const current = this.runs.get(projection.name);
    if ((current && !current.finishedAt) || (await advisoryLockHeld(pool, lockKeys.rebuild(projection.name))))
      throw new RebuildBusyError(projection.name);
    const run: ConsoleRebuild = {
      projection: projection.name,
      version: projection.version,
      actor,
      startedAt: new Date(),
      phase: 'starting',
      processed: 0,
      resumed: false,
    };
    this.runs.set(projection.name, run);
    const done = rebuildProjection(this.store, pool, projection, {
      actor,
      reason: 'operator',
      signal: this.abort.signal,
      onProgress: (p) => {
        run.phase = p.phase;
        run.processed = p.processed;
        run.total = p.total;
        run.resumed = p.resumed;
      },
    }).then(
      (result) => {
        run.phase = result.outcome;
        run.seconds = result.seconds;
        run.processed = result.processed;
      },
      (error: Error) => {
        run.phase = 'failed';
        run.error = error.message;
        logger.error({ err: error, projection: projection.name }, 'console rebuild failed');
      },
    );
    const tracked = done.finally(() => {
      run.finishedAt = new Date();
      this.running.delete(tracked);
    });
    this.running.add(tracked);
    return run;
  }

  /** Stops every rebuild after its batch in flight (resumable), and waits for them. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all([...this.running]);
  }
}

declare module '../../src/deps.ts' {
  interface ServiceParts {
    /** The rebuilds the operator console started in this process (services/console/rebuilds.ts). */
    consoleRebuilds: ConsoleRebuilds;
  }
}
