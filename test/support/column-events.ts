import type { Column } from '../../src/domain/columns/fields.ts';

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
