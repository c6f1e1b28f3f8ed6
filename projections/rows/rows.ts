import type { RowBatchEvent, RowEvent } from '../../src/domain/rows/events.ts';
import { type CellStatus, mergeCells, statusesAt } from '../../src/domain/rows/row-state.ts';
import type { StoredRow } from '../../src/domain/rows/view.ts';
import type { TableEvent } from '../../src/domain/tables/events.ts';
import type { ApplyContext, Projection, RecordedOf } from '../../src/projection/types.ts';
import {
  isRunCellsEvent,
  RUN_CELL_EVENTS,
  type RunCellsEvent,
  runCellRows,
  runCellStatus,
  writeRunCells,
} from './run-cells.ts';
import { ROW_STORAGE, ROWS, storageTables } from './storage.ts';
import { type RowWriteEvent, STORAGE_EVENTS, Storage, type StorageEvent } from './table-storage.ts';

export { ROW_STORAGE, ROWS };

/** The columns of the read model, in the order `storedFromRow` expects. */
export const ROW_FIELDS = 'id, cells, cell_status, created_at, updated_at, revision';

export interface RowRecord {
  id: string;
  cells: Record<string, unknown>;
  cell_status: Record<string, CellStatus>;
  created_at: Date;
  updated_at: Date;
  revision: string;
}

export const storedFromRow = (row: RowRecord): StoredRow => ({
  id: row.id,
  cells: row.cells,
  statuses: row.cell_status,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** A row as the batch's fold holds it. */
interface Folded {
  table_id: string;
  id: string;
  cells: Record<string, unknown>;
  cell_status: Record<string, CellStatus>;
  created_at: string | Date;
  updated_at: string | Date;
  /** A row's version stays far below 2^53: a plain number, so the batch goes to JSON without a replacer. */
  revision: number;
}

interface Slot {
  row: Folded | undefined;
  changed: boolean;
  /** Only a run's cell status changed (no new version): written by an update of the row as read. */
  statusChanged?: boolean;
  /** The row came from an insert of this batch and was not read from the table: it may be new. */
  inserted?: boolean;
}

const keyOf = (tableId: string, rowId: string) => `${tableId} ${rowId}`;

type Event = RowWriteEvent;

/** The rows an event touches: every row of an insert batch or of a run's event, or the one row of a change. */
const rowsOf = (event: Event): string[] => {
  if (event.type === 'RowsInserted') return event.data.rows.map((r) => keyOf(event.data.tableId, r.rowId));
  if (isRunCellsEvent(event)) return runCellRows(event).map((id) => keyOf(event.data.tableId, id));
  return [keyOf(event.data.tableId, event.data.rowId)];
};

/**
 * The batch in memory, per row, on top of what the table holds: the same result as one statement per
 * event. `revision` is the row's version (its ETag): 0 as inserted, the row stream's revision + 1 after
 * a change, so a change applies only above it and a re-applied event changes nothing. Rows whose first
 * event here is their insert are not read first (an import is nearly all inserts): the upsert's version
 * guard keeps a re-applied insert from overwriting a row that has changed since.
 */
function fold(events: readonly Event[], stored: ReadonlyMap<string, Folded>) {
  const slots = new Map<string, Slot>();
  const slotOf = (key: string) => {
    let slot = slots.get(key);
    if (!slot) {
      slot = { row: stored.get(key), changed: false };
      slots.set(key, slot);
    }
    return slot;
  };
  for (const event of events) {
    if (event.type === 'RowsInserted') {
      const { tableId, rows, at } = event.data;
      for (const row of rows) {
        const slot = slotOf(keyOf(tableId, row.rowId));
        if (slot.row) continue;
        slot.row = {
          table_id: tableId,
          id: row.rowId,
          cells: row.cells,
          cell_status: statusesAt(row.statuses, at),
          created_at: at,
          updated_at: at,
          revision: 0,
        };
        slot.changed = true;
        slot.inserted = true;
      }
      continue;
    }
    if (isRunCellsEvent(event)) {
      for (const key of rowsOf(event)) {
        const slot = slotOf(key);
        const { row } = slot;
        const status = row && runCellStatus(row.cell_status[event.data.columnId], event);
        if (!row || !status) continue;
        slot.row = {
          ...row,
          cell_status: { ...row.cell_status, [event.data.columnId]: status },
          updated_at: event.data.at,
        };
        slot.statusChanged = true;
      }
      continue;
    }
    const slot = slotOf(keyOf(event.data.tableId, event.data.rowId));
    const { row } = slot;
    const version = Number(event.revision) + 1;
    if (event.type === 'RowCellsChanged') {
      if (!row || row.revision >= version) continue;
      const { cells, statuses, at } = event.data;
      slot.row = {
        ...row,
        cells: mergeCells(row.cells, cells),
        cell_status: { ...row.cell_status, ...statusesAt(statuses, at) },
        updated_at: at,
        revision: version,
      };
    } else slot.row = undefined;
    slot.changed = true;
  }
  return slots;
}

/**
 * Rows of every table: cells and statuses keyed by column id (the table's current columns name them),
 * a partition of table_rows per table with an index per column key, and each table's row count
 * (storage.ts).
 */
export const rowsProjection: Projection<
  | RowEvent
  | RowBatchEvent
  | RunCellsEvent
  | Extract<TableEvent, { type: 'TableDeleted' | 'ColumnAdded' | 'ColumnRemoved' }>
> = {
  name: 'rows',
  // 2: partitioned by table, with key indexes and row counts.
  version: 2,
  // A read model: its commits (one per batch of a run's rows) wake no worker; the row-indexes worker
  // it enqueues for finds its items within a second of polling.
  enqueues: [],
  handles: [
    'RowsInserted',
    'RowCellsChanged',
    'RowDeleted',
    'TableDeleted',
    'ColumnAdded',
    'ColumnRemoved',
    ...RUN_CELL_EVENTS,
  ],
  tables: storageTables,
  async apply(batch, ctx) {
    const storage = await Storage.read(ctx, tablesOf(batch));
    const events: Event[] = [];
    for (const event of batch) {
      if (STORAGE_EVENTS.has(event.type)) storage.change(event as StorageEvent);
      else events.push(event as Event);
    }
    for (const event of events) storage.written(event);
    // Rows of a table deleted by the end of the batch go with it: they are not written at all.
    const kept = events.filter((e) => !storage.deletedAtEnd(e.data.tableId));
    await storage.partitionsFor(kept.filter((e) => e.type === 'RowsInserted').map((e) => e.data.tableId));
    const counts = await applyRowEvents(kept, ctx, ctx.table(ROWS), storage.withRows());
    await storage.save(counts);
  },
};

/** The tables a batch touches. */
const tablesOf = (batch: readonly { data: { tableId: string } }[]) => [
  ...new Set(batch.map((e) => e.data.tableId)),
];

type InsertEvent = RecordedOf<RowBatchEvent>;

/**
 * Insert batches that no other event of the batch touches, copied from the log to the table by the
 * server itself: the event is there already, so neither its 300 KB of rows nor their JSON go through
 * this process again, and the server reads its own jsonb instead of parsing JSON text (measured: half
 * the server's CPU of the upsert by JSON). What a fold would write for them: each row as inserted,
 * revision 0, statuses stamped with the batch's time; a row that exists already (a batch applied
 * again) is left as it is, as the fold's version guard leaves it. The events are read through the
 * store's port (`eventDataSql`: the PostgreSQL adapter's own SELECT), never from a table named here;
 * a store whose events are elsewhere (EventStoreDB, memory) has none, and the batch folds them in
 * memory. Answers the ids of the events found and how many rows each table gained.
 */
async function insertFromLog(
  { tx, eventDataSql }: Pick<ApplyContext, 'tx' | 'eventDataSql'>,
  t: string,
  ids: readonly string[],
  counts: Map<string, number>,
): Promise<Set<string>> {
  if (ids.length === 0 || !eventDataSql) return new Set();
  // `data || '{}'` detoasts the event once: each `->` on the stored value would decompress it again.
  const { rows } = await tx.query<{ id: string | null; table_id: string | null; n: string | null }>(
    `WITH ev AS MATERIALIZED (
       SELECT event_id::text AS id, d ->> 'tableId' AS table_id, d ->> 'at' AS at, d -> 'rows' AS rows
       FROM (SELECT event_id, data || '{}' AS d FROM (${eventDataSql('$1')}) AS events) AS e
     ), inserted AS (
       INSERT INTO ${t} (table_id, id, cells, cell_status, created_at, updated_at, revision)
       SELECT ev.table_id, r."rowId", r.cells,
         CASE WHEN r.statuses = '{}' THEN '{}' ELSE (
           SELECT jsonb_object_agg(s.key, jsonb_build_object('status', s.value, 'updatedAt', ev.at))
           FROM jsonb_each_text(r.statuses) AS s) END,
         ev.at::timestamptz, ev.at::timestamptz, 0
       FROM ev CROSS JOIN LATERAL jsonb_to_recordset(ev.rows) AS r("rowId" text, cells jsonb, statuses jsonb)
       ON CONFLICT (table_id, id) DO NOTHING
       RETURNING table_id
     )
     SELECT id, NULL AS table_id, NULL AS n FROM ev
     UNION ALL SELECT NULL, table_id, count(*) FROM inserted GROUP BY table_id`,
    [ids],
  );
  for (const r of rows) if (r.table_id !== null) add(counts, r.table_id, Number(r.n));
  return new Set(rows.flatMap((r) => (r.id === null ? [] : [r.id])));
}

const add = (counts: Map<string, number>, tableId: string, n: number) =>
  counts.set(tableId, (counts.get(tableId) ?? 0) + n);

/** Inserts the batch's events may copy in SQL: stored in the form the SQL reads, rows touched by nothing else. */
function copiedInSql(events: readonly Event[]): string[] {
  const touched = new Set<string>();
  for (const event of events) {
    if (event.type !== 'RowsInserted') for (const key of rowsOf(event)) touched.add(key);
  }
  return events
    .filter(
      (e): e is InsertEvent =>
        e.type === 'RowsInserted' &&
        // Version 1 is the shape the SQL reads; an older one would need its upcaster first.
        Number(e.metadata.schemaVersion ?? 1) === 1 &&
        (touched.size === 0 || !rowsOf(e).some((key) => touched.has(key))),
    )
    .map((e) => e.id);
}

/**
 * Applies the batch's row events and answers how many rows each table gained or lost. `tables`: the
 * tables that have a partition; every statement names them, so that PostgreSQL opens their
 * partitions only (a statement that does not would open and lock every table's partition).
 */
async function applyRowEvents(
  all: readonly Event[],
  ctx: Pick<ApplyContext, 'tx' | 'eventDataSql'>,
  t: string,
  tables: readonly string[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  // The rows of the inserts copied in SQL are touched by no other event here: the rest folds apart.
  const { tx } = ctx;
  const copied = await insertFromLog(ctx, t, copiedInSql(all), counts);
  const events = copied.size === 0 ? all : all.filter((e) => !copied.has(e.id));
  const seen = new Set<string>();
  const toRead: string[] = [];
  for (const event of events) {
    for (const key of rowsOf(event)) {
      if (seen.has(key)) continue;
      seen.add(key);
      if (event.type !== 'RowsInserted') toRead.push(key);
    }
  }
  const stored = new Map<string, Folded>();
  if (toRead.length > 0) {
    const { rows } = await tx.query<Folded & { revision: string }>(
      `SELECT table_id, id, cells, cell_status, created_at, updated_at, revision FROM ${t}
       WHERE table_id = ANY($3::text[]) AND (table_id, id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
       FOR UPDATE`,
      [toRead.map((k) => k.split(' ')[0]), toRead.map((k) => k.split(' ')[1]), tables],
    );
    for (const r of rows) stored.set(`${r.table_id} ${r.id}`, { ...r, revision: Number(r.revision) });
  }
  const upserts: (Folded & { inserted?: boolean })[] = [];
  const statusOnly: Folded[] = [];
  const deletes: string[][] = [[], []];
  for (const [key, slot] of fold(events, stored)) {
    if (slot.row && slot.changed) upserts.push(slot.inserted ? { ...slot.row, inserted: true } : slot.row);
    else if (slot.row && slot.statusChanged) statusOnly.push(slot.row);
    else if (!slot.row && slot.changed) {
      // A row inserted and deleted within the batch is not there: deleting it anyway costs nothing.
      const [tableId, id] = key.split(' ') as [string, string];
      deletes[0]!.push(tableId);
      deletes[1]!.push(id);
    }
  }
  if (deletes[0]!.length > 0) {
    const { rows } = await tx.query<{ table_id: string }>(
      `DELETE FROM ${t} WHERE table_id = ANY($3::text[])
         AND (table_id, id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
       RETURNING table_id`,
      [...deletes, tables],
    );
    for (const r of rows) add(counts, r.table_id, -1);
  }
  await writeRunCells(tx, t, statusOnly);
  if (upserts.length === 0) return counts;
  // One JSON parameter for the whole batch, as the other read models do. Rows an insert of this batch
  // brought go in first, as new rows (what they count); those already there (a batch applied again)
  // and every other row are then written over a lower version.
  const fresh = upserts.filter((r) => r.inserted);
  const inserted = new Set<string>();
  if (fresh.length > 0) {
    const { rows } = await tx.query<{ table_id: string; id: string }>(
      `INSERT INTO ${t} (table_id, id, cells, cell_status, created_at, updated_at, revision)
       SELECT table_id, id, cells, cell_status, created_at, updated_at, revision
       FROM json_to_recordset($1::json) AS r(table_id text, id text, cells jsonb, cell_status jsonb,
         created_at timestamptz, updated_at timestamptz, revision bigint)
       ON CONFLICT (table_id, id) DO NOTHING
       RETURNING table_id, id`,
      [JSON.stringify(fresh.map(({ inserted: _, ...row }) => row))],
    );
    for (const r of rows) {
      inserted.add(keyOf(r.table_id, r.id));
      add(counts, r.table_id, 1);
    }
  }
  const rest = upserts.filter((r) => !inserted.has(keyOf(r.table_id, r.id)));
  if (rest.length === 0) return counts;
  await tx.query(
    `INSERT INTO ${t} AS cur (table_id, id, cells, cell_status, created_at, updated_at, revision)
     SELECT table_id, id, cells, cell_status, created_at, updated_at, revision
     FROM json_to_recordset($1::json) AS r(table_id text, id text, cells jsonb, cell_status jsonb,
       created_at timestamptz, updated_at timestamptz, revision bigint)
     ON CONFLICT (table_id, id) DO UPDATE SET cells = EXCLUDED.cells, cell_status = EXCLUDED.cell_status,
       updated_at = EXCLUDED.updated_at, revision = EXCLUDED.revision
     WHERE cur.revision < EXCLUDED.revision`,
    [JSON.stringify(rest.map(({ inserted: _, ...row }) => row))],
  );
  return counts;
}
