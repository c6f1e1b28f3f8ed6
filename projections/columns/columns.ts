import { mergeConfig } from '../../src/domain/columns/config-merge.ts';
import type { Column } from '../../src/domain/columns/fields.ts';
import type { RecordedEvent } from '../../src/event-store/port.ts';
import type { ApplyContext, Projection } from '../../src/projection/types.ts';

/** Logical name of the read model; queries import it from here. */
export const COLUMNS = 'table_columns';

/** The columns of the read model, in the order `columnFromRow` expects. */
export const COLUMN_FIELDS =
  'id, key, label, kind, data_type, origin, status, auto_run, config, position, is_important, revision';

export interface ColumnRow {
  id: string;
  key: string;
  label: string;
  kind: Column['kind'];
  data_type: Column['dataType'];
  origin: Column['origin'];
  status: Column['status'];
  auto_run: Column['autoRun'];
  config: Record<string, unknown>;
  position: number;
  is_important: boolean;
  revision: string;
}

export const columnFromRow = (row: ColumnRow): Column => ({
  id: row.id,
  key: row.key,
  label: row.label,
  kind: row.kind,
  dataType: row.data_type,
  origin: row.origin,
  status: row.status,
  autoRun: row.auto_run,
  config: row.config,
  position: row.position,
  isImportant: row.is_important,
});

type Data = Record<string, unknown>;
type Tx = ApplyContext['tx'];

/** A row of the table as the fold holds it: every column, the revision as a bigint. */
interface StoredColumn extends Omit<ColumnRow, 'revision'> {
  table_id: string;
  revision: bigint;
}

/** One column's row as the batch leaves it; `stored` says whether the table held it before the batch. */
interface Slot {
  row: StoredColumn | undefined;
  stored: boolean;
  changed: boolean;
}

const FIELDS = `id, table_id, key, label, kind, data_type, origin, status, auto_run, config, position,
  is_important, revision`;

function created(data: Data, revision: bigint): StoredColumn {
  return {
    id: data.columnId as string,
    table_id: data.tableId as string,
    key: data.key as string,
    label: data.label as string,
    kind: data.kind as ColumnRow['kind'],
    data_type: data.dataType as ColumnRow['data_type'],
    origin: data.origin as ColumnRow['origin'],
    status: data.status as ColumnRow['status'],
    auto_run: data.autoRun as ColumnRow['auto_run'],
    config: data.config as Data,
    position: data.position as number,
    is_important: data.isImportant as boolean,
    revision,
  };
}

function patched(row: StoredColumn, changes: Data, revision: bigint): StoredColumn {
  return {
    ...row,
    label: (changes.label as string | undefined) ?? row.label,
    position: (changes.position as number | undefined) ?? row.position,
    is_important: (changes.isImportant as boolean | undefined) ?? row.is_important,
    auto_run: (changes.autoRun as ColumnRow['auto_run'] | undefined) ?? row.auto_run,
    // One level deep, a null removing the key: the PATCH semantics the decider also applies.
    config: changes.config ? mergeConfig(row.config, changes.config as Data) : row.config,
    revision,
  };
}

/**
 * The batch's events in order, per column, on top of the rows the table held: the same result as one
 * statement per event. A create finding a row keeps it; a patch or move applies only above the row's
 * revision (so a re-applied event changes nothing); a removal drops the row.
 */
function fold(events: readonly RecordedEvent[], stored: ReadonlyMap<string, StoredColumn>) {
  const slots = new Map<string, Slot>();
  for (const event of events) {
    const data = event.data as Data;
    const id = data.columnId as string;
    let slot = slots.get(id);
    if (!slot) {
      const row = stored.get(id);
      slot = { row, stored: row !== undefined, changed: false };
      slots.set(id, slot);
    }
    const { row } = slot;
    if (event.type === 'ColumnCreated') {
      if (row) continue;
      slot.row = created(data, event.revision);
    } else if (event.type === 'ColumnPatched' || event.type === 'ColumnMoved') {
      if (!row || row.revision >= event.revision) continue;
      const changes = event.type === 'ColumnMoved' ? { position: data.position } : (data.changes as Data);
      slot.row = patched(row, changes, event.revision);
    } else if (event.type === 'ColumnRemoved') {
      // From the table's stream: the column left its table.
      slot.row = undefined;
    } else continue;
    slot.changed = true;
  }
  return slots;
}

/**
 * A batch in at most three statements, whatever its size: the rows it touches read once (locked, so
 * nothing moves them between the read and the write), folded in memory, then one upsert and one delete.
 */
async function applyBatch(events: readonly RecordedEvent[], tx: Tx, t: string) {
  const ids = [...new Set(events.map((e) => (e.data as Data).columnId as string))];
  if (ids.length === 0) return;
  const { rows } = await tx.query<Omit<StoredColumn, 'revision'> & { revision: string }>(
    `SELECT ${FIELDS} FROM ${t} WHERE id = ANY($1::text[]) FOR UPDATE`,
    [ids],
  );
  const stored = new Map(rows.map((r) => [r.id, { ...r, revision: BigInt(r.revision) }]));
  const upserts: StoredColumn[] = [];
  const deletes: string[] = [];
  for (const [id, slot] of fold(events, stored)) {
    if (slot.row && slot.changed) upserts.push(slot.row);
    else if (!slot.row && slot.stored) deletes.push(id);
  }
  if (deletes.length > 0) await tx.query(`DELETE FROM ${t} WHERE id = ANY($1::text[])`, [deletes]);
  if (upserts.length === 0) return;
  // The fold already weighed each event against the locked row, so the upsert writes its result
  // whole, unguarded: a column removed and created again in one batch may end below the old revision.
  // One JSON parameter, as in site-content.ts: cheaper than pg's array-literal escaping per value.
  await tx.query(
    `INSERT INTO ${t} (${FIELDS})
     SELECT ${FIELDS} FROM json_to_recordset($1::json) AS r(id text, table_id text, key text, label text,
       kind text, data_type text, origin text, status text, auto_run text, config jsonb,
       position double precision, is_important boolean, revision bigint)
     ON CONFLICT (id) DO UPDATE SET
       table_id = EXCLUDED.table_id, key = EXCLUDED.key, label = EXCLUDED.label, kind = EXCLUDED.kind,
       data_type = EXCLUDED.data_type, origin = EXCLUDED.origin, status = EXCLUDED.status,
       auto_run = EXCLUDED.auto_run, config = EXCLUDED.config, position = EXCLUDED.position,
       is_important = EXCLUDED.is_important, revision = EXCLUDED.revision`,
    [JSON.stringify(upserts, (_key, value) => (typeof value === 'bigint' ? String(value) : value))],
  );
}

/** Columns by table, ordered by position; `revision` is the column stream's (the ETag). */
export const columnsProjection: Projection = {
  name: 'columns',
  version: 1,
  handles: ['ColumnCreated', 'ColumnPatched', 'ColumnMoved', 'ColumnRemoved'],
  tables: {
    [COLUMNS]: (t) => [
      `CREATE TABLE ${t} (
        id text PRIMARY KEY,
        table_id text NOT NULL,
        key text NOT NULL,
        label text NOT NULL,
        kind text NOT NULL,
        data_type text NOT NULL,
        origin text NOT NULL,
        status text NOT NULL,
        auto_run text NOT NULL,
        config jsonb NOT NULL,
        position double precision NOT NULL,
        is_important boolean NOT NULL,
        revision bigint NOT NULL
      )`,
      `CREATE INDEX ${t}_by_table ON ${t} (table_id, position, id)`,
    ],
  },
  async apply(events, { tx, table }) {
    await applyBatch(events, tx, table(COLUMNS));
  },
};
