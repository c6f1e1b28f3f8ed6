import { COLUMNS, type ColumnRow, columnFromRow } from '../../projections/columns/columns.ts';
import { TABLES } from '../../projections/tables/tables.ts';
import type { Principal } from '../../src/auth/scopes.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { Column } from '../../src/domain/columns/fields.ts';
import type { RowColumn } from '../../src/domain/rows/cells.ts';
import { readableTable, tableNotFound } from '../../src/domain/tables/access.ts';
import { isTableId } from '../../src/domain/tables/ids.ts';
import { LIST_COLUMNS_SQL } from '../columns/list-columns.ts';

/**
 * The columns of a table the principal may read, in one round trip (the table's row joined with its
 * columns): 404 for an unknown table or an id of the wrong form, 403 for another organization's.
 * Every read of rows goes through these: they name the cells (by key) and leave out a deleted column's.
 */
export async function readableColumns(pool: Pool, principal: Principal, tableId: string): Promise<Column[]> {
  if (!isTableId(tableId)) throw tableNotFound(tableId);
  const { rows } = await pool.query<{ organization_id: string } & ColumnRow>(LIST_COLUMNS_SQL, [tableId]);
  readableTable(rows[0], tableId, principal);
  return rows.flatMap((row) => (row.id === null ? [] : [columnFromRow(row)]));
}

/** What a page of rows needs of a table: its organization and its columns, and their version. */
export interface TableColumns {
  organizationId: string;
  /** In position order: the order of a row's cells in an answer. */
  columns: RowColumn[];
  /** columnsVersionSql's value when these were read. */
  version: string;
}

/**
 * The version of a table's columns, as SQL given the table id's placeholder: each column's id and
 * revision (its stream's: any create, patch or move changes it; a removal takes its row) after the
 * table's organization, NULL once the table is gone. It never comes back to an earlier value.
 */
export const columnsVersionSql = (tableId: string) =>
  `((SELECT organization_id FROM ${TABLES} WHERE id = ${tableId}) || ' ' ||
    (SELECT coalesce(string_agg(c.id || ':' || c.revision, ',' ORDER BY c.id COLLATE "C"), '')
      FROM ${COLUMNS} c WHERE c.table_id = ${tableId}))`;

const TABLE_COLUMNS_SQL = `SELECT t.organization_id, ${columnsVersionSql('$1')} AS version,
    c.id, c.key, c.kind, c.data_type
  FROM ${TABLES} t LEFT JOIN ${COLUMNS} c ON c.table_id = t.id
  WHERE t.id = $1 ORDER BY c.position, c.id`;

type TableColumnRow = { organization_id: string; version: string } & (
  | Pick<ColumnRow, 'id' | 'key' | 'kind' | 'data_type'>
  | { id: null; key: null; kind: null; data_type: null }
);

/**
 * A table's columns as the rows routes read them, kept per table in memory for the pages after, which
 * check them in their own statement (the version, columnsVersionSql) rather than reading them again:
 * a page read against columns that changed since is read again against the table's columns then.
 * Bounded: the least recently read table goes first.
 */
export class TableColumnsCache {
  private readonly entries = new Map<string, TableColumns>();

  constructor(readonly maxTables = 10_000) {}

  get size(): number {
    return this.entries.size;
  }

  /** The entry read last for the table, if any (it may be out of date: check its version). */
  get(tableId: string): TableColumns | undefined {
    const entry = this.entries.get(tableId);
    if (entry) {
      this.entries.delete(tableId);
      this.entries.set(tableId, entry);
    }
    return entry;
  }

  /** The table's columns from the read model now (404, 403 as readableColumns), kept for the next read. */
  async load(pool: Pool, principal: Principal, tableId: string): Promise<TableColumns> {
    if (!isTableId(tableId)) throw tableNotFound(tableId);
    const { rows } = await pool.query<TableColumnRow>(TABLE_COLUMNS_SQL, [tableId]);
    const head = readableTable(rows[0], tableId, principal);
    const entry: TableColumns = {
      organizationId: head.organization_id,
      version: head.version,
      columns: rows.flatMap((row) =>
        row.id === null ? [] : [{ id: row.id, key: row.key, kind: row.kind, dataType: row.data_type }],
      ),
    };
    this.entries.delete(tableId);
    this.entries.set(tableId, entry);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxTables) break;
      this.entries.delete(oldest);
    }
    return entry;
  }
}

declare module '../../src/deps.ts' {
  interface ServiceParts {
    /** The columns of the tables whose rows this service read last (checked by every page's statement). */
    tableColumns: TableColumnsCache;
  }
}
