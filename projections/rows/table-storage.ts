import type { DataType } from '../../src/domain/columns/fields.ts';
import type { RowBatchEvent, RowEvent } from '../../src/domain/rows/events.ts';
import type { TableEvent } from '../../src/domain/tables/events.ts';
import { quoteIdent } from '../../src/projection/shadow-tables.ts';
import type { ApplyContext, RecordedOf } from '../../src/projection/types.ts';
import { isRunCellsEvent, type RunCellsEvent } from './run-cells.ts';
import {
  createPartition,
  existingIndexes,
  holdsRemoved,
  INLINE_DELETE_ROWS,
  indexChanges,
  ROW_INDEXES_KIND,
  ROW_STORAGE,
  ROWS,
  type RowIndexesPayload,
  removedOf,
  withoutRemoved,
} from './storage.ts';

export type StorageEvent = RecordedOf<
  Extract<TableEvent, { type: 'TableDeleted' | 'ColumnAdded' | 'ColumnRemoved' }>
>;
export const STORAGE_EVENTS = new Set(['TableDeleted', 'ColumnAdded', 'ColumnRemoved']);

/** An event that writes rows: the cells and statuses it writes are keyed by column id. */
export type RowWriteEvent = RecordedOf<RowEvent | RowBatchEvent> | RunCellsEvent;

interface TableStorage {
  table_id: string;
  partition: string | null;
  row_count: number;
  columns: Record<string, DataType>;
  deleted: boolean;
}

/** The column ids whose cells or statuses an event writes. */
function columnsWritten(event: RowWriteEvent): Iterable<string> {
  if (isRunCellsEvent(event)) return [event.data.columnId];
  if (event.type === 'RowsInserted') {
    const ids = new Set<string>();
    for (const row of event.data.rows) {
      for (const id in row.cells) ids.add(id);
      for (const id in row.statuses) ids.add(id);
    }
    return ids;
  }
  if (event.type === 'RowCellsChanged')
    return [...Object.keys(event.data.cells), ...Object.keys(event.data.statuses)];
  return [];
}

/**
 * The storage rows of the tables a batch touches, read and locked once, changed in memory by the
 * batch's column and table events, and written back with the row counts. What a change needs of a
 * partition happens here in a rebuild's shadow tables (nobody reads them yet), and in the live tables
 * by the row-indexes worker (processes/rows/), CONCURRENTLY or a few rows at a time, so that no read or
 * write of a large table waits for it: a new column's indexes built, a removed one's dropped and its
 * cells taken out of the rows. The removed columns go in the worker's item, not in this table: so do
 * the columns that a write names after their removal (the last cells of a run stopped by the delete,
 * say), whose cells would otherwise stay.
 */
export class Storage {
  /** Tables whose columns or existence changed: the event that changed each last. */
  private readonly changed = new Map<string, string>();
  /** Per table, removed columns whose cells are to leave its rows, and the event that said so last. */
  private readonly removed = new Map<string, { ids: Set<string>; eventId: string }>();
  /** Tables whose partition this batch made (with their indexes). */
  private readonly created = new Set<string>();

  private constructor(
    private readonly ctx: ApplyContext,
    private readonly tables: Map<string, TableStorage>,
    /** A rebuild's shadow tables: nobody reads them, so schema changes are made in place. */
    private readonly shadow: boolean,
  ) {}

  static async read(ctx: ApplyContext, tableIds: readonly string[]): Promise<Storage> {
    const { rows } = await ctx.tx.query<TableStorage & { row_count: string }>(
      `SELECT table_id, partition, row_count, columns, deleted FROM ${ctx.table(ROW_STORAGE)}
       WHERE table_id = ANY($1::text[]) FOR UPDATE`,
      [tableIds],
    );
    const tables = new Map(rows.map((r) => [r.table_id, { ...r, row_count: Number(r.row_count) }]));
    for (const tableId of tableIds) {
      if (!tables.has(tableId))
        tables.set(tableId, {
          table_id: tableId,
          partition: null,
          row_count: 0,
          columns: {},
          deleted: false,
        });
    }
    return new Storage(ctx, tables, ctx.table(ROWS) !== ROWS);
  }

  /** The tables that have a partition (rows of others cannot exist). */
  withRows(): string[] {
    return [...this.tables.values()].filter((t) => t.partition !== null).map((t) => t.table_id);
  }

  deletedAtEnd(tableId: string): boolean {
    return this.tables.get(tableId)?.deleted === true;
  }

  change(event: StorageEvent): void {
    const table = this.tables.get(event.data.tableId)!;
    if (event.type === 'ColumnAdded')
      table.columns = { ...table.columns, [event.data.columnId]: event.data.dataType };
    else if (event.type === 'ColumnRemoved') {
      const { [event.data.columnId]: _, ...rest } = table.columns;
      table.columns = rest;
      this.remove(table.table_id, event.data.columnId, event.id);
    } else table.deleted = true;
    this.changed.set(table.table_id, event.id);
  }

  /**
   * Notes the columns a row event writes that its table no longer has (the batch's column events are
   * applied already, and a column is added before any write names it): their cells are to go again.
   */
  written(event: RowWriteEvent): void {
    const table = this.tables.get(event.data.tableId)!;
    for (const id of removedOf(columnsWritten(event), table.columns))
      this.remove(table.table_id, id, event.id);
  }

  private remove(tableId: string, columnId: string, eventId: string): void {
    const entry = this.removed.get(tableId);
    if (entry) {
      entry.ids.add(columnId);
      entry.eventId = eventId;
    } else this.removed.set(tableId, { ids: new Set([columnId]), eventId });
  }

  /** Partitions for the tables that get rows in this batch and have none yet, indexed for their columns. */
  async partitionsFor(tableIds: readonly string[]): Promise<void> {
    for (const tableId of new Set(tableIds)) {
      const table = this.tables.get(tableId)!;
      if (table.partition !== null) continue;
      table.partition = await createPartition(this.ctx.tx, this.ctx.table(ROWS), tableId, table.columns);
      this.created.add(tableId);
    }
  }

  /**
   * Writes the storage rows back, the row counts moved by `counts`, and makes (in a rebuild) or
   * enqueues (live) what the changed tables' partitions need.
   */
  async save(counts: ReadonlyMap<string, number>): Promise<void> {
    const rows = [...this.tables.values()];
    for (const table of rows) {
      table.row_count += counts.get(table.table_id) ?? 0;
      if (table.deleted) await this.deleteRows(table);
      else if (this.shadow && table.partition !== null) await this.reshapeInPlace(table);
    }
    await this.ctx.tx.query(
      `INSERT INTO ${this.ctx.table(ROW_STORAGE)} AS s (table_id, partition, row_count, columns, deleted)
       SELECT table_id, partition, row_count, columns, deleted
       FROM json_to_recordset($1::json)
         AS r(table_id text, partition text, row_count bigint, columns jsonb, deleted boolean)
       ON CONFLICT (table_id) DO UPDATE SET partition = EXCLUDED.partition, row_count = EXCLUDED.row_count,
         columns = EXCLUDED.columns, deleted = EXCLUDED.deleted`,
      [JSON.stringify(rows)],
    );
    if (!this.shadow) await this.enqueueChanges();
  }

  /**
   * One item per event that asked (a settled item is kept a while, so an id is never enqueued twice),
   * one at a time per table; each brings the table's partition to what its storage row says, and takes
   * the removed columns it names out of the rows.
   */
  private async enqueueChanges(): Promise<void> {
    const items = new Map<string, { eventId: string; payload: RowIndexesPayload }>();
    for (const [tableId, eventId] of this.changed) items.set(tableId, { eventId, payload: { tableId } });
    for (const [tableId, { ids, eventId }] of this.removed) {
      const table = this.tables.get(tableId)!;
      if (table.deleted) continue;
      items.set(tableId, {
        eventId: items.get(tableId)?.eventId ?? eventId,
        payload: { tableId, removed: [...ids] },
      });
    }
    const partitioned = [...items].filter(([tableId]) => this.tables.get(tableId)!.partition !== null);
    if (partitioned.length === 0) return;
    await this.ctx.enqueue(
      partitioned.map(([tableId, { eventId, payload }]) => ({
        id: `${ROW_INDEXES_KIND}:${tableId}:${eventId}`,
        kind: ROW_INDEXES_KIND,
        organizationId: 'system',
        groupKey: tableId,
        groupLimit: 1,
        payload,
      })),
    );
  }

  /**
   * A deleted table's rows: in a rebuild its partition is dropped; live, a small table's rows are
   * deleted at once, and the row-indexes worker detaches and drops the partition (a large table's with
   * its rows) without locking table_rows.
   */
  private async deleteRows(table: TableStorage): Promise<void> {
    if (table.partition === null) return;
    if (this.shadow) {
      await this.ctx.tx.query(`DROP TABLE IF EXISTS ${quoteIdent(table.partition)}`);
      table.partition = null;
    } else if (table.row_count <= INLINE_DELETE_ROWS)
      await this.ctx.tx.query(`DELETE FROM ${quoteIdent(table.partition)}`);
    table.row_count = 0;
  }

  /**
   * A shadow partition made what its table's columns say, in the rebuild's transaction: its indexes
   * (those of a partition made in this batch are made for its columns already), and no cells of
   * removed columns.
   */
  private async reshapeInPlace(table: TableStorage): Promise<void> {
    const { tx } = this.ctx;
    const partition = table.partition!;
    if (this.changed.has(table.table_id) && !this.created.has(table.table_id)) {
      const existing = await existingIndexes(tx, partition);
      for (const step of indexChanges(partition, table.columns, existing, false)) await tx.query(step);
    }
    const removed = removedOf(this.removed.get(table.table_id)?.ids ?? [], table.columns);
    if (removed.length === 0) return;
    await tx.query(
      `UPDATE ${quoteIdent(partition)} r SET ${withoutRemoved('$1::text[]')} WHERE ${holdsRemoved('$1::text[]')}`,
      [removed],
    );
  }
}
