import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Observable } from 'rxjs';
import { AppendedData } from './appended-data.ts';
import { atomicParts } from './atomic.ts';
import { appendEach } from './each-stream.ts';
import { IdempotencyConflictError, WrongExpectedRevisionError } from './errors.ts';
import type {
  AppendResult,
  AtomicAppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  StreamAppendOutcome,
} from './port.ts';
import { START } from './port.ts';
import { isEventIdConflict, type PreparedAppend, runAtomically } from './postgres-atomic.ts';
import { LiveTail } from './postgres-live-tail.ts';
import { COLUMNS, COLUMNS_BUT_KEPT, type EventRow, recordedOf } from './postgres-rows.ts';
import type { EventRegistry } from './registry.ts';

interface AppendRow {
  ok: boolean;
  revision: string;
  last_tx: string | null;
  last_position: string | null;
}

/**
 * The embedded default event store: one `events` table, appends through the `append_events` function
 * (one round trip), and a global read that stays below the oldest running transaction that may append.
 */
export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres';
  private readonly tail: LiveTail;
  private readonly appended = new AppendedData();
  readonly eventDataSql = (ids: string) =>
    `SELECT event_id, data FROM events WHERE event_id = ANY(${ids}::uuid[])`;

  constructor(
    private readonly pool: pg.Pool,
    private readonly registry: EventRegistry,
    options: { pageSize?: number } = {},
  ) {
    this.tail = new LiveTail(pool, (from, limit) => this.readAll({ from, limit }), options.pageSize ?? 1000);
  }

  async append(
    stream: string,
    events: NewEvent[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    const call = this.prepareAppend({ stream, events, expectedRevision: options.expectedRevision });
    let row: AppendRow;
    const payload = JSON.stringify(call.events);
    try {
      const result = await this.pool.query<AppendRow>(
        'SELECT ok, revision, last_tx::text AS last_tx, last_position FROM append_events($1, $2, $3)',
        [stream, call.expected, payload],
      );
      row = result.rows[0]!;
    } catch (error) {
      // Under `any`/`exists` a retried request collides on its event ids: answer with the first result.
      if (isEventIdConflict(error)) {
        const earlier = await this.findAppended(stream, call.ids);
        if (earlier) return earlier;
      }
      throw error;
    }
    const result = await this.settle(call, row);
    // Only events this call wrote (not an earlier append found again), before the followers wake.
    if (row.ok) this.appended.keep(call.events as { id: string; data: unknown }[], payload.length);
    this.tail.appended();
    return result;
  }

  async appendToStreams(appends: readonly StreamAppend[]): Promise<StreamAppendOutcome[]> {
    if (appends.length <= 1) return appendEach(this, appends);
    // An invalid event fails its own stream's part, as it would fail its own append.
    const calls = appends.map((a): PreparedAppend | Error => {
      try {
        return this.prepareAppend(a);
      } catch (error) {
        return error as Error;
      }
    });
    const valid = calls.filter((c): c is PreparedAppend => !(c instanceof Error));
    let rows: (AppendRow & { idx: number })[] = [];
    if (valid.length > 0) {
      try {
        const payload = valid.map((c) => ({ stream: c.stream, expected: c.expected, events: c.events }));
        const result = await this.pool.query<AppendRow & { idx: number }>(
          'SELECT idx, ok, revision, last_tx::text AS last_tx, last_position FROM append_to_streams($1)',
          [JSON.stringify(payload)],
        );
        rows = result.rows;
      } catch {
        // The statement appended nothing: a retried batch colliding on its event ids, a payload the
        // server refuses (a NUL in a string), a deadlock. Each part goes on its own then, with
        // append's own idempotency, so that a failure stays with its part.
        return appendEach(this, appends);
      }
    }
    const rowOf = new Map(rows.map((r) => [r.idx, r]));
    const byCall = new Map(valid.map((c, i) => [c, rowOf.get(i)]));
    const outcomes = await Promise.all(
      calls.map(async (call): Promise<StreamAppendOutcome> => {
        if (call instanceof Error) return { ok: false, error: call };
        try {
          return { ok: true, result: await this.settle(call, byCall.get(call)!) };
        } catch (error) {
          return { ok: false, error: error as Error };
        }
      }),
    );
    const landed = outcomes.flatMap((o) => (o.ok ? [o.result.position] : []));
    if (landed.length > 0) this.tail.appended();
    return outcomes;
  }

  /**
   * One statement (append_atomically, one transaction): a part that does not hold raises there and
   * nothing is written; a colliding event id is a unique violation, which undoes the statement too.
   */
  async appendAtomically(appends: readonly StreamAppend[]): Promise<AtomicAppendResult> {
    const calls = atomicParts(appends).map((a) => this.prepareAppend(a, true));
    const payload = JSON.stringify(
      calls.map((c) => ({ stream: c.stream, expected: c.expected, events: c.events })),
    );
    const rows = await runAtomically(this.pool, calls, payload);
    const revisions = calls.map((_, i) => BigInt(rows.find((r) => r.idx === i)!.revision));
    // One transaction: every part written has its tx_id; the last event is the greatest position.
    const written = rows.filter((r) => r.last_tx !== null);
    if (written.length === 0) return { revisions, position: await this.head() };
    const events = calls.flatMap((c) => c.events) as { id: string; data: unknown }[];
    this.appended.keep(events, payload.length);
    this.tail.appended();
    const lastPosition = written.reduce(
      (max, r) => (BigInt(r.last_position!) > max ? BigInt(r.last_position!) : max),
      0n,
    );
    return { revisions, position: { commit: BigInt(written[0]!.last_tx!), prepare: lastPosition } };
  }

  private prepareAppend(append: StreamAppend, conditionAllowed = false): PreparedAppend {
    if (append.events.length === 0 && !conditionAllowed) throw new Error('append needs at least one event');
    const prepared = append.events.map((e) => this.registry.prepare({ ...e, id: e.id ?? randomUUID() }));
    const expected = append.expectedRevision ?? 'any';
    return {
      stream: append.stream,
      expectedRevision: expected,
      expected: String(expected),
      ids: prepared.map((e) => e.id as string),
      events: prepared.map(({ id, type, data, metadata }) => ({ id, type, data, metadata })),
    };
  }

  /** What append_events answered, as an append result or the error an append throws. */
  private async settle(call: PreparedAppend, row: AppendRow): Promise<AppendResult> {
    if (!row.ok) {
      // Under an exact expectation a retried request finds the stream moved on by itself: same answer.
      // Looking the ids up only on failure keeps the common append at one round trip.
      const earlier = await this.findAppended(call.stream, call.ids);
      if (earlier) return earlier;
      const actual = BigInt(row.revision);
      throw new WrongExpectedRevisionError(
        call.stream,
        call.expectedRevision,
        actual < 0n ? 'no_stream' : actual,
      );
    }
    return {
      nextExpectedRevision: BigInt(row.revision),
      position: { commit: BigInt(row.last_tx as string), prepare: BigInt(row.last_position as string) },
    };
  }

  private async findAppended(stream: string, ids: string[]): Promise<AppendResult | undefined> {
    const { rows } = await this.pool.query<{
      event_id: string;
      stream_name: string;
      stream_revision: string;
      tx_id: string;
      position: string;
    }>(
      `SELECT event_id::text AS event_id, stream_name, stream_revision, tx_id::text AS tx_id, position
       FROM events WHERE event_id = ANY($1::uuid[]) ORDER BY events.tx_id, events.position`,
      [ids],
    );
    if (rows.length === 0) return undefined;
    if (rows.length !== ids.length || rows.some((r) => r.stream_name !== stream)) {
      // The ids of this batch found in the log already: the ones that collide.
      throw new IdempotencyConflictError(
        stream,
        rows.map((r) => r.event_id),
      );
    }
    const last = rows[rows.length - 1]!;
    return {
      nextExpectedRevision: BigInt(last.stream_revision),
      position: { commit: BigInt(last.tx_id), prepare: BigInt(last.position) },
    };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const params: unknown[] = [stream];
    let where = 'stream_name = $1';
    if (options.from !== undefined) {
      params.push(String(options.from));
      where += backwards ? ' AND stream_revision <= $2' : ' AND stream_revision >= $2';
    }
    params.push(options.limit ?? null);
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE ${where}
       ORDER BY stream_revision ${backwards ? 'DESC' : 'ASC'} LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => recordedOf(this.registry, r));
  }

  async readStreams(
    reads: readonly { stream: string; from?: bigint }[],
  ): Promise<Map<string, RecordedEvent[]>> {
    const out = new Map(reads.map((r) => [r.stream, [] as RecordedEvent[]]));
    if (reads.length === 0) return out;
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${COLUMNS} FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS r(name, from_revision, i)
       CROSS JOIN LATERAL (SELECT * FROM events WHERE stream_name = r.name
                           AND stream_revision >= r.from_revision) AS events
       ORDER BY r.i, events.stream_revision`,
      [reads.map((r) => r.stream), reads.map((r) => String(r.from ?? 0n))],
    );
    for (const row of rows) out.get(row.stream_name)!.push(recordedOf(this.registry, row));
    return out;
  }

  async readLastEvents(streams: readonly string[]): Promise<Map<string, RecordedEvent>> {
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${COLUMNS} FROM unnest($1::text[]) AS s(name)
       CROSS JOIN LATERAL (SELECT * FROM events WHERE stream_name = s.name
                           ORDER BY stream_revision DESC LIMIT 1) AS events`,
      [[...new Set(streams)]],
    );
    return new Map(rows.map((r) => [r.stream_name, recordedOf(this.registry, r)]));
  }

  /**
   * Global order is (tx_id, position), read only below the oldest transaction still running that may
   * append (events_read_horizon, migration 0021): an identity value is taken at insert but seen at
   * commit, so a reader ordering by position alone could pass an event whose transaction commits later
   * and never see it. Transactions that append nothing (a projection's batch, a claim) do not hold
   * readers back.
   */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const from = options.from ?? START;
    // The data of large events this process appended is not read back: it is here already.
    const kept = this.appended.snapshot();
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${COLUMNS_BUT_KEPT} FROM events
       WHERE (tx_id, position) > ($1::text::xid8, $2::bigint)
         AND tx_id < (SELECT events_read_horizon())
         AND ($4::text[] IS NULL OR type = ANY($4::text[]))
       ORDER BY events.tx_id, events.position LIMIT $3`,
      [
        from.commit < 0n ? '0' : String(from.commit),
        String(from.prepare),
        options.limit ?? 1000,
        options.types ? [...options.types] : null,
        kept ? [...kept.keys()] : null,
      ],
    );
    return rows.map((r) => recordedOf(this.registry, r, kept));
  }

  subscribeAll(from: Position = START): Observable<RecordedEvent> {
    return this.tail.follow(from);
  }

  async head(): Promise<Position> {
    const { rows } = await this.pool.query<{ tx_id: string; position: string }>(
      'SELECT tx_id::text AS tx_id, position FROM events ORDER BY events.tx_id DESC, events.position DESC LIMIT 1',
    );
    const row = rows[0];
    return row ? { commit: BigInt(row.tx_id), prepare: BigInt(row.position) } : START;
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1 FROM events LIMIT 0');
  }

  async close(): Promise<void> {
    await this.tail.close();
  }
}
