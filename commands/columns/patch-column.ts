import { z } from 'zod';
import {
  ColumnResponseSchema,
  ConfigPatchSchema,
  PROVIDER_SPECS,
  validateColumnConfig,
} from '../../processes/runs/providers/index.ts';
import { columnsProjection } from '../../projections/columns/columns.ts';
import { loadTriggerColumns } from '../../services/columns/trigger-columns.ts';
import { promptTemplatesNamed } from '../../services/prompts/column-templates.ts';
import { sequencesNamed } from '../../services/sequences/column-sequences.ts';
import { loadTableForWriteWith, tableOrganizations } from '../../services/tables/load.ts';
import { handleCommand } from '../../src/command.ts';
import { hasProvider, refuseAutoRunWithoutProvider } from '../../src/domain/columns/auto-run.ts';
import { columnStream } from '../../src/domain/columns/column-state.ts';
import type { ConfigContext } from '../../src/domain/columns/config/index.ts';
import { boundRunConditions, invalidConfig } from '../../src/domain/columns/config-input.ts';
import { diffConfig, mergeConfig } from '../../src/domain/columns/config-merge.ts';
import { etagOf, ifMatchRevision } from '../../src/domain/columns/etag.ts';
import type { ColumnEvent } from '../../src/domain/columns/events.ts';
import { AutoRunSchema, type Column, LabelSchema, PositionSchema } from '../../src/domain/columns/fields.ts';
import { refuseRetriggerCycle, triggerColumn } from '../../src/domain/columns/retrigger-cycle.ts';
import { columnNotFound, memberColumn } from '../../src/domain/tables/access.ts';
import { ColumnParams } from '../../src/domain/tables/schemas.ts';
import { columnMembers } from '../../src/domain/tables/table-state.ts';
import { AppError } from '../../src/errors.ts';
import { WrongExpectedRevisionError } from '../../src/event-store/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export interface ColumnPatch {
  label?: string;
  position?: number;
  isImportant?: boolean;
  autoRun?: Column['autoRun'];
  /** One level deep: a key replaces, null removes. */
  config?: Record<string, unknown>;
}

export interface PatchColumn {
  tableId: string;
  columnId: string;
  patch: ColumnPatch;
  /** The table's columns and the tables the patch names, read once before deciding. */
  context: ConfigContext;
}

type Changes = Extract<ColumnEvent, { type: 'ColumnPatched' }>['data']['changes'];

/**
 * Records only what differs from the current column. Decided again on every retry after a concurrent
 * write, so two PATCHes changing different things both land, each on top of the other.
 */
export const patchColumn = columnStream.decider(
  ({ tableId, columnId, patch, context }: PatchColumn, state) => {
    const column = state.column;
    if (!column) throw columnNotFound(tableId, columnId);
    const changes: Changes = {};
    if (patch.label !== undefined && patch.label !== column.label) changes.label = patch.label;
    if (patch.position !== undefined && patch.position !== column.position) changes.position = patch.position;
    if (patch.isImportant !== undefined && patch.isImportant !== column.isImportant) {
      changes.isImportant = patch.isImportant;
    }
    if (patch.autoRun !== undefined && patch.autoRun !== column.autoRun) changes.autoRun = patch.autoRun;
    let config = column.config;
    if (patch.config !== undefined) {
      // The merged config is what gets validated, against the table's current columns.
      const merged = validateColumnConfig(mergeConfig(column.config, patch.config), context);
      if (!merged.ok) throw invalidConfig(merged.errors);
      config = merged.config;
      const diff = diffConfig(column.config, merged.config);
      if (diff) changes.config = diff;
    }
    // Judged on the column as the PATCH leaves it, when the PATCH sets autoRun or removes the provider:
    // a column stored so before this rule keeps taking its other PATCHes.
    if (patch.autoRun !== undefined) refuseAutoRunWithoutProvider(patch.autoRun, config, 'autoRun');
    else if (hasProvider(column.config))
      refuseAutoRunWithoutProvider(column.autoRun, config, 'config.provider');
    if (Object.keys(changes).length === 0) return [];
    return [{ type: 'ColumnPatched', data: { tableId, columnId, changes } }];
  },
);

export const PatchColumnBody = z
  .strictObject({
    label: LabelSchema.optional(),
    position: PositionSchema.optional(),
    isImportant: z.boolean().optional(),
    autoRun: AutoRunSchema.optional(),
    config: ConfigPatchSchema.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, {
    message: 'send at least one of label, position, isImportant, autoRun, config',
  });

/**
 * Concurrent PATCHes of one column retry on the revision conflict (decided again on the new state);
 * a crowd of them needs more attempts than the default.
 */
const MAX_RETRIES = 100;

/** PATCH /api/tables/{tableId}/columns/{columnId} (contract 4.4). */
export const patchColumnRoute: RouteModule = (app, deps) => {
  app.patch(
    '/api/tables/:tableId/columns/:columnId',
    {
      config: { access: 'columns:write' },
      preValidation: boundRunConditions,
      schema: {
        operationId: 'patchColumn',
        tags: ['columns'],
        summary: 'Patch label, position, isImportant, autoRun or config of a column',
        description:
          'Send If-Match with the ETag of a GET or PATCH for strict control: a stale one gets 412. ' +
          'Without it a PATCH is decided again on top of concurrent changes; 409 when they kept coming.',
        params: ColumnParams,
        headers: z.looseObject({ 'if-match': z.string().optional() }),
        body: PatchColumnBody,
        response: { 200: ColumnResponseSchema },
        responseHeaders: { 200: ['ETag'] },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { tableId, columnId } = request.params;
      // Both streams in one read: the table's for access and context, the column's to decide on.
      const { table: loadedTable, other: loaded } = await loadTableForWriteWith(
        deps.store,
        tableId,
        principal,
        {
          stream: columnStream.name(tableId, columnId),
          definition: columnStream,
        },
      );
      const table = loadedTable.state;
      memberColumn(table, columnId);
      const expected = ifMatchRevision(request.headers['if-match']);
      if (expected === 'stale') throw stale();
      const destination = request.body.config?.destinationTableId;
      const context: ConfigContext = {
        organizationId: principal.organizationId,
        columns: columnMembers(table),
        tables: await tableOrganizations(deps.store, typeof destination === 'string' ? [destination] : []),
        prompts: await promptTemplatesNamed(deps.store, request.body.config, { tableId, columnId }),
        tableId,
        sequences: await sequencesNamed(deps.store, request.body.config),
      };
      const patch = request.body as ColumnPatch;
      const current = loaded.state.column;
      if (current && (patch.autoRun !== undefined || patch.config !== undefined)) {
        const config = patch.config ? mergeConfig(current.config, patch.config) : current.config;
        // An invalid config is the decider's to refuse, naming its fields; only a valid one can form a cycle.
        if (validateColumnConfig(config, context).ok) {
          refuseRetriggerCycle(
            await loadTriggerColumns(deps.store, table),
            {
              ...triggerColumn(current),
              autoRun: patch.autoRun ?? current.autoRun,
              config,
            },
            PROVIDER_SPECS,
          );
        }
      }
      try {
        const result = await handleCommand({
          store: deps.store,
          stream: columnStream.name(tableId, columnId),
          decider: patchColumn,
          command: { tableId, columnId, patch, context },
          metadata: eventMetadata(request),
          now: deps.clock(),
          loaded,
          expectedRevision: expected,
          maxRetries: MAX_RETRIES,
        });
        await readYourWrites(deps, result.appended?.position, [columnsProjection]);
        return reply.header('etag', etagOf(result.revision)).send(result.state.column!);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        // With If-Match the caller asked for that revision; without, others kept writing first.
        throw expected === undefined ? tooBusy() : stale();
      }
    },
  );
};

const stale = () =>
  new AppError('precondition_failed', 'The column changed since that ETag; GET it again and retry.');

const tooBusy = () =>
  new AppError(
    'conflict',
    `Too many concurrent changes to this column: it changed under this PATCH on each of ${MAX_RETRIES + 1} attempts. Retry the request.`,
  );
