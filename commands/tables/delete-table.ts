import { z } from 'zod';
import { COLUMNS, columnsProjection } from '../../projections/columns/columns.ts';
import { rowsProjection } from '../../projections/rows/rows.ts';
import { tablesProjection } from '../../projections/tables/tables.ts';
import { loadTableForWrite } from '../../services/tables/load.ts';
import { handleCommand } from '../../src/command.ts';
import type { Pool } from '../../src/db/pool.ts';
import { tableNotFound } from '../../src/domain/tables/access.ts';
import { TableParams } from '../../src/domain/tables/schemas.ts';
import { tableStream } from '../../src/domain/tables/table-state.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { stopColumnRuns } from '../runs/stop-run.ts';

/** A column of another table that names this one (a sync_to_table destination). */
export interface TableReferrer {
  tableId: string;
  columnId: string;
  key: string;
  path: string;
}

export interface DeleteTable {
  tableId: string;
  /** Gathered from the columns read model before deciding. */
  referencedBy: TableReferrer[];
}

/**
 * The table leaves with its columns: a ColumnRemoved for each (so the columns read model drops them
 * as it drops a deleted column), then TableDeleted, in one append. Refused while another table's
 * column would be left pointing at nothing.
 */
export const deleteTable = tableStream.decider((command: DeleteTable, state, now) => {
  if (!state.exists) throw tableNotFound(command.tableId);
  if (command.referencedBy.length > 0) {
    const list = command.referencedBy.map((r) => `${r.key} of table ${r.tableId} (${r.path})`).join('; ');
    throw new AppError('table_in_use', `Table ${command.tableId} is referenced by: ${list}.`, {
      referencedBy: command.referencedBy,
    });
  }
  return [
    ...[...state.columns.values()].map((column) => ({
      type: 'ColumnRemoved' as const,
      data: { tableId: state.id, columnId: column.id, key: column.key },
    })),
    { type: 'TableDeleted' as const, data: { tableId: state.id, at: now.toISOString() } },
  ];
});

/**
 * Columns of other tables whose config names the table as its destination. Read from the read model
 * just before the append: a column created with that destination in the same instant can still win
 * the race, and its runs then find no table and fail per row.
 */
async function tableReferrers(pool: Pool, tableId: string): Promise<TableReferrer[]> {
  const { rows } = await pool.query<{ table_id: string; id: string; key: string }>(
    `SELECT table_id, id, key FROM ${COLUMNS}
     WHERE config->>'destinationTableId' = $1 AND table_id <> $1 ORDER BY table_id, position, id`,
    [tableId],
  );
  return rows.map((r) => ({
    tableId: r.table_id,
    columnId: r.id,
    key: r.key,
    path: 'config.destinationTableId',
  }));
}

/** DELETE /api/tables/{tableId}: the table, its columns and its rows go. */
export const deleteTableRoute: RouteModule = (app, deps) => {
  app.delete(
    '/api/tables/:tableId',
    {
      config: { access: 'tables:write' },
      schema: {
        operationId: 'deleteTable',
        tags: ['tables'],
        summary: 'Delete a research table with its columns',
        description: 'Refused with 409 table_in_use while a column of another table names it.',
        params: TableParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const { tableId } = request.params;
      const { state: table } = await loadTableForWrite(deps.store, tableId, principalOf(request));
      const metadata = eventMetadata(request);
      const result = await handleCommand({
        store: deps.store,
        stream: tableStream.name(tableId),
        decider: deleteTable,
        command: { tableId, referencedBy: await tableReferrers(deps.pool, tableId) },
        metadata,
        now: deps.clock(),
      });
      await stopColumnRuns(deps, tableId, table.columns.keys(), metadata);
      await readYourWrites(deps, result.appended?.position, [
        tablesProjection,
        columnsProjection,
        rowsProjection,
      ]);
      return reply.code(204).send(null);
    },
  );
};
