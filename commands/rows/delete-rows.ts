import { z } from 'zod';
import { rowsProjection } from '../../projections/rows/rows.ts';
import { insertedRows } from '../../services/rows/load.ts';
import { loadTableForWrite } from '../../services/tables/load.ts';
import { handleCommandBatch } from '../../src/command-batch.ts';
import { isRowId } from '../../src/domain/rows/ids.ts';
import { rowStream } from '../../src/domain/rows/row-state.ts';
import { RowIdsSchema } from '../../src/domain/rows/schemas.ts';
import { TableParams } from '../../src/domain/tables/schemas.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { deleteRow } from './delete-row.ts';
import { newest } from './shared.ts';

export const DeleteRowsBody = z.strictObject({ rowIds: RowIdsSchema });

/**
 * POST /api/tables/{tableId}/rows/delete: the rows of the table among those named. An id that names
 * no row of the table (unknown, deleted already, another table's, of the wrong form) is not counted.
 */
export const deleteRowsRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tables/:tableId/rows/delete',
    {
      config: { access: 'tables:write' },
      schema: {
        operationId: 'deleteRows',
        tags: ['rows'],
        summary: 'Delete rows by id',
        description: '`deleted` counts the rows deleted; ids naming no row of the table are not counted.',
        params: TableParams,
        body: DeleteRowsBody,
        response: { 200: z.object({ deleted: z.number().int() }) },
      },
    },
    async (request) => {
      const { tableId } = request.params;
      await loadTableForWrite(deps.store, tableId, principalOf(request));
      const ids = [...new Set(request.body.rowIds)].filter(isRowId);
      const now = deps.clock();
      const metadata = eventMetadata(request);
      const origins = await insertedRows(deps.store, tableId, ids);
      const outcomes = await handleCommandBatch({
        store: deps.store,
        decider: deleteRow,
        read: 'all',
        items: ids.map((rowId) => ({
          stream: rowStream.name(tableId, rowId),
          command: { tableId, rowId },
          metadata,
          now,
          initial: origins.get(rowId),
        })),
      });
      const deleted = outcomes.flatMap((outcome) => {
        if (outcome.ok) return [outcome.result];
        if (outcome.error instanceof AppError && outcome.error.code === 'not_found') return [];
        throw outcome.error;
      });
      await readYourWrites(deps, newest(deleted.map((r) => r.appended?.position)), [rowsProjection]);
      return { deleted: deleted.length };
    },
  );
};
