import { z } from 'zod';
import { configRefs } from '../../processes/runs/providers/index.ts';
import { columnsProjection } from '../../projections/columns/columns.ts';
import { loadTableForWrite } from '../../services/tables/load.ts';
import { handleCommand, loadState } from '../../src/command.ts';
import { type ColumnState, columnStream } from '../../src/domain/columns/column-state.ts';
import { refersTo } from '../../src/domain/columns/references.ts';
import { columnNotFound, memberColumn, tableNotFound } from '../../src/domain/tables/access.ts';
import { ColumnParams } from '../../src/domain/tables/schemas.ts';
import { type TableColumn, type TableState, tableStream } from '../../src/domain/tables/table-state.ts';
import { AppError, formatPath } from '../../src/errors.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { stopColumnRuns } from '../runs/stop-run.ts';

/** A column whose config names the column being deleted, and where. */
export interface Referrer {
  id: string;
  key: string;
  paths: string[];
}

export interface RemoveColumn {
  tableId: string;
  columnId: string;
  /** Gathered from the other columns' streams before deciding. */
  referencedBy: Referrer[];
}

/** On the table's stream: the column leaves its table (and frees its key) unless another column needs it. */
export const removeColumn = tableStream.decider((command: RemoveColumn, state) => {
  if (!state.exists) throw tableNotFound(command.tableId);
  const column = state.columns.get(command.columnId);
  if (!column) throw columnNotFound(command.tableId, command.columnId);
  if (command.referencedBy.length > 0) {
    const list = command.referencedBy.map((r) => `${r.key} (${r.paths.join(', ')})`).join('; ');
    throw new AppError('column_in_use', `Column ${column.key} is referenced by: ${list}.`, {
      referencedBy: command.referencedBy,
    });
  }
  return [
    { type: 'ColumnRemoved', data: { tableId: command.tableId, columnId: column.id, key: column.key } },
  ];
});

/** The current state of every column of the table, read from their streams. */
export async function loadColumns(store: EventStore, table: TableState): Promise<ColumnState[]> {
  return Promise.all(
    [...table.columns.keys()].map(
      async (id) => (await loadState(store, columnStream.name(table.id, id), columnStream)).state,
    ),
  );
}

/** Every other column whose run condition, mapping, template or source list names `target`. */
export async function findReferrers(
  store: EventStore,
  table: TableState,
  target: TableColumn,
): Promise<Referrer[]> {
  const columns = await loadColumns(store, table);
  return columns.flatMap(({ column }) => {
    if (!column || column.id === target.id) return [];
    const paths = configRefs(column.config)
      .filter((ref) => refersTo(ref, target))
      .map((ref) => formatPath(['config', ...ref.path]));
    return paths.length > 0 ? [{ id: column.id, key: column.key, paths }] : [];
  });
}

/**
 * DELETE /api/tables/{tableId}/columns/{columnId}. The references are read just before the append;
 * a PATCH that adds a reference in that instant can still win the race, and a run then finds the
 * reference missing and applies the condition's missingPolicy.
 */
export const deleteColumnRoute: RouteModule = (app, deps) => {
  app.delete(
    '/api/tables/:tableId/columns/:columnId',
    {
      config: { access: 'columns:write' },
      schema: {
        operationId: 'deleteColumn',
        tags: ['columns'],
        summary: 'Delete a column',
        params: ColumnParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const { tableId, columnId } = request.params;
      const { state: table } = await loadTableForWrite(deps.store, tableId, principalOf(request));
      const target = memberColumn(table, columnId);
      const metadata = eventMetadata(request);
      const result = await handleCommand({
        store: deps.store,
        stream: tableStream.name(tableId),
        decider: removeColumn,
        command: { tableId, columnId, referencedBy: await findReferrers(deps.store, table, target) },
        metadata,
        now: deps.clock(),
      });
      await stopColumnRuns(deps, tableId, [columnId], metadata);
      await readYourWrites(deps, result.appended?.position, [columnsProjection]);
      return reply.code(204).send(null);
    },
  );
};
