import type { Pool } from '../../src/db/pool.ts';
import type { EventStore, Position, RecordedEvent } from '../../src/event-store/port.ts';
import { comparePositions, START } from '../../src/event-store/port.ts';
import { categoryOf } from '../../src/stream.ts';

/** What the console's event log shows of `$all`: newest first, filtered, a page at a time. */
export interface EventFilter {
  stream?: string;
  category?: string;
  type?: string;
  correlationId?: string;
  /** Recorded at or after. */
  from?: Date;
  /** Recorded before. */
  to?: Date;
  /** Only events before this position (the cursor of the next page). */
  before?: Position;
  limit: number;
}

/** An event as stored (data and metadata as the log holds them, not upcast). */
export interface LoggedEvent {
  id: string;
  stream: string;
  revision: bigint;
  position: Position;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  recordedAt: Date;
}

export interface EventPage {
  events: LoggedEvent[];
  /** The cursor of the next (older) page, when there is one. */
  next?: Position;
  /** Not the PostgreSQL store: only the newest `scanned` events of the log were searched. */
  scanned?: number;
}

interface Row {
  position: string;
  tx_id: string;
  stream_name: string;
  stream_revision: string;
  event_id: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

const fromRow = (r: Row): LoggedEvent => ({
  id: r.event_id,
  stream: r.stream_name,
  revision: BigInt(r.stream_revision),
  position: { commit: BigInt(r.tx_id), prepare: BigInt(r.position) },
  type: r.type,
  data: r.data,
  metadata: r.metadata,
  recordedAt: r.recorded_at,
});

const COLUMNS =
  'position, tx_id::text AS tx_id, stream_name, stream_revision, event_id, type, data, metadata, recorded_at';

/** How many events a store without SQL (EventStoreDB, the in-memory store) is searched through. */
const SCAN_LIMIT = 50_000;

/**
 * The PostgreSQL store is searched with SQL on the events table (newest first by its primary key; the
 * correlation id by its own index, migration 0030). Another store has no backwards filtered read in
 * the port, so the newest SCAN_LIMIT events are read and filtered here, and the page says so.
 */
export async function readEventLog(store: EventStore, pool: Pool, filter: EventFilter): Promise<EventPage> {
  if (store.kind === 'postgres') return readFromTable(pool, filter);
  return scan(store, filter);
}

async function readFromTable(pool: Pool, filter: EventFilter): Promise<EventPage> {
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.stream) where.push(`stream_name = ${param(filter.stream)}`);
  if (filter.category)
    where.push(`left(stream_name, ${param(filter.category.length + 1)}) = ${param(`${filter.category}-`)}`);
  if (filter.type) where.push(`type = ${param(filter.type)}`);
  if (filter.correlationId)
    where.push(
      `metadata ? 'correlationId' AND metadata ->> 'correlationId' = ${param(filter.correlationId)}`,
    );
  if (filter.from) where.push(`recorded_at >= ${param(filter.from)}`);
  if (filter.to) where.push(`recorded_at < ${param(filter.to)}`);
  if (filter.before)
    where.push(
      `(tx_id, position) < (${param(String(filter.before.commit))}::text::xid8, ${param(String(filter.before.prepare))}::bigint)`,
    );
  const { rows } = await pool.query<Row>(
    `SELECT ${COLUMNS} FROM events ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY tx_id DESC, position DESC LIMIT ${param(filter.limit + 1)}`,
    params,
  );
  const events = rows.slice(0, filter.limit).map(fromRow);
  return { events, next: rows.length > filter.limit ? events.at(-1)?.position : undefined };
}

const matches = (e: RecordedEvent, f: EventFilter) =>
  (!f.stream || e.stream === f.stream) &&
  (!f.category || categoryOf(e.stream) === f.category) &&
  (!f.type || e.type === f.type) &&
  (!f.correlationId || e.metadata.correlationId === f.correlationId) &&
  (!f.from || e.recordedAt >= f.from) &&
  (!f.to || e.recordedAt < f.to) &&
  (!f.before || comparePositions(e.position, f.before) < 0);

async function scan(store: EventStore, filter: EventFilter): Promise<EventPage> {
  // The newest SCAN_LIMIT events, read forwards (the port reads $all forwards only).
  const kept: RecordedEvent[] = [];
  let cursor = START;
  let read = 0;
  for (;;) {
    const page = await store.readAll({ from: cursor, limit: 1000 });
    for (const e of page) {
      read++;
      kept.push(e);
      if (kept.length > SCAN_LIMIT) kept.shift();
    }
    if (page.length < 1000) break;
    cursor = page.at(-1)!.position;
  }
  const found = kept.filter((e) => matches(e, filter)).reverse();
  const events = found.slice(0, filter.limit).map((e) => ({ ...e, metadata: { ...e.metadata } }));
  return {
    events,
    next: found.length > filter.limit ? events.at(-1)?.position : undefined,
    ...(read > SCAN_LIMIT ? { scanned: SCAN_LIMIT } : {}),
  };
}

/** One event by id, wherever it is. */
export async function readLoggedEvent(
  store: EventStore,
  pool: Pool,
  id: string,
): Promise<LoggedEvent | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
  if (store.kind === 'postgres') {
    const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM events WHERE event_id = $1`, [id]);
    return rows[0] && fromRow(rows[0]);
  }
  let cursor = START;
  for (;;) {
    const page = await store.readAll({ from: cursor, limit: 1000 });
    const found = page.find((e) => e.id === id);
    if (found) return { ...found, metadata: { ...found.metadata } };
    if (page.length < 1000) return undefined;
    cursor = page.at(-1)!.position;
  }
}

/** Streams of a category, by name (the PostgreSQL store's streams table; none listed elsewhere). */
export async function streamsOf(
  store: EventStore,
  pool: Pool,
  category: string,
  limit = 200,
): Promise<{ stream: string; revision: bigint }[]> {
  if (store.kind !== 'postgres') return [];
  const { rows } = await pool.query<{ stream_name: string; revision: string }>(
    `SELECT stream_name, revision FROM streams WHERE left(stream_name, $1) = $2 ORDER BY stream_name LIMIT $3`,
    [category.length + 1, `${category}-`, limit],
  );
  return rows.map((r) => ({ stream: r.stream_name, revision: BigInt(r.revision) }));
}
