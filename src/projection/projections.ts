import type { Pool } from '../db/pool.ts';
import type { EventStore, Position } from '../event-store/port.ts';
import { checkpoints } from './checkpoints.ts';
import { ProjectionRunner, type RunnerOptions } from './runner.ts';
import { lagOf } from './status-admin.ts';
import type { Projection, ProjectionState, ProjectionStatus } from './types.ts';
import { VersionRebuilds } from './version-rebuilds.ts';

const SERVING = new Set<ProjectionState>(['running', 'catching_up', 'standby', 'rebuilding']);

/** The read models named in a read-your-writes wait did not reach the position in time. */
export class ProjectionLagError extends Error {
  constructor(
    readonly projections: readonly string[],
    timeoutMs: number,
  ) {
    super(`projections ${projections.join(', ')} did not reach the position in ${timeoutMs} ms`);
  }
}

/** Every projection of the service, each with its own runner. */
export class Projections {
  readonly runners = new Map<string, ProjectionRunner>();
  /** Operations: rebuilds of projections whose code version is newer than their tables (see rebuild.ts). */
  private versionRebuilds?: VersionRebuilds;

  constructor(
    private readonly store: EventStore,
    private readonly pool: Pool,
    projections: readonly Projection[],
    private readonly options: RunnerOptions = {},
  ) {
    for (const p of projections) this.runners.set(p.name, new ProjectionRunner(p, store, pool, options));
  }

  async start(): Promise<void> {
    await Promise.all([...this.runners.values()].map((r) => r.start()));
    const all = [...this.runners.values()].map((r) => r.projection);
    this.versionRebuilds = new VersionRebuilds(this.store, this.pool, all, { onError: this.options.onError });
    this.versionRebuilds.start();
  }

  async stop(): Promise<void> {
    await this.versionRebuilds?.stop();
    await Promise.all([...this.runners.values()].map((r) => r.stop()));
  }

  runner(name: string): ProjectionRunner {
    const runner = this.runners.get(name);
    if (!runner) throw new Error(`unknown projection ${name}`);
    return runner;
  }

  /**
   * Read-your-writes: resolves once the given projections (default: all) have passed `position`;
   * rejects with ProjectionLagError when they have not after `timeoutMs`.
   */
  async waitFor(position: Position, projections?: readonly Projection[], timeoutMs = 5000): Promise<void> {
    const runners = projections ? projections.map((p) => this.runner(p.name)) : [...this.runners.values()];
    const reached = await Promise.all(
      runners.map((r) =>
        r.waitFor(position, timeoutMs).then(
          () => true,
          () => false,
        ),
      ),
    );
    const behind = runners.filter((_, i) => !reached[i]).map((r) => r.projection.name);
    if (behind.length > 0) throw new ProjectionLagError(behind, timeoutMs);
  }

  anyFailed(): boolean {
    return this.failedHere().length > 0;
  }

  /** The projections whose runner in this process has stopped at a poison event. */
  failedHere(): string[] {
    return [...this.runners.values()]
      .filter((r) => r.currentState === 'failed')
      .map((r) => r.projection.name);
  }

  /**
   * The runners of this process that are not serving, by state, for /readyz: `retrying` (lost the
   * database), `failed`, `starting`, `stopped`. Standby (another process holds the lock), catching up
   * and rebuilding (the old version keeps serving) count as serving.
   */
  notServing(): { name: string; state: ProjectionState }[] {
    return [...this.runners.values()]
      .filter((r) => !SERVING.has(r.currentState))
      .map((r) => ({ name: r.projection.name, state: r.currentState }));
  }

  /**
   * The projections that are failed, here or in the process holding their lock: a standby's runner
   * never sees the poison event, but the holder records the failure in the checkpoint row.
   */
  async failedNames(): Promise<string[]> {
    const here = new Set(this.failedHere());
    const stored = (await checkpoints.all(this.pool)).filter((r) => r.state === 'failed').map((r) => r.name);
    return [...this.runners.keys()].filter((name) => here.has(name) || stored.includes(name));
  }

  async status(): Promise<ProjectionStatus[]> {
    const head = await this.store.head();
    const rows = new Map((await checkpoints.all(this.pool)).map((r) => [r.name, r]));
    return Promise.all(
      [...this.runners.values()].map(async (runner) => {
        const row = rows.get(runner.projection.name);
        const position = row?.position ?? runner.position;
        const lag = await lagOf(this.store, this.pool, position, head, runner.projection.handles);
        return {
          name: runner.projection.name,
          version: runner.projection.version,
          state: row?.state === 'failed' ? 'failed' : runner.currentState,
          checkpoint: { commit: String(position.commit), prepare: String(position.prepare) },
          head: { commit: String(head.commit), prepare: String(head.prepare) },
          lagEvents: lag.events,
          lagSeconds: lag.seconds,
          eventsApplied: row?.eventsApplied ?? 0,
          lastError: row?.lastError ?? null,
          failedEventId: row?.failedEventId ?? null,
        } satisfies ProjectionStatus;
      }),
    );
  }
}
