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

type TableDeletedEvent = RecordedOf<Extract<TableEvent, { type: 'TableDeleted' }>>;

/** Logical name of the read model; queries import it from here. */
export const ROWS = 'table_rows';

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
}

const keyOf = (tableId: string, rowId: string) => `${tableId} ${rowId}`;

type Event = RecordedOf<RowEvent | RowBatchEvent> | RunCellsEvent;

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

/** Rows of every table: cells and statuses keyed by column id (the table's current columns name them). */
export const rowsProjection: Projection<
  RowEvent | RowBatchEvent | RunCellsEvent | Extract<TableEvent, { type: 'TableDeleted' }>
> = {
  name: 'rows',
  version: 1,
  // A read model: its commits (one per batch of a run's rows) wake no worker.
  enqueues: [],
  handles: ['RowsInserted', 'RowCellsChanged', 'RowDeleted', 'TableDeleted', ...RUN_CELL_EVENTS],
  tables: {
    // id sorts in creation order byte by byte (src/domain/rows/ids.ts): the primary key serves the
    // default order, paging by id and every lookup of a row. Filters and sorts on cells read a table's
    // rows through it too; no index on cells: a case-insensitive comparison could not use one, and a
    // GIN index would cost every import more than it saves a containment test or two.
    [ROWS]: (t) => [
      `CREATE TABLE ${t} (
        table_id text NOT NULL,
        id text COLLATE "C" NOT NULL,
        cells jsonb NOT NULL,
        cell_status jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        -- The row's version, its ETag: 0 as inserted, the row stream's revision + 1 after a change.
        revision bigint NOT NULL,
        PRIMARY KEY (table_id, id)
      )`,
    ],
  },
  async apply(batch, { tx, table }) {
    const t = table(ROWS);
    // A deleted table's rows go with it, after the batch's row events (nothing writes rows to a table
    // once it is deleted: its commands answer 404).
    const deletedTables = batch.flatMap((e) => (e.type === 'TableDeleted' ? [e.data.tableId] : []));
    const events = batch.filter((e): e is Exclude<typeof e, TableDeletedEvent> => e.type !== 'TableDeleted');
    await applyRowEvents(events, tx, t);
    if (deletedTables.length > 0) {
      await tx.query(`DELETE FROM ${t} WHERE table_id = ANY($1::text[])`, [deletedTables]);
    }
  },
};

type InsertEvent = RecordedOf<RowBatchEvent>;

/**
 * Insert batches that no other event of the batch touches, copied from the log to the table by the
 * server itself: the event is there already, so neither its 300 KB of rows nor their JSON go through
 * this process again, and the server reads its own jsonb instead of parsing JSON text (measured: half
 * the server's CPU of the upsert by JSON). What a fold would write for them: each row as inserted,
 * revision 0, statuses stamped with the batch's time; a row that exists already (a batch applied
 * again) is left as it is, as the fold's version guard leaves it. Answers the ids of the events found
 * in the log's table: under EventStoreDB the table holds none, and the batch folds them in memory.
 */
async function insertFromLog(
  tx: ApplyContext['tx'],
  t: string,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  // `data || '{}'` detoasts the event once: each `->` on the stored value would decompress it again.
  const { rows } = await tx.query<{ id: string }>(
    `WITH ev AS MATERIALIZED (
       SELECT event_id::text AS id, d ->> 'tableId' AS table_id, d ->> 'at' AS at, d -> 'rows' AS rows
       FROM (SELECT event_id, data || '{}' AS d FROM events WHERE event_id = ANY($1::uuid[])) AS e
     ), inserted AS (
       INSERT INTO ${t} (table_id, id, cells, cell_status, created_at, updated_at, revision)
       SELECT ev.table_id, r."rowId", r.cells,
         CASE WHEN r.statuses = '{}' THEN '{}' ELSE (
           SELECT jsonb_object_agg(s.key, jsonb_build_object('status', s.value, 'updatedAt', ev.at))
           FROM jsonb_each_text(r.statuses) AS s) END,
         ev.at::timestamptz, ev.at::timestamptz, 0
       FROM ev CROSS JOIN LATERAL jsonb_to_recordset(ev.rows) AS r("rowId" text, cells jsonb, statuses jsonb)
       ON CONFLICT (table_id, id) DO NOTHING
     )
     SELECT id FROM ev`,
    [ids],
  );
  return new Set(rows.map((r) => r.id));
}

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

async function applyRowEvents(all: readonly Event[], tx: ApplyContext['tx'], t: string): Promise<void> {
  // The rows of the inserts copied in SQL are touched by no other event here: the rest folds apart.
  const copied = await insertFromLog(tx, t, copiedInSql(all));
  const events = copied.size === 0 ? all : all.filter((e) => !copied.has(e.id));
  {
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
         WHERE (table_id, id) IN (SELECT * FROM unnest($1::text[], $2::text[])) FOR UPDATE`,
        [toRead.map((k) => k.split(' ')[0]), toRead.map((k) => k.split(' ')[1])],
      );
      for (const r of rows) stored.set(`${r.table_id} ${r.id}`, { ...r, revision: Number(r.revision) });
    }
    const upserts: Folded[] = [];
    const statusOnly: Folded[] = [];
    const deletes: string[][] = [[], []];
    for (const [key, slot] of fold(events, stored)) {
      if (slot.row && slot.changed) upserts.push(slot.row);
      else if (slot.row && slot.statusChanged) statusOnly.push(slot.row);
      else if (!slot.row && slot.changed) {
        // A row inserted and deleted within the batch is not there: deleting it anyway costs nothing.
        const [tableId, id] = key.split(' ') as [string, string];
        deletes[0]!.push(tableId);
        deletes[1]!.push(id);
      }
    }
    if (deletes[0]!.length > 0) {
      await tx.query(
        `DELETE FROM ${t} WHERE (table_id, id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
        deletes,
      );
    }
    await writeRunCells(tx, t, statusOnly);
    if (upserts.length === 0) return;
    // One JSON parameter for the whole batch, as the other read models do.
    await tx.query(
      `INSERT INTO ${t} AS cur (table_id, id, cells, cell_status, created_at, updated_at, revision)
       SELECT table_id, id, cells, cell_status, created_at, updated_at, revision
       FROM json_to_recordset($1::json) AS r(table_id text, id text, cells jsonb, cell_status jsonb,
         created_at timestamptz, updated_at timestamptz, revision bigint)
       ON CONFLICT (table_id, id) DO UPDATE SET cells = EXCLUDED.cells, cell_status = EXCLUDED.cell_status,
         updated_at = EXCLUDED.updated_at, revision = EXCLUDED.revision
       WHERE cur.revision < EXCLUDED.revision`,
      [JSON.stringify(upserts)],
    );
  }
}
