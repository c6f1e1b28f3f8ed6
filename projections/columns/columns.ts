import { type ColumnState, columnStream } from '../../src/domain/columns/column-state.ts';
import type { Column } from '../../src/domain/columns/fields.ts';
import { tableStream } from '../../src/domain/tables/table-state.ts';
import { singleStreamProjection } from '../../src/projection/single-stream.ts';

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

export const columnFromRow = (row: Omit<ColumnRow, 'revision'>): Column => ({
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

/** A row as the projection writes it: the query's fields and the table it belongs to. */
type StoredColumn = Omit<ColumnRow, 'revision'> & { table_id: string };

/**
 * Columns by table, ordered by position; `revision` is the column stream's (the ETag). A row is the
 * column stream's own state (its evolve: PATCH merges config one level deep, a null removing a key),
 * and goes when the table's stream says the column left it (ColumnRemoved).
 */
export const columnsProjection = singleStreamProjection({
  name: 'columns',
  version: 1,
  stream: columnStream,
  handles: ['ColumnCreated', 'ColumnPatched', 'ColumnMoved'],
  idOf: (event) => event.data.columnId,
  removedBy: {
    stream: tableStream,
    handles: ['ColumnRemoved'],
    idOf: (event) => event.data.columnId,
  },
  table: {
    name: COLUMNS,
    key: 'id',
    columns: {
      id: 'text',
      table_id: 'text',
      key: 'text',
      label: 'text',
      kind: 'text',
      data_type: 'text',
      origin: 'text',
      status: 'text',
      auto_run: 'text',
      config: 'jsonb',
      position: 'double precision',
      is_important: 'boolean',
    },
    indexes: (t) => [`CREATE INDEX ${t}_by_table ON ${t} (table_id, position, id)`],
  },
  toRow: ({ column, tableId }: ColumnState): StoredColumn | undefined =>
    column && tableId !== undefined
      ? {
          id: column.id,
          table_id: tableId,
          key: column.key,
          label: column.label,
          kind: column.kind,
          data_type: column.dataType,
          origin: column.origin,
          status: column.status,
          auto_run: column.autoRun,
          config: column.config,
          position: column.position,
          is_important: column.isImportant,
        }
      : undefined,
  fromRow: (row: StoredColumn): ColumnState => ({ tableId: row.table_id, column: columnFromRow(row) }),
});
