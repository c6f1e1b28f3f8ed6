import type { Pool } from '../db/pool.ts';
import type { EventStore } from '../event-store/port.ts';
import { checkpoints } from './checkpoints.ts';
import { RebuildBusyError, rebuildProjection } from './rebuild.ts';
import type { Projection } from './types.ts';

export interface VersionRebuildOptions {
  /** How long to wait before trying again when another process holds the rebuild or it failed. */
  retryMs?: number;
  /** How often to look again for tables older than the code (an older `stk admin` may have swapped some in). */
  checkEveryMs?: number;
  onError?: (error: unknown, context: string) => void;
}

const MAX_RETRY_MS = 30_000;

/**
 * Start-up: every projection whose stored version is older than its code is rebuilt in the background
 * (blue/green, as `stk admin projections rebuild` does). Its runner holds still meanwhile and the old
 * tables keep serving; the swap lets the runner go on with the new tables. One rebuild at a time.
 * It looks again now and then: an operator's rebuild run with older code would leave older tables.
 */
export class VersionRebuilds {
  private readonly abort = new AbortController();
  private done: Promise<void> = Promise.resolve();
  private wake?: () => void;

  constructor(
    private readonly store: EventStore,
    private readonly pool: Pool,
    private readonly projections: readonly Projection[],
    private readonly options: VersionRebuildOptions = {},
  ) {}

  start(): void {
    this.done = this.run().catch((error) => this.options.onError?.(error, 'version rebuilds'));
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.wake?.();
    await this.done;
  }

  private async outdated(projection: Projection): Promise<boolean> {
    const row = await checkpoints.get(this.pool, projection.name);
    return row !== undefined && row.version < projection.version;
  }

  private async run(): Promise<void> {
    while (!this.abort.signal.aborted) {
      // A database that does not answer for a while must not end the watch for good.
      await this.rebuildOutdated().catch((error) => this.options.onError?.(error, 'version rebuilds'));
      await this.pause(this.options.checkEveryMs ?? 10_000);
    }
  }

  private async rebuildOutdated(): Promise<void> {
    for (const projection of this.projections) {
      let retryMs = this.options.retryMs ?? 1000;
      while (!this.abort.signal.aborted && (await this.outdated(projection))) {
        try {
          const result = await rebuildProjection(this.store, this.pool, projection, {
            actor: 'system:startup',
            reason: 'version',
            signal: this.abort.signal,
          });
          if (result.outcome === 'swapped') break;
        } catch (error) {
          // Busy: another process is rebuilding it; when that one dies, this one resumes its work.
          if (!(error instanceof RebuildBusyError))
            this.options.onError?.(error, `${projection.name}: version rebuild`);
          await this.pause(retryMs);
          retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
        }
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
