import { z } from 'zod';
import { rowsProjection } from '../../projections/rows/rows.ts';
import { insertedRows } from '../../services/rows/load.ts';
import { loadTableForWrite } from '../../services/tables/load.ts';
import { handleCommand } from '../../src/command.ts';
import { rowNotFound } from '../../src/domain/rows/access.ts';
import { isRowId } from '../../src/domain/rows/ids.ts';
import { rowStream } from '../../src/domain/rows/row-state.ts';
import { RowParams } from '../../src/domain/rows/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export interface DeleteRow {
  tableId: string;
  rowId: string;
}

/** A row leaves its table; its stream keeps its history. */
export const deleteRow = rowStream.decider((command: DeleteRow, state, now) => {
  if (!state.exists || state.deleted) throw rowNotFound(command.tableId, command.rowId);
  return [{ type: 'RowDeleted', data: { ...command, at: now.toISOString() } }];
});

/** DELETE /api/tables/{tableId}/rows/{rowId} */
export const deleteRowRoute: RouteModule = (app, deps) => {
  app.delete(
    '/api/tables/:tableId/rows/:rowId',
    {
      config: { access: 'tables:write' },
      schema: {
        operationId: 'deleteRow',
        tags: ['rows'],
        summary: 'Delete a row',
        params: RowParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const { tableId, rowId } = request.params;
      await loadTableForWrite(deps.store, tableId, principalOf(request));
      if (!isRowId(rowId)) throw rowNotFound(tableId, rowId);
      const result = await handleCommand({
        store: deps.store,
        stream: rowStream.name(tableId, rowId),
        decider: deleteRow,
        command: { tableId, rowId },
        metadata: eventMetadata(request),
        now: deps.clock(),
        initialState: (await insertedRows(deps.store, tableId, [rowId])).get(rowId),
      });
      await readYourWrites(deps, result.appended?.position, [rowsProjection]);
      return reply.code(204).send(null);
    },
  );
};
