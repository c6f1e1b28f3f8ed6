import { z } from 'zod';
import { type Decider, handleCommand } from '../../src/command.ts';
import type { TableEvent } from '../../src/domain/tables/events.ts';
import { eventMetadata, readYourWrites, TableNameSchema, TableSchema } from '../../src/domain/tables/http.ts';
import { newTableId } from '../../src/domain/tables/ids.ts';
import {
  evolveTable,
  initialTableState,
  type TableState,
  tableView,
} from '../../src/domain/tables/table-state.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/app.ts';
import { streams } from '../../src/streams.ts';

export interface CreateTable {
  tableId: string;
  organizationId: string;
  name: string;
}

export const createTable: Decider<TableState, CreateTable, TableEvent> = {
  initialState: initialTableState,
  evolve: evolveTable,
  decide: (command, state, now) => {
    if (state.exists) throw new AppError('conflict', `Table ${command.tableId} already exists.`);
    return [{ type: 'TableCreated', data: { ...command, at: now.toISOString() } }];
  },
};

export const CreateTableBody = z.strictObject({ name: TableNameSchema });

/** POST /api/tables: a table of the key's organization. */
export const createTableRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tables',
    {
      config: { access: 'tables:write' },
      schema: {
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
        stream: streams.table(command.tableId),
        decider: createTable,
        command,
        metadata: eventMetadata(request),
        now: deps.clock(),
      });
      await readYourWrites(deps, result.appended?.position, ['tables']);
      return reply.code(201).send(tableView(result.state));
    },
  );
};
