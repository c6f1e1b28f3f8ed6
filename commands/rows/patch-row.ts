import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { rowsProjection } from '../../projections/rows/rows.ts';
import { insertedRows } from '../../services/rows/load.ts';
import { loadTableForWrite } from '../../services/tables/load.ts';
import { handleCommand } from '../../src/command.ts';
import { etagOf, ifMatchRevision } from '../../src/domain/columns/etag.ts';
import { invalidInput, rowNotFound } from '../../src/domain/rows/access.ts';
import { checkCells, columnsByKey, type RowColumn, writtenStatuses } from '../../src/domain/rows/cells.ts';
import { isRowId } from '../../src/domain/rows/ids.ts';
import { rowStream, rowVersion } from '../../src/domain/rows/row-state.ts';
import { CellsSchema, RowParams, RowSchema } from '../../src/domain/rows/schemas.ts';
import { rowView } from '../../src/domain/rows/view.ts';
import { AppError } from '../../src/errors.ts';
import { WrongExpectedRevisionError } from '../../src/event-store/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { ROWS_BODY_LIMIT } from './shared.ts';

export interface ChangeCells {
  tableId: string;
  rowId: string;
  /** By column id; null clears. Checked against the columns' data types. */
  cells: Record<string, unknown>;
  /** The table's columns by id: a write to a non-input cell sets its status. */
  columns: ReadonlyMap<string, RowColumn>;
}

/**
 * Records only the cells that differ from the row's. Decided again on every retry after a concurrent
 * write, so PATCHes of different cells of one row all land, each on top of the others (merge by cell).
 */
export const changeCells = rowStream.decider((command: ChangeCells, state, now) => {
  if (!state.exists || state.deleted) throw rowNotFound(command.tableId, command.rowId);
  const changed: Record<string, unknown> = {};
  for (const [id, value] of Object.entries(command.cells)) {
    const current = state.cells[id];
    if (value === null ? current !== undefined : !isDeepStrictEqual(current, value)) changed[id] = value;
  }
  if (Object.keys(changed).length === 0) return [];
  const { tableId, rowId } = command;
  const statuses = writtenStatuses(command.columns, changed);
  return [
    { type: 'RowCellsChanged', data: { tableId, rowId, cells: changed, statuses, at: now.toISOString() } },
  ];
});

export const PatchRowBody = z.strictObject({
  cells: CellsSchema.refine((cells) => Object.keys(cells).length > 0, 'send at least one cell'),
});

/** Concurrent PATCHes of one row retry on the revision conflict; a crowd of them needs many attempts. */
const MAX_RETRIES = 100;

const stale = () =>
  new AppError('precondition_failed', 'The row changed since that ETag; GET it again and retry.');

/** PATCH /api/tables/{tableId}/rows/{rowId} */
export const patchRowRoute: RouteModule = (app, deps) => {
  app.patch(
    '/api/tables/:tableId/rows/:rowId',
    {
      config: { access: 'tables:write' },
      bodyLimit: ROWS_BODY_LIMIT,
      schema: {
        operationId: 'patchRow',
        tags: ['rows'],
        summary: 'Change cells of a row',
        description:
          'Only the cells sent change; null clears one. Send If-Match with the ETag of a GET or PATCH for ' +
          'strict control: a stale one gets 412.',
        params: RowParams,
        headers: z.looseObject({ 'if-match': z.string().optional() }),
        body: PatchRowBody,
        response: { 200: RowSchema },
        responseHeaders: { 200: ['ETag'] },
      },
    },
    async (request, reply) => {
      const { tableId, rowId } = request.params;
      const { state: table } = await loadTableForWrite(deps.store, tableId, principalOf(request));
      if (!isRowId(rowId)) throw rowNotFound(tableId, rowId);
      const checked = checkCells(columnsByKey(table.columns.values()), request.body.cells, 'cells', 'clear');
      if (checked.errors.length > 0) throw invalidInput('body', checked.errors);
      // The ETag is the row's version: 0 as inserted, its own stream's revision + 1 after a change.
      const version = ifMatchRevision(request.headers['if-match']);
      if (version === 'stale') throw stale();
      const origin = (await insertedRows(deps.store, tableId, [rowId])).get(rowId);
      try {
        const result = await handleCommand({
          store: deps.store,
          stream: rowStream.name(tableId, rowId),
          decider: changeCells,
          command: { tableId, rowId, cells: checked.cells, columns: table.columns },
          metadata: eventMetadata(request),
          now: deps.clock(),
          initialState: origin,
          expectedRevision: version === undefined ? undefined : version === 0n ? 'no_stream' : version - 1n,
          maxRetries: MAX_RETRIES,
        });
        await readYourWrites(deps, result.appended?.position, [rowsProjection]);
        return reply
          .header('etag', etagOf(rowVersion(result.revision)))
          .send(rowView([...table.columns.values()], result.state));
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) throw stale();
        throw error;
      }
    },
  );
};
