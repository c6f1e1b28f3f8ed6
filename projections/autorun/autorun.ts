import type { ProviderSpecs } from '../../src/domain/columns/config/index.ts';
import { mergeConfig } from '../../src/domain/columns/config-merge.ts';
import type { ColumnEvent } from '../../src/domain/columns/events.ts';
import type { AutoRun } from '../../src/domain/columns/fields.ts';
import { columnsRead, type TriggerColumn } from '../../src/domain/columns/retrigger-cycle.ts';
import type { RowBatchEvent, RowEvent } from '../../src/domain/rows/events.ts';
import type { TableEvent } from '../../src/domain/tables/events.ts';
import type { Projection, RecordedOf } from '../../src/projection/types.ts';
import {
  AUTORUN_COLUMNS,
  AUTORUN_KIND,
  AUTORUN_PENDING,
  type AutoColumn,
  addPending,
  loadColumns,
  loadOrganizations,
  type Pending,
  saveColumns,
} from './autorun-tables.ts';

export { AUTORUN_COLUMNS, AUTORUN_KIND, AUTORUN_PENDING, pendingLock } from './autorun-tables.ts';

type Handled = RecordedOf<
  | Extract<TableEvent, { type: 'TableCreated' | 'ColumnRemoved' | 'TableDeleted' }>
  | ColumnEvent
  | RowEvent
  | RowBatchEvent
>;

/**
 * Auto-run (issue 15, item 5), a reactor: it follows the log like any projection and, in the
 * transaction of its checkpoint, turns inserted rows (for `onInsert` columns) and changed source cells
 * (for `onSourceUpdate` columns) into pending rows per column, plus one work item per column that has
 * pending rows; the autorun worker starts runs for them. It keeps its own copy of each table's columns
 * (autoRun and config, as of the event it is applying), so a column created just before a row insert
 * is seen, whatever the columns read model has reached. A cell written by a column's own run never
 * re-runs that column (its own output is not one of its sources), and status-only changes (queued,
 * running) change no value, so they trigger nothing. Its version must never be bumped (a reactor
 * read from the start would ask again for what is long done). Which columns a column reads comes
 * from its provider's spec: the composition root passes the provider registry's (`providers`).
 */
export const autorunReactorWith = (
  providers: ProviderSpecs,
): Projection<Handled extends RecordedOf<infer E> ? E : never> => ({
  name: 'autorun',
  version: 1,
  enqueues: [AUTORUN_KIND],
  notRebuildable:
    'the auto-run worker empties its pending rows without an event, so a replay would bring back every row ever pending',
  handles: [
    'TableCreated',
    'ColumnRemoved',
    'TableDeleted',
    'ColumnCreated',
    'ColumnPatched',
    'RowsInserted',
    'RowCellsChanged',
  ],
  tables: {
    autorun_tables: (t) => [`CREATE TABLE ${t} (table_id text PRIMARY KEY, organization_id text NOT NULL)`],
    [AUTORUN_COLUMNS]: (t) => [
      `CREATE TABLE ${t} (
        column_id text PRIMARY KEY,
        table_id text NOT NULL,
        key text NOT NULL,
        auto_run text NOT NULL,
        config jsonb NOT NULL
      )`,
      `CREATE INDEX ${t}_by_table ON ${t} (table_id)`,
    ],
    [AUTORUN_PENDING]: (t) => [
      `CREATE TABLE ${t} (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id text NOT NULL,
        table_id text NOT NULL,
        column_id text NOT NULL,
        row_id text NOT NULL,
        trigger text NOT NULL,
        commit_position bigint NOT NULL,
        prepare_position bigint NOT NULL,
        UNIQUE (column_id, row_id, trigger)
      )`,
    ],
  },
  async apply(batch, { tx, table, enqueue }) {
    const events = batch as readonly Handled[];
    const tableIds = [...new Set(events.map((e) => e.data.tableId))];
    const columns = await loadColumns(tx, table, tableIds);
    // Only a column's creation needs its table's organization (TableCreated brings its own): the batches
    // of a run's results, most of what this follows, read none.
    const organizations = events.some((e) => e.type === 'ColumnCreated')
      ? await loadOrganizations(tx, table('autorun_tables'), tableIds)
      : new Map<string, string>();
    const changedColumns = new Set<string>();
    const removed = new Set<string>();
    const pending: Pending[] = [];
    const ask = (event: Handled, column: AutoColumn, rowId: string, trigger: Pending['trigger']) =>
      pending.push({
        organizationId: column.organizationId,
        tableId: column.tableId,
        columnId: column.id,
        rowId,
        trigger,
        commit: event.position.commit.toString(),
        prepare: event.position.prepare.toString(),
        eventId: event.id,
      });
    for (const event of events) {
      switch (event.type) {
        case 'TableCreated':
          organizations.set(event.data.tableId, event.data.organizationId);
          await tx.query(`INSERT INTO ${table('autorun_tables')} VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
            event.data.tableId,
            event.data.organizationId,
          ]);
          break;
        case 'TableDeleted':
          for (const [id, c] of columns) if (c.tableId === event.data.tableId) dropColumn(id);
          await tx.query(`DELETE FROM ${table('autorun_tables')} WHERE table_id = $1`, [event.data.tableId]);
          break;
        case 'ColumnRemoved':
          dropColumn(event.data.columnId);
          break;
        case 'ColumnCreated': {
          const { tableId, columnId, key, autoRun, config } = event.data;
          const organizationId = organizations.get(tableId);
          if (!organizationId) break;
          columns.set(columnId, { id: columnId, key, autoRun, config, tableId, organizationId });
          changedColumns.add(columnId);
          removed.delete(columnId);
          break;
        }
        case 'ColumnPatched': {
          const column = columns.get(event.data.columnId);
          const { autoRun, config } = event.data.changes;
          if (!column || (autoRun === undefined && config === undefined)) break;
          columns.set(column.id, {
            ...column,
            autoRun: (autoRun ?? column.autoRun) as AutoRun,
            config: config ? mergeConfig(column.config, config) : column.config,
          });
          changedColumns.add(column.id);
          break;
        }
        case 'RowsInserted':
          for (const column of columnsOf(columns, event.data.tableId)) {
            if (column.autoRun !== 'onInsert' || !isComputed(column)) continue;
            for (const row of event.data.rows) ask(event, column, row.rowId, 'onInsert');
          }
          break;
        case 'RowCellsChanged': {
          const changed = new Set(Object.keys(event.data.cells));
          if (changed.size === 0) break;
          const all = columnsOf(columns, event.data.tableId);
          for (const column of all) {
            if (column.autoRun !== 'onSourceUpdate' || !isComputed(column)) continue;
            const sources = columnsRead(column, all, providers);
            if ([...sources].some((id) => changed.has(id)))
              ask(event, column, event.data.rowId, 'onSourceUpdate');
          }
          break;
        }
      }
    }
    await saveColumns(tx, table(AUTORUN_COLUMNS), columns, changedColumns, removed);
    await addPending(tx, table(AUTORUN_PENDING), pending, enqueue);

    function dropColumn(id: string) {
      columns.delete(id);
      changedColumns.delete(id);
      removed.add(id);
    }
  },
});

const isComputed = (column: TriggerColumn) => typeof column.config.provider === 'string';

const columnsOf = (columns: Map<string, AutoColumn>, tableId: string) =>
  [...columns.values()].filter((c) => c.tableId === tableId);
