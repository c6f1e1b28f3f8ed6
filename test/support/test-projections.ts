import { randomUUID } from 'node:crypto';
import type { Pool } from '../../src/db/pool.ts';
import type { EventStore, NewEvent, Position, RecordedEvent } from '../../src/event-store/port.ts';
import { comparePositions } from '../../src/event-store/port.ts';
import { ProjectionRunner } from '../../src/projection/runner.ts';
import type { Projection } from '../../src/projection/types.ts';

/** The event the test projection counts. */
export const COUNTED = 'TestCounterBumped';
/** An event the test projection does not handle: it moves the checkpoint and nothing else. */
export const IGNORED = 'TestNoiseHappened';

export interface CounterOptions {
  /** Event ids whose application throws (a poison event). */
  poison?: ReadonlySet<string>;
  /** Holds each batch's transaction open this long, so that a kill lands inside one. */
  delayMs?: number;
}

/**
 * Counts bumps per stream, and logs every application of an event. Deliberately not idempotent:
 * applying an event twice shows as a doubled count and a `times` of 2 in the log, so a test can
 * see it.
 */
export function counterProjection(name: string, options: CounterOptions = {}): Projection {
  const counts = `${name}_counts`;
  const applied = `${name}_applied`;
  return {
    name,
    version: 1,
    handles: [COUNTED],
    tables: {
      [counts]: (t) => [
        `CREATE TABLE ${t} (stream text PRIMARY KEY, bumps bigint NOT NULL, total bigint NOT NULL,
           last_revision bigint NOT NULL)`,
      ],
      [applied]: (t) => [
        `CREATE TABLE ${t} (event_id uuid PRIMARY KEY, stream text NOT NULL, revision bigint NOT NULL,
           times integer NOT NULL)`,
      ],
    },
    async apply(events, { tx, table }) {
      for (const e of events) {
        if (options.poison?.has(e.id)) throw new Error(`poisoned by ${e.id}`);
      }
      await tx.query(
        `INSERT INTO ${table(applied)} (event_id, stream, revision, times)
         SELECT id, stream, revision, 1 FROM unnest($1::uuid[], $2::text[], $3::bigint[]) AS e(id, stream, revision)
         ON CONFLICT (event_id) DO UPDATE SET times = ${table(applied)}.times + 1`,
        [events.map((e) => e.id), events.map((e) => e.stream), events.map((e) => String(e.revision))],
      );
      const perStream = new Map<string, { bumps: number; total: number; last: bigint }>();
      for (const e of events) {
        const s = perStream.get(e.stream) ?? { bumps: 0, total: 0, last: -1n };
        s.bumps += 1;
        s.total += (e.data as { by: number }).by;
        if (e.revision > s.last) s.last = e.revision;
        perStream.set(e.stream, s);
      }
      const rows = [...perStream];
      await tx.query(
        `INSERT INTO ${table(counts)} (stream, bumps, total, last_revision)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[])
         ON CONFLICT (stream) DO UPDATE SET bumps = ${table(counts)}.bumps + excluded.bumps,
           total = ${table(counts)}.total + excluded.total,
           last_revision = greatest(${table(counts)}.last_revision, excluded.last_revision)`,
        [
          rows.map(([s]) => s),
          rows.map(([, v]) => v.bumps),
          rows.map(([, v]) => v.total),
          rows.map(([, v]) => String(v.last)),
        ],
      );
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    },
  };
}

export interface ReadModel {
  counts: { stream: string; bumps: string; total: string; last_revision: string }[];
  applied: { event_id: string; stream: string; revision: string; times: number }[];
}

/** The full contents of a counter projection's tables, in a stable order. */
export async function readModel(pool: Pool, name: string): Promise<ReadModel> {
  const counts = await pool.query(`SELECT * FROM ${name}_counts ORDER BY stream`);
  const applied = await pool.query(`SELECT * FROM ${name}_applied ORDER BY event_id`);
  return { counts: counts.rows, applied: applied.rows };
}

/** The counts the log itself implies, computed by SQL straight from the events table. */
export async function countsFromLog(pool: Pool): Promise<ReadModel['counts']> {
  const { rows } = await pool.query(
    `SELECT stream_name AS stream, count(*)::text AS bumps, sum((data->>'by')::bigint)::text AS total,
       max(stream_revision)::text AS last_revision
     FROM events WHERE type = $1 GROUP BY stream_name ORDER BY stream_name`,
    [COUNTED],
  );
  return rows;
}

export async function handledCount(pool: Pool): Promise<number> {
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM events WHERE type = $1', [COUNTED]);
  return rows[0].n;
}

/** A bump of `by`, or (every `noiseEvery`-th event) an event the projection ignores. */
export function testEvent(i: number, noiseEvery = 4): NewEvent {
  return i % noiseEvery === noiseEvery - 1
    ? { id: randomUUID(), type: IGNORED, data: { note: `noise ${i}` } }
    : { id: randomUUID(), type: COUNTED, data: { by: (i % 7) + 1 } };
}

/**
 * Appends `count` test events over `streams` streams, `perAppend` events per append, from
 * `writers` concurrent writers. Returns the position of the last append to finish.
 */
export async function appendMany(
  store: EventStore,
  count: number,
  options: { streams?: number; perAppend?: number; writers?: number; prefix?: string } = {},
): Promise<Position> {
  const { streams = 40, perAppend = 100, writers = 4, prefix = 'counter' } = options;
  let next = 0;
  let last: Position = { commit: -1n, prepare: -1n };
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < count) {
        const from = next;
        const n = Math.min(perAppend, count - from);
        next += n;
        const events = Array.from({ length: n }, (_, k) => testEvent(from + k));
        const result = await store.append(`${prefix}-${Math.floor(from / perAppend) % streams}`, events);
        if (comparePositions(result.position, last) > 0) last = result.position;
      }
    }),
  );
  return last;
}

/**
 * Builds the counter read model from the start of the log under a new name, in this process and
 * without interruption: the reference a crashed or contended runner's tables must equal.
 */
export async function buildFromScratch(store: EventStore, pool: Pool, name: string): Promise<ReadModel> {
  const runner = new ProjectionRunner(counterProjection(name), store, pool, { batchSize: 1000 });
  await runner.start();
  try {
    await runner.waitFor(await store.head(), 60_000);
  } finally {
    await runner.stop();
  }
  return readModel(pool, name);
}

/** The projection's checkpoint row as the database holds it. */
export async function checkpointOf(pool: Pool, name: string) {
  const { rows } = await pool.query(
    `SELECT commit_position, prepare_position, events_applied::int AS events_applied, state, last_error,
       failed_event_id FROM projection_checkpoints WHERE name = $1`,
    [name],
  );
  return rows[0] as
    | {
        commit_position: string;
        prepare_position: string;
        events_applied: number;
        state: string;
        last_error: string | null;
        failed_event_id: string | null;
      }
    | undefined;
}

/**
 * The projection, failing at the events `isPoison` picks, as a real one fails at a poison event: its
 * runner stops there, and its read model stays behind everything after it until an operator acts.
 */
export function poisonedBy(projection: Projection, isPoison: (event: RecordedEvent) => boolean): Projection {
  return {
    ...projection,
    async apply(events, ctx) {
      const poison = events.find(isPoison);
      if (poison) throw new Error(`poison event ${poison.id} in ${poison.stream}`);
      await projection.apply(events, ctx);
    },
  };
}
