import type { Pool } from '../db/pool.ts';
import type { EventStore, Position } from '../event-store/port.ts';
import { comparePositions } from '../event-store/port.ts';
import { type AuditEntry, projectionAudit } from './audit.ts';
import { type CheckpointRow, checkpoints } from './checkpoints.ts';
import { advisoryLocksHeld, lockKeys } from './locks.ts';
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

/** A position to measure from, and the event types that count (all when absent). */
export interface LagFrom {
  from: Position;
  types?: readonly string[];
}

const NO_LAG: Lag = { events: 0, atLeast: false, seconds: 0 };
const ageOf = (recordedAt: Date | null | undefined) =>
  recordedAt ? Math.max(0, (Date.now() - recordedAt.getTime()) / 1000) : 0;

/**
 * How far each `from` is behind the head of the log, in events and in the age of the oldest waiting
 * event. On PostgreSQL one statement answers them all (a scrape of /metrics under load used to wait
 * for a pooled connection three times a projection); elsewhere each is counted by reading.
 */
export async function lagsOf(
  store: EventStore,
  pool: Pool,
  wanted: readonly LagFrom[],
  head: Position,
): Promise<Lag[]> {
  const lags: Lag[] = wanted.map(() => NO_LAG);
  const behind = [...wanted.keys()].filter((i) => comparePositions(wanted[i]!.from, head) < 0);
  if (behind.length === 0) return lags;
  if (store.kind === 'postgres') {
    const items = behind.map((i) => {
      const { from, types } = wanted[i]!;
      return { i, tx: from.commit < 0n ? '0' : String(from.commit), pos: String(from.prepare), types };
    });
    const { rows } = await pool.query<{ i: number; n: string; oldest: Date | null }>(
      `SELECT w.i, c.n, c.oldest
       FROM jsonb_to_recordset($1::jsonb) AS w(i int, tx text, pos bigint, types text[]),
       LATERAL (SELECT count(*) AS n, min(recorded_at) AS oldest FROM events
                WHERE (tx_id, position) > (w.tx::xid8, w.pos)
                  AND (w.types IS NULL OR type = ANY(w.types))) AS c`,
      [JSON.stringify(items)],
    );
    for (const row of rows)
      lags[row.i] = { events: Number(row.n), atLeast: false, seconds: ageOf(row.oldest) };
    return lags;
  }
  // EventStoreDB has no cheap count: read up to LAG_SCAN_LIMIT events.
  for (const i of behind) {
    const { from, types } = wanted[i]!;
    const read = await store.readAll({ from, limit: LAG_SCAN_LIMIT, types });
    const mine = types ? read.filter((e) => types.includes(e.type)) : read;
    lags[i] = {
      events: mine.length,
      atLeast: read.length === LAG_SCAN_LIMIT,
      seconds: ageOf(mine[0]?.recordedAt),
    };
  }
  return lags;
}

/** How far `from` is behind the head of the log (see lagsOf). */
export async function lagOf(
  store: EventStore,
  pool: Pool,
  from: Position,
  head: Position,
  types?: readonly string[],
): Promise<Lag> {
  return (await lagsOf(store, pool, [{ from, types }], head))[0]!;
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
  // Every lag and lock in one statement each, not a few round trips a projection.
  const froms: LagFrom[] = [];
  const lagIndex = (position: Position | undefined, types: readonly string[]) =>
    position ? froms.push({ from: position, types }) - 1 : -1;
  const wanted = projections.map((projection) => ({
    projection,
    row: rows.get(projection.name),
    record: rebuilds.get(projection.name),
    rebuildRow: rows.get(rebuildCheckpointName(projection.name)),
  }));
  // Only the events the read model applies count: the others change nothing it shows, and an idle
  // projection stores its checkpoint past them only now and then (batch-committer.ts). A rebuild
  // reads only those events too.
  const indexes = wanted.map(({ projection, row, record, rebuildRow }) => ({
    live: lagIndex(row?.position, projection.handles),
    rebuild: record ? lagIndex(rebuildRow?.position, projection.handles) : -1,
  }));
  const lags = await lagsOf(store, pool, froms, head);
  const lagAt = (i: number) => (i < 0 ? NO_LAG : lags[i]!);
  const held = await advisoryLocksHeld(
    pool,
    projections.flatMap((p) => [lockKeys.runner(p.name), lockKeys.rebuild(p.name)]),
  );
  const reports: ProjectionReport[] = [];
  for (const [n, { projection, row, record, rebuildRow: rb }] of wanted.entries()) {
    const lag = lagAt(indexes[n]!.live);
    const rebuild: RebuildReport | null = record
      ? {
          version: record.version,
          reason: record.reason,
          actor: record.actor,
          startedAt: record.startedAt.toISOString(),
          active: held.has(lockKeys.rebuild(projection.name)),
          checkpoint: rb ? showPosition(rb.position) : null,
          lag: lagAt(indexes[n]!.rebuild),
          eventsApplied: rb?.eventsApplied ?? 0,
          lastError: rb?.lastError ?? null,
          failedEventId: rb?.failedEventId ?? null,
        }
      : null;
    reports.push({
      name: projection.name,
      version: projection.version,
      storedVersion: row?.version ?? null,
      state: stateOf(row, projection, record !== undefined, lag),
      runnerActive: held.has(lockKeys.runner(projection.name)),
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
