import { defineStream } from '../../stream.ts';
import type { ColumnKind, DataType } from '../columns/fields.ts';
import type { ColumnMember } from '../columns/references.ts';
import { type TableEvent, tableEvents } from './events.ts';

export interface TableColumn {
  id: string;
  key: string;
  kind: ColumnKind;
  dataType: DataType;
}

/** A table as its stream tells it: the table, and which columns (with which keys) belong to it. */
export interface TableState {
  exists: boolean;
  id: string;
  organizationId: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  /** In the order they were added. */
  columns: ReadonlyMap<string, TableColumn>;
}

export const initialTableState = (): TableState => ({
  exists: false,
  id: '',
  organizationId: '',
  name: '',
  createdAt: '',
  updatedAt: '',
  columns: new Map(),
});

export function evolveTable(state: TableState, event: TableEvent): TableState {
  switch (event.type) {
    case 'TableCreated': {
      const { tableId, organizationId, name, at } = event.data;
      return { ...state, exists: true, id: tableId, organizationId, name, createdAt: at, updatedAt: at };
    }
    case 'TableRenamed':
      return { ...state, name: event.data.name, updatedAt: event.data.at };
    case 'ColumnAdded': {
      const { columnId, key, kind, dataType } = event.data;
      const columns = new Map(state.columns);
      columns.set(columnId, { id: columnId, key, kind, dataType });
      return { ...state, columns };
    }
    case 'ColumnRemoved': {
      const columns = new Map(state.columns);
      columns.delete(event.data.columnId);
      return { ...state, columns };
    }
    case 'TableDeleted':
      // As if it never existed: every command answers 404 for it from now on.
      return { ...initialTableState(), id: state.id };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** The table's columns as config validation sees them. */
export const columnMembers = (state: TableState): ColumnMember[] =>
  [...state.columns.values()].map(({ id, key, dataType }) => ({ id, key, dataType }));

/** The table as the API shows it. */
export const tableView = (state: TableState) => ({
  id: state.id,
  name: state.name,
  createdAt: state.createdAt,
  updatedAt: state.updatedAt,
});

/** `table-<tableId>`: a table, and which columns (with which keys) belong to it. */
export const tableStream = defineStream({
  category: 'table',
  id: (tableId: string) => tableId,
  events: tableEvents,
  initialState: initialTableState,
  evolve: evolveTable,
  history: {
    description: 'a table and the columns that belong to it',
    view: (state) => ({ ...state, columns: [...state.columns.values()] }),
  },
});
