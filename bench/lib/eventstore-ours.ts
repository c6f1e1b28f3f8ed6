import { createPool } from '../../src/db/pool.ts';
import type { NewEvent, Position } from '../../src/event-store/port.ts';
import { START } from '../../src/event-store/port.ts';
import { PostgresEventStore } from '../../src/event-store/postgres.ts';
import { BENCH_EVENT_TYPE, benchEventData } from './bench-event.ts';
import { benchRegistry } from './bench-registry.ts';
import type { PageReader } from './log-reading.ts';

// What our readAll selects, so the raw paging baseline moves the same bytes.
const COLUMNS =
  'position, tx_id::text AS tx_id, stream_name, stream_revision, event_id, type, data, metadata, recorded_at';

/**
 * Our event store and the raw baseline on one database: the same pool size, the same payloads. The
 * raw table is plain (identity key and a jsonb column), written one autocommit statement per call.
 */
export async function openOurs(url: string, poolSize: number) {
  const pool = createPool(url, poolSize);
  const store = new PostgresEventStore(pool, benchRegistry);
  await pool.query(
    'CREATE TABLE IF NOT EXISTS bench_raw (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, data jsonb NOT NULL)',
  );

  return {
    store,
    pool,
    async append(stream: string, writer: number, seq: number, count: number): Promise<void> {
      const events: NewEvent[] = Array.from({ length: count }, (_, i) => ({
        type: BENCH_EVENT_TYPE,
        data: benchEventData(writer, seq * count + i),
      }));
      await store.append(stream, events);
    },
    async rawInsert(writer: number, seq: number, count: number): Promise<void> {
      if (count === 1) {
        await pool.query('INSERT INTO bench_raw (data) VALUES ($1)', [
          JSON.stringify(benchEventData(writer, seq)),
        ]);
        return;
      }
      const rows = Array.from({ length: count }, (_, i) =>
        JSON.stringify(benchEventData(writer, seq * count + i)),
      );
      await pool.query('INSERT INTO bench_raw (data) SELECT unnest($1::jsonb[])', [rows]);
    },
    /** Our readAll, paged from the start: (tx_id, position) order below the oldest running transaction. */
    reader(pageSize: number): PageReader {
      let from: Position = START;
      return async () => {
        const page = await store.readAll({ from, limit: pageSize });
        if (page.length > 0) from = page[page.length - 1]!.position;
        return page.map((e) => e.id);
      };
    },
    /** The naive reader: by position alone, the checkpoint being the last position seen. */
    rawReader(pageSize: number): PageReader {
      let after = '0';
      return async () => {
        const { rows } = await pool.query<{ position: string; event_id: string }>(
          `SELECT ${COLUMNS} FROM events WHERE position > $1 ORDER BY position LIMIT $2`,
          [after, pageSize],
        );
        if (rows.length > 0) after = rows[rows.length - 1]!.position;
        return rows.map((r) => r.event_id);
      };
    },
    async close(): Promise<void> {
      await store.close();
      await pool.end();
    },
  };
}

export type Ours = Awaited<ReturnType<typeof openOurs>>;
