import { z } from 'zod';
import { type Decider, handleCommand } from '../../src/command.ts';
import { loadTableForWrite, tableNotFound } from '../../src/domain/tables/access.ts';
import type { TableEvent } from '../../src/domain/tables/events.ts';
import {
  eventMetadata,
  readYourWrites,
  TableNameSchema,
  TableParams,
  TableSchema,
} from '../../src/domain/tables/http.ts';
import {
  evolveTable,
  initialTableState,
  type TableState,
  tableView,
} from '../../src/domain/tables/table-state.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/app.ts';
import { streams } from '../../src/streams.ts';

export interface RenameTable {
  tableId: string;
  name: string;
}

export const renameTable: Decider<TableState, RenameTable, TableEvent> = {
  initialState: initialTableState,
  evolve: evolveTable,
  decide: (command, state, now) => {
    if (!state.exists) throw tableNotFound(command.tableId);
    if (state.name === command.name) return [];
    return [{ type: 'TableRenamed', data: { ...command, at: now.toISOString() } }];
  },
};

export const RenameTableBody = z.strictObject({ name: TableNameSchema });

/** PATCH /api/tables/{tableId}: rename. */
export const renameTableRoute: RouteModule = (app, deps) => {
  app.patch(
    '/api/tables/:tableId',
    {
      config: { access: 'tables:write' },
      schema: {
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
        stream: streams.table(tableId),
        decider: renameTable,
        command: { tableId, name: request.body.name },
        metadata: eventMetadata(request),
        now: deps.clock(),
      });
      await readYourWrites(deps, result.appended?.position, ['tables']);
      return tableView(result.state);
    },
  );
};
