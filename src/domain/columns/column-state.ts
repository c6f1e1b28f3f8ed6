import { defineStream } from '../../stream.ts';
import { mergeConfig } from './config-merge.ts';
import { type ColumnEvent, columnEvents } from './events.ts';
import type { Column } from './fields.ts';

export interface ColumnState {
  /** Undefined until ColumnCreated. Whether the column still belongs to its table is the table stream's say. */
  column?: Column;
  tableId?: string;
}

export const initialColumnState = (): ColumnState => ({});

export function evolveColumn(state: ColumnState, event: ColumnEvent): ColumnState {
  switch (event.type) {
    case 'ColumnCreated': {
      const { tableId, columnId, ...fields } = event.data;
      return { tableId, column: { id: columnId, ...fields } };
    }
    case 'ColumnPatched': {
      if (!state.column) return state;
      const { config, ...rest } = event.data.changes;
      const column = { ...state.column, ...rest };
      if (config) column.config = mergeConfig(state.column.config, config);
      return { ...state, column };
    }
    case 'ColumnMoved':
      return state.column ? { ...state, column: { ...state.column, position: event.data.position } } : state;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** `column-<tableId>.<columnId>`: one column's fields and config, and so its history. */
export const columnStream = defineStream({
  category: 'column',
  id: (tableId: string, columnId: string) => `${tableId}.${columnId}`,
  events: columnEvents,
  initialState: initialColumnState,
  evolve: evolveColumn,
  history: {
    description: 'a column as GET .../columns shows it',
    view: (state) => state.column ?? null,
  },
});
