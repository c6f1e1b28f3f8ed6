import { createHash } from 'node:crypto';
import type { DataType } from '../../src/domain/columns/fields.ts';
import { columnKey, isIndexedType } from '../../src/domain/rows/keys.ts';
import { quoteIdent } from '../../src/projection/shadow-tables.ts';
import type { ApplyContext } from '../../src/projection/types.ts';

/**
 * Where the rows read model keeps a research table's rows: `table_rows` is partitioned by table, one
 * partition (a PostgreSQL table of its own) per research table, made when its first rows arrive. Each
 * partition has, besides its primary key, two indexes per column that has a key (src/domain/rows/
 * keys.ts): the key ascending and descending, both NULLs last with ties by row id, so that a sort by
 * any column, either way, and a filter on it read a page from an index. Measured against typed partial
 * indexes on one shared table and a typed table per research table in docs/architecture.md.
 *
 * `table_row_storage` says, per research table, which partition holds its rows, how many it holds
 * (kept as rows come and go: the tables API shows it) and the columns the partition is indexed for. A
 * removed column's cells are taken out of the rows after its indexes (processes/rows/purge-cells.ts).
 */
export const ROWS = 'table_rows';
export const ROW_STORAGE = 'table_row_storage';

/**
 * Work items that build and drop indexes, take removed columns' cells out of the rows, and drop a
 * deleted table's partition, off the projection (processes/rows/).
 */
export const ROW_INDEXES_KIND = 'row-indexes';

/**
 * A deleted table of at most this many rows loses them at once, in the projection's transaction (a
 * DELETE of its partition's rows, which blocks nothing else); a larger one keeps them until the
 * row-indexes worker detaches and drops its partition. Index changes of a live table with rows are
 * always the worker's: a plain CREATE INDEX would wait for a build CONCURRENTLY under way on the table,
 * holding up the projection of every table meanwhile.
 */
export const INLINE_DELETE_ROWS = 20_000;

export const storageTables = {
  // id sorts in creation order byte by byte (src/domain/rows/ids.ts): the primary key serves the
  // default order, paging by id and every lookup of a row.
  [ROWS]: (t: string) => [
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
    ) PARTITION BY LIST (table_id)`,
  ],
  [ROW_STORAGE]: (t: string) => [
    `CREATE TABLE ${t} (
      table_id text PRIMARY KEY,
      -- The partition of table_rows holding the table's rows, once it has had any.
      partition text,
      row_count bigint NOT NULL DEFAULT 0,
      -- The table's current columns: column id -> data type.
      columns jsonb NOT NULL DEFAULT '{}',
      deleted boolean NOT NULL DEFAULT false
    )`,
  ],
};

const hash = (text: string, chars: number) => createHash('sha256').update(text).digest('hex').slice(0, chars);

/** The partition of `parent` (live or a rebuild's shadow) for a research table: short, and unique to both. */
export const partitionName = (parent: string, tableId: string) => `rows_${hash(`${parent}:${tableId}`, 16)}`;

/** An index of a column's key on a partition; `d` for the descending one. */
export const indexName = (partition: string, columnId: string, desc: boolean) =>
  `${partition}_${hash(columnId, 10)}_${desc ? 'd' : 'a'}`;

/** The name pattern of key indexes (indexName), for telling them from the primary key. */
export const KEY_INDEX = /_[0-9a-f]{10}_[ad]$/;

export interface KeyIndex {
  name: string;
  columnId: string;
  dataType: DataType;
  desc: boolean;
}

/** The key indexes a partition should have for the table's columns (column id -> data type). */
export function wantedIndexes(partition: string, columns: Readonly<Record<string, DataType>>): KeyIndex[] {
  return Object.entries(columns)
    .filter(([, dataType]) => isIndexedType(dataType))
    .flatMap(([columnId, dataType]) =>
      [false, true].map((desc) => ({ name: indexName(partition, columnId, desc), columnId, dataType, desc })),
    );
}

/** Row keys (after, last]: the rows of one statement of a purge (processes/rows/purge-cells.ts). */
export type KeyRange = [after: string, last: string];

/** What a row-indexes work item asks: the table, and removed columns whose cells are to leave its rows. */
export interface RowIndexesPayload {
  tableId: string;
  removed?: string[];
  /** How many items went on with `removed` before this one (they found rows busy, or failed). */
  again?: number;
  /** Only these ranges of row keys (after, last] are left to purge: they were busy. */
  busy?: KeyRange[];
}

/**
 * The statements that bring a partition's key indexes from `existing` to what its columns want: the
 * unwanted or invalid ones dropped, the missing ones built.
 */
export function indexChanges(
  partition: string,
  columns: Readonly<Record<string, DataType>>,
  existing: readonly { name: string; valid: boolean }[],
  concurrently: boolean,
): string[] {
  const wanted = wantedIndexes(partition, columns);
  const names = new Set(wanted.map((i) => i.name));
  const valid = new Set(existing.filter((i) => i.valid).map((i) => i.name));
  return [
    ...existing.filter((i) => !i.valid || !names.has(i.name)).map((i) => dropIndexSql(i.name, concurrently)),
    ...wanted.filter((i) => !valid.has(i.name)).map((i) => createIndexSql(partition, i, concurrently)),
  ];
}

/**
 * Of the column ids `ids`, those the table's current `columns` do not hold: removed ones. Ids never come
 * back, so a current column's id is no removed column's, and its cells are never purged, whatever named it.
 */
export const removedOf = (ids: Iterable<string>, columns: Readonly<Record<string, DataType>>): string[] =>
  [...ids].filter((id) => !(id in columns));

/**
 * Removed columns' cells and statuses taken out of rows, as SQL over a row `r` given the placeholder of
 * their ids (text[]): `holdsRemoved` finds the rows that hold any, `withoutRemoved` is the SET.
 */
export const holdsRemoved = (ids: string) => `(r.cells ?| ${ids} OR r.cell_status ?| ${ids})`;
export const withoutRemoved = (ids: string) =>
  `cells = r.cells - ${ids}, cell_status = r.cell_status - ${ids}`;

/** CREATE INDEX of a key index (CONCURRENTLY outside a transaction, for a table in use). */
export const createIndexSql = (partition: string, index: KeyIndex, concurrently: boolean) =>
  `CREATE INDEX ${concurrently ? 'CONCURRENTLY ' : ''}IF NOT EXISTS ${quoteIdent(index.name)} ON ${quoteIdent(partition)}
   (${columnKey(index.dataType, index.columnId, 'cells')} ${index.desc ? 'DESC ' : ''}NULLS LAST, id)`;

export const dropIndexSql = (name: string, concurrently: boolean) =>
  `DROP INDEX ${concurrently ? 'CONCURRENTLY ' : ''}IF EXISTS ${quoteIdent(name)}`;

/** The key indexes a partition has, valid or not (a CONCURRENTLY build that failed leaves one invalid). */
export async function existingIndexes(
  db: Pick<ApplyContext['tx'], 'query'>,
  partition: string,
): Promise<{ name: string; valid: boolean }[]> {
  const { rows } = await db.query<{ name: string; valid: boolean }>(
    `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE i.indrelid = to_regclass($1)`,
    [quoteIdent(partition)],
  );
  return rows.filter((r) => KEY_INDEX.test(r.name));
}

/**
 * Makes a research table's partition of `parent` with the indexes of its columns (the table is empty,
 * so they cost nothing yet), then attaches it. A partition created with CREATE TABLE ... PARTITION OF
 * would lock the whole of table_rows (every table's reads) until the projection's commit; ATTACH
 * takes a lock that reads and writes of other tables pass.
 */
export async function createPartition(
  tx: ApplyContext['tx'],
  parent: string,
  tableId: string,
  columns: Readonly<Record<string, DataType>>,
): Promise<string> {
  const partition = partitionName(parent, tableId);
  await tx.query(
    `CREATE TABLE IF NOT EXISTS ${quoteIdent(partition)} (LIKE ${quoteIdent(parent)} INCLUDING DEFAULTS)`,
  );
  await tx.query(
    `ALTER TABLE ${quoteIdent(partition)} ADD CONSTRAINT ${quoteIdent(`${partition}_pkey`)} PRIMARY KEY (table_id, id)`,
  );
  for (const index of wantedIndexes(partition, columns))
    await tx.query(createIndexSql(partition, index, false));
  await tx.query(
    `ALTER TABLE ${quoteIdent(parent)} ATTACH PARTITION ${quoteIdent(partition)} FOR VALUES IN (${literal(tableId)})`,
  );
  return partition;
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
