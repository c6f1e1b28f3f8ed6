import { z } from 'zod';
import { tablesProjection } from '../../projections/tables/tables.ts';
import { rowCountOf } from '../../queries/tables/row-count.ts';
import { loadTableForWrite } from '../../services/tables/load.ts';
import { handleCommand } from '../../src/command.ts';
import { tableNotFound } from '../../src/domain/tables/access.ts';
import { TableNameSchema, TableParams, TableSchema } from '../../src/domain/tables/schemas.ts';
import { tableStream, tableView } from '../../src/domain/tables/table-state.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export interface RenameTable {
  tableId: string;
  name: string;
}

export const renameTable = tableStream.decider((command: RenameTable, state, now) => {
  if (!state.exists) throw tableNotFound(command.tableId);
  if (state.name === command.name) return [];
  return [{ type: 'TableRenamed', data: { ...command, at: now.toISOString() } }];
});

export const RenameTableBody = z.strictObject({ name: TableNameSchema });

/** PATCH /api/tables/{tableId}: rename. */
export const renameTableRoute: RouteModule = (app, deps) => {
  app.patch(
    '/api/tables/:tableId',
    {
      config: { access: 'tables:write' },
      schema: {
        operationId: 'patchTable',
        tags: ['tables'],
        summary: 'Rename a research table',
        params: TableParams,
        body: RenameTableBody,
        response: { 200: TableSchema },
      },
    },
    async (request) => {
      const { tableId } = request.params;
      await loadTableForWrite(deps.store, tableId, principalOf(request));
      const result = await handleCommand({
        store: deps.store,
        stream: tableStream.name(tableId),
        decider: renameTable,
        command: { tableId, name: request.body.name },
        metadata: eventMetadata(request),
        now: deps.clock(),
      });
      await readYourWrites(deps, result.appended?.position, [tablesProjection]);
      return { ...tableView(result.state), rowCount: await rowCountOf(deps.pool, tableId) };
    },
  );
};
