import { z } from 'zod';
import {
  ColumnResponseSchema,
  ConfigCreateSchema,
  PROVIDER_SPECS,
  validateColumnConfig,
} from '../../processes/runs/providers/index.ts';
import { COLUMNS, columnsProjection } from '../../projections/columns/columns.ts';
import { loadTriggerColumns } from '../../services/columns/trigger-columns.ts';
import { promptTemplatesNamed } from '../../services/prompts/column-templates.ts';
import { sequencesNamed } from '../../services/sequences/column-sequences.ts';
import { loadTableForWrite, tableOrganizations } from '../../services/tables/load.ts';
import { type CommandResult, handleCommand } from '../../src/command.ts';
import type { Pool } from '../../src/db/pool.ts';
import { withSessionLock } from '../../src/db/session-lock.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { refuseAutoRunWithoutProvider } from '../../src/domain/columns/auto-run.ts';
import { type ColumnState, columnStream } from '../../src/domain/columns/column-state.ts';
import type { ConfigContext } from '../../src/domain/columns/config/index.ts';
import { boundRunConditions, invalidConfig, withoutNulls } from '../../src/domain/columns/config-input.ts';
import { etagOf } from '../../src/domain/columns/etag.ts';
import type { ColumnEvent } from '../../src/domain/columns/events.ts';
import {
  AutoRunSchema,
  COLUMN_KEY,
  type Column,
  ColumnKeySchema,
  ColumnKindSchema,
  DataTypeSchema,
  deriveKey,
  LabelSchema,
  OriginSchema,
  PositionSchema,
} from '../../src/domain/columns/fields.ts';
import { refuseRetriggerCycle, triggerColumn } from '../../src/domain/columns/retrigger-cycle.ts';
import { tableNotFound } from '../../src/domain/tables/access.ts';
import { newColumnId } from '../../src/domain/tables/ids.ts';
import { TableParams } from '../../src/domain/tables/schemas.ts';
import { columnMembers, tableStream } from '../../src/domain/tables/table-state.ts';
import { AppError } from '../../src/errors.ts';
import type { EventMetadata } from '../../src/event-store/port.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { removeColumn } from './delete-column.ts';
// The per-request FilterObject (used by column runs) is published in the OpenAPI document already.
import '../../src/domain/columns/filter-object.ts';

/** Step 1, on the table's stream: the key is claimed with the revision read, so it is unique in the table. */
export interface AddColumn {
  tableId: string;
  columnId: string;
  key: string;
  kind: Column['kind'];
  dataType: Column['dataType'];
}

export const addColumn = tableStream.decider((command: AddColumn, state) => {
  if (!state.exists) throw tableNotFound(command.tableId);
  if ([...state.columns.values()].some((c) => c.key === command.key)) {
    throw new AppError('column_key_taken', `The key ${command.key} is already used in this table.`, {
      errors: [{ path: 'key', message: `${command.key} is taken; send another key` }],
    });
  }
  if (state.columns.has(command.columnId))
    throw new AppError('conflict', `Column ${command.columnId} exists.`);
  return [{ type: 'ColumnAdded', data: command }];
});

/** Step 2, on the column's own stream: the column with its validated config. */
export interface CreateColumn {
  tableId: string;
  column: Column;
  context: ConfigContext;
}

export const createColumn = columnStream.decider((command: CreateColumn, state) => {
  const { column, tableId } = command;
  if (state.column) throw new AppError('conflict', `Column ${column.id} already exists.`);
  if (!COLUMN_KEY.test(column.key)) {
    throw new AppError('validation_failed', 'Invalid key', {
      errors: [{ path: 'key', message: 'invalid key' }],
    });
  }
  const config = validateColumnConfig(column.config, command.context);
  if (!config.ok) throw invalidConfig(config.errors);
  refuseAutoRunWithoutProvider(column.autoRun, config.config, 'autoRun');
  const { id, ...fields } = column;
  return [{ type: 'ColumnCreated', data: { tableId, columnId: id, ...fields, config: config.config } }];
});

export const CreateColumnBody = z.strictObject({
  label: LabelSchema,
  key: ColumnKeySchema.optional().describe('Derived from the label when absent'),
  kind: ColumnKindSchema,
  dataType: DataTypeSchema,
  origin: OriginSchema.default('api'),
  autoRun: AutoRunSchema.default('never'),
  config: ConfigCreateSchema.default({}),
  position: PositionSchema.optional().describe('Default: after the last column'),
  isImportant: z.boolean().default(false),
});

async function nextPosition(pool: Pool, tableId: string): Promise<number> {
  const { rows } = await pool.query(
    `SELECT COALESCE(MAX(position), 0) + 1 AS next FROM ${COLUMNS} WHERE table_id = $1`,
    [tableId],
  );
  return Number(rows[0].next);
}

/**
 * Runs `create` with the position after the table's last column. The table's stream keeps keys
 * unique, but positions live in each column's own stream and are read from the read model: creates
 * racing on one table all read the same last position. So they take turns, across processes, under a
 * lock held until the read model shows the column made (readYourWrites); one that gives up waiting
 * on a lagging read model may still share its position with the next.
 */
function atNextPosition<T>(pool: Pool, tableId: string, create: (position: number) => Promise<T>) {
  return withSessionLock(pool, `column-position:${tableId}`, { wait: true }, async () =>
    create(await nextPosition(pool, tableId)),
  );
}

/** POST /api/tables/{tableId}/columns */
export const createColumnRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tables/:tableId/columns',
    {
      config: { access: 'columns:write' },
      preValidation: boundRunConditions,
      schema: {
        operationId: 'createColumn',
        tags: ['columns'],
        summary: 'Create a column',
        params: TableParams,
        body: CreateColumnBody,
        response: { 201: ColumnResponseSchema },
        responseHeaders: { 201: ['ETag'] },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { tableId } = request.params;
      const body = request.body;
      const { state: table } = await loadTableForWrite(deps.store, tableId, principal);
      const id = newColumnId();
      const key = body.key ?? deriveKey(body.label);
      const config = withoutNulls(body.config);
      const destination = typeof config.destinationTableId === 'string' ? [config.destinationTableId] : [];
      const context: ConfigContext = {
        organizationId: principal.organizationId,
        columns: [...columnMembers(table), { id, key, dataType: body.dataType }],
        tables: await tableOrganizations(deps.store, destination),
        prompts: await promptTemplatesNamed(deps.store, config),
        tableId,
        sequences: await sequencesNamed(deps.store, config),
      };
      const commandAt = (position: number): CreateColumn => ({
        tableId,
        column: {
          id,
          key,
          label: body.label,
          kind: body.kind,
          dataType: body.dataType,
          origin: body.origin,
          status: 'idle',
          autoRun: body.autoRun,
          config,
          position,
          isImportant: body.isImportant,
        },
        context,
      });
      const now = deps.clock();
      const metadata = eventMetadata(request);
      // Decide once before claiming the key, so that a refused config leaves nothing behind.
      const draft = commandAt(body.position ?? 0);
      createColumn.decide(draft, columnStream.initialState(), now);
      refuseRetriggerCycle(
        await loadTriggerColumns(deps.store, table),
        triggerColumn(draft.column),
        PROVIDER_SPECS,
      );
      const create = (position: number) => claimAndCreate(deps, commandAt(position), metadata, now);
      const result =
        body.position === undefined
          ? await atNextPosition(deps.pool, tableId, create)
          : await create(body.position);
      reply.header(
        'location',
        `/api/tables/${encodeURIComponent(tableId)}/columns/${encodeURIComponent(id)}`,
      );
      return reply.code(201).header('etag', etagOf(result.revision)).send(result.state.column!);
    },
  );
};

/**
 * Claims the key on the table's stream, then creates the column on its own; waits until the columns
 * read model shows it.
 */
async function claimAndCreate(
  deps: ServiceDeps,
  command: CreateColumn,
  metadata: EventMetadata,
  now: Date,
): Promise<CommandResult<ColumnState, ColumnEvent>> {
  const { tableId, column } = command;
  const claim = {
    tableId,
    columnId: column.id,
    key: column.key,
    kind: column.kind,
    dataType: column.dataType,
  };
  await handleCommand({
    store: deps.store,
    stream: tableStream.name(tableId),
    decider: addColumn,
    command: claim,
    metadata,
    now,
  });
  let result: CommandResult<ColumnState, ColumnEvent>;
  try {
    result = await handleCommand({
      store: deps.store,
      stream: columnStream.name(tableId, column.id),
      decider: createColumn,
      command,
      metadata,
      now,
    });
  } catch (error) {
    // Give the key back; should this fail too, the key stays claimed by a column nobody sees.
    await handleCommand({
      store: deps.store,
      stream: tableStream.name(tableId),
      decider: removeColumn,
      command: { tableId, columnId: column.id, referencedBy: [] },
      metadata,
      now,
    }).catch(() => {});
    throw error;
  }
  await readYourWrites(deps, result.appended?.position, [columnsProjection]);
  return result;
}
