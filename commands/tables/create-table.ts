import { z } from 'zod';
import { tablesProjection } from '../../projections/tables/tables.ts';
import { handleCommand } from '../../src/command.ts';
import { newTableId } from '../../src/domain/tables/ids.ts';
import { TableNameSchema, TableSchema } from '../../src/domain/tables/schemas.ts';
import { tableStream, tableView } from '../../src/domain/tables/table-state.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export interface CreateTable {
  tableId: string;
  organizationId: string;
  name: string;
}

export const createTable = tableStream.decider((command: CreateTable, state, now) => {
  if (state.exists) throw new AppError('conflict', `Table ${command.tableId} already exists.`);
  return [{ type: 'TableCreated', data: { ...command, at: now.toISOString() } }];
});

export const CreateTableBody = z.strictObject({ name: TableNameSchema });

/** POST /api/tables: a table of the key's organization. */
export const createTableRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tables',
    {
      config: { access: 'tables:write' },
      schema: {
        operationId: 'createTable',
        tags: ['tables'],
        summary: 'Create a research table',
        body: CreateTableBody,
        response: { 201: TableSchema },
      },
    },
    async (request, reply) => {
      const command = {
        tableId: newTableId(),
        organizationId: principalOf(request).organizationId,
        name: request.body.name,
      };
      const result = await handleCommand({
        store: deps.store,
        stream: tableStream.name(command.tableId),
        decider: createTable,
        command,
        metadata: eventMetadata(request),
        now: deps.clock(),
      });
      await readYourWrites(deps, result.appended?.position, [tablesProjection]);
      reply.header('location', `/api/tables/${encodeURIComponent(command.tableId)}`);
      // A new table has no rows yet.
      return reply.code(201).send({ ...tableView(result.state), rowCount: 0 });
    },
  );
};
