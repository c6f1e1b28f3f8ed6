import type { Column } from '../src/domain/columns/fields.ts';
import type { RecordedEvent } from '../src/event-store/port.ts';
import type { Projection } from '../src/projection/types.ts';

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

async function applyOne(
  event: RecordedEvent,
  tx: { query: (q: string, v: unknown[]) => Promise<unknown> },
  t: string,
) {
  const data = event.data as Data;
  const revision = String(event.revision);
  switch (event.type) {
    case 'ColumnCreated':
      await tx.query(
        `INSERT INTO ${t} (id, table_id, key, label, kind, data_type, origin, status, auto_run, config, position,
           is_important, revision)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (id) DO NOTHING`,
        [
          data.columnId,
          data.tableId,
          data.key,
          data.label,
          data.kind,
          data.dataType,
          data.origin,
          data.status,
          data.autoRun,
          JSON.stringify(data.config),
          data.position,
          data.isImportant,
          revision,
        ],
      );
      return;
    case 'ColumnPatched': {
      const changes = data.changes as Data;
      const config = (changes.config ?? {}) as Data;
      const set = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== null));
      const removed = Object.keys(config).filter((k) => config[k] === null);
      // jsonb || merges one level deep, the PATCH semantics; the revision guard skips a re-applied event.
      await tx.query(
        `UPDATE ${t} SET label = COALESCE($3, label), position = COALESCE($4, position),
           is_important = COALESCE($5, is_important), auto_run = COALESCE($6, auto_run),
           config = (config || $7::jsonb) - $8::text[], revision = $2
         WHERE id = $1 AND revision < $2`,
        [
          data.columnId,
          revision,
          changes.label ?? null,
          changes.position ?? null,
          changes.isImportant ?? null,
          changes.autoRun ?? null,
          JSON.stringify(set),
          removed,
        ],
      );
      return;
    }
    case 'ColumnMoved':
      await tx.query(`UPDATE ${t} SET position = $3, revision = $2 WHERE id = $1 AND revision < $2`, [
        data.columnId,
        revision,
        data.position,
      ]);
      return;
    case 'ColumnRemoved':
      // From the table's stream: the column left its table.
      await tx.query(`DELETE FROM ${t} WHERE id = $1`, [data.columnId]);
      return;
  }
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
    const t = table(COLUMNS);
    for (const event of events) await applyOne(event, tx, t);
  },
};
