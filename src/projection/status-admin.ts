import type { Pool } from '../db/pool.ts';
import type { EventStore, Position } from '../event-store/port.ts';
import { comparePositions } from '../event-store/port.ts';
import { type AuditEntry, projectionAudit } from './audit.ts';
import { type CheckpointRow, checkpoints } from './checkpoints.ts';
import { advisoryLockHeld, lockKeys } from './locks.ts';
import { countEventsAfter } from './rebuild.ts';
import { rebuildCheckpointName, rebuildRecords } from './rebuild-records.ts';
import type { Projection } from './types.ts';

/** Beyond this many events behind, counting stops (EventStoreDB has no cheap count). */
const LAG_SCAN_LIMIT = 10_000;
/** Behind by more than this, a running projection is reported as catching up. */
const CATCHING_UP_SECONDS = 5;

export type OperatorState = 'running' | 'catching_up' | 'rebuilding' | 'failed' | 'not_started';

export interface Lag {
  events: number;
  /** True when `events` is a lower bound (the count stopped at LAG_SCAN_LIMIT). */
  atLeast: boolean;
  /** Age of the oldest event not yet applied; 0 when none is waiting. */
  seconds: number;
}

export interface RebuildReport {
  version: number;
  reason: string;
  actor: string;
  startedAt: string;
  /** Whether a process is working on it now; false: interrupted, resumed by the next `rebuild`. */
  active: boolean;
  checkpoint: { commit: string; prepare: string } | null;
  lag: Lag;
  eventsApplied: number;
  lastError: string | null;
  failedEventId: string | null;
}

export interface ProjectionReport {
  name: string;
  /** The version in this code. */
  version: number;
  /** The version the live tables were built by (null: never started). */
  storedVersion: number | null;
  state: OperatorState;
  /** Whether a process holds this projection's runner lock (a service is applying events). */
  runnerActive: boolean;
  checkpoint: { commit: string; prepare: string } | null;
  head: { commit: string; prepare: string };
  lag: Lag;
  eventsApplied: number;
  lastError: string | null;
  failedEventId: string | null;
  rebuild: RebuildReport | null;
  /** The latest operator actions (retry, skip, rebuild), newest first. */
  audit: AuditEntry[];
}

const showPosition = (p: Position) => ({ commit: String(p.commit), prepare: String(p.prepare) });

/** How far `from` is behind the head of the log, in events and in the age of the oldest waiting event. */
export async function lagOf(
  store: EventStore,
  pool: Pool,
  from: Position,
  head: Position,
  types?: readonly string[],
): Promise<Lag> {
  if (comparePositions(from, head) >= 0) return { events: 0, atLeast: false, seconds: 0 };
  const [oldest] = await store.readAll({ from, limit: 1, types });
  const seconds = oldest ? Math.max(0, (Date.now() - oldest.recordedAt.getTime()) / 1000) : 0;
  const counted = await countEventsAfter(store, pool, from, types);
  if (counted !== undefined) return { events: counted, atLeast: false, seconds };
  const behind = await store.readAll({ from, limit: LAG_SCAN_LIMIT, types });
  const mine = types ? behind.filter((e) => types.includes(e.type)) : behind;
  return { events: mine.length, atLeast: behind.length === LAG_SCAN_LIMIT, seconds };
}

function stateOf(row: CheckpointRow | undefined, projection: Projection, rebuilding: boolean, lag: Lag) {
  if (row?.state === 'failed') return 'failed';
  if (rebuilding || (row && row.version < projection.version)) return 'rebuilding';
  if (!row) return 'not_started';
  if (row.state === 'catching_up' && lag.events > 0) return 'catching_up';
  return lag.seconds > CATCHING_UP_SECONDS ? 'catching_up' : 'running';
}

/**
 * What an operator needs per projection: version, checkpoint, head, lag, state, last error, the
 * rebuild under way and the latest audited actions. Read from the database, so it works beside a
 * running service or without one.
 */
export async function projectionReports(
  store: EventStore,
  pool: Pool,
  projections: readonly Projection[],
  options: { auditLimit?: number } = {},
): Promise<ProjectionReport[]> {
  const head = await store.head();
  const rows = new Map((await checkpoints.all(pool)).map((r) => [r.name, r]));
  const rebuilds = new Map((await rebuildRecords.all(pool)).map((r) => [r.projection, r]));
  const reports: ProjectionReport[] = [];
  for (const projection of projections) {
    const row = rows.get(projection.name);
    const record = rebuilds.get(projection.name);
    // Only the events the read model applies count: the others change nothing it shows, and an idle
    // projection stores its checkpoint past them only now and then (batch-committer.ts).
    const lag = row
      ? await lagOf(store, pool, row.position, head, projection.handles)
      : { events: 0, atLeast: false, seconds: 0 };
    let rebuild: RebuildReport | null = null;
    if (record) {
      const rb = rows.get(rebuildCheckpointName(projection.name));
      rebuild = {
        version: record.version,
        reason: record.reason,
        actor: record.actor,
        startedAt: record.startedAt.toISOString(),
        active: await advisoryLockHeld(pool, lockKeys.rebuild(projection.name)),
        checkpoint: rb ? showPosition(rb.position) : null,
        // The rebuild reads only the projection's own events: count those.
        lag: rb
          ? await lagOf(store, pool, rb.position, head, projection.handles)
          : { events: 0, atLeast: false, seconds: 0 },
        eventsApplied: rb?.eventsApplied ?? 0,
        lastError: rb?.lastError ?? null,
        failedEventId: rb?.failedEventId ?? null,
      };
    }
    reports.push({
      name: projection.name,
      version: projection.version,
      storedVersion: row?.version ?? null,
      state: stateOf(row, projection, record !== undefined, lag),
      runnerActive: await advisoryLockHeld(pool, lockKeys.runner(projection.name)),
      checkpoint: row ? showPosition(row.position) : null,
      head: showPosition(head),
      lag,
      eventsApplied: row?.eventsApplied ?? 0,
      lastError: row?.lastError ?? null,
      failedEventId: row?.failedEventId ?? null,
      rebuild,
      audit:
        options.auditLimit === 0
          ? []
          : await projectionAudit.recent(pool, projection.name, options.auditLimit ?? 3),
    });
  }
  return reports;
}
