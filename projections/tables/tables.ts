import { initialTableState, type TableState, tableStream } from '../../src/domain/tables/table-state.ts';
import { singleStreamProjection } from '../../src/projection/single-stream.ts';

/** Logical name of the read model; queries import it from here. */
export const TABLES = 'research_tables';

export interface TableRow {
  id: string;
  organization_id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export interface TableView {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

export const tableFromRow = (row: TableRow): TableView => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/**
 * A row as the projection writes it. The timestamps are the events' ISO strings going in and, read
 * back as JSON, ISO strings again with every digit PostgreSQL keeps: a row never loses precision by
 * being folded again.
 */
interface StoredTable {
  id: string;
  organization_id: string;
  name: string;
  created_at: string;
  updated_at: string;
}

/**
 * Research tables by organization, for listing (cursor over created_at, id) and access checks: the
 * table stream's own state, without its columns (the columns projection has those).
 */
export const tablesProjection = singleStreamProjection({
  name: 'tables',
  version: 1,
  stream: tableStream,
  handles: ['TableCreated', 'TableRenamed', 'TableDeleted'],
  idOf: (event) => event.data.tableId,
  table: {
    name: TABLES,
    key: 'id',
    columns: {
      id: 'text',
      organization_id: 'text',
      name: 'text',
      created_at: 'timestamptz',
      updated_at: 'timestamptz',
    },
    indexes: (t) => [`CREATE INDEX ${t}_by_organization ON ${t} (organization_id, created_at, id)`],
  },
  toRow: (state: TableState): StoredTable | undefined =>
    state.exists
      ? {
          id: state.id,
          organization_id: state.organizationId,
          name: state.name,
          created_at: state.createdAt,
          updated_at: state.updatedAt,
        }
      : undefined,
  fromRow: (row: StoredTable): TableState => ({
    ...initialTableState(),
    exists: true,
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }),
});
