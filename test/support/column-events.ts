import { columnStream } from '../../src/domain/columns/column-state.ts';
import type { Column } from '../../src/domain/columns/fields.ts';
import { newColumnId, newTableId } from '../../src/domain/tables/ids.ts';
import { tableStream } from '../../src/domain/tables/table-state.ts';
import type { GivenStreams } from './api-spec.ts';

type ColumnFields = Omit<Column, 'id'>;

/** What a column created without them gets (contract 2.3): made by the API, idle, never run, no config. */
export const COLUMN_DEFAULTS = {
  origin: 'api',
  status: 'idle',
  autoRun: 'never',
  config: {},
  isImportant: false,
} as const satisfies Partial<ColumnFields>;

/** A ColumnCreated event of a text input column with the defaults, as the service appends one. */
export function columnCreated(
  tableId: string,
  columnId: string,
  fields: Pick<ColumnFields, 'key' | 'label' | 'position'> & Partial<ColumnFields>,
) {
  return {
    type: 'ColumnCreated' as const,
    data: { tableId, columnId, kind: 'input', dataType: 'text', ...COLUMN_DEFAULTS, ...fields },
  };
}

/** A column of `tableWithColumns`: its key and label, and whatever else differs from the defaults. */
export type GivenColumn = Pick<ColumnFields, 'key' | 'label'> & Partial<ColumnFields>;

/**
 * An API spec's given (test/support/api-spec.ts): a table of `organizationId` with these columns, as
 * the service's creates leave its streams: TableCreated and a ColumnAdded per column on the table's
 * stream, a ColumnCreated on each column's own, positions 1, 2, ... in the order given.
 */
export function tableWithColumns(organizationId: string, columns: GivenColumn[], name = 'Leads') {
  const tableId = newTableId();
  const at = new Date().toISOString();
  const made = columns.map((fields, i) =>
    columnCreated(tableId, newColumnId(), { position: i + 1, ...fields }),
  );
  const streams: GivenStreams = {
    [tableStream.name(tableId)]: [
      { type: 'TableCreated', data: { tableId, organizationId, name, at } },
      ...made.map(({ data: { columnId, key, kind, dataType } }) => ({
        type: 'ColumnAdded',
        data: { tableId, columnId, key, kind, dataType },
      })),
    ],
    ...Object.fromEntries(made.map((event) => [columnStream.name(tableId, event.data.columnId), [event]])),
  };
  return { tableId, columnIds: made.map((e) => e.data.columnId), streams };
}
