import { z } from 'zod';
import { rowsProjection } from '../../projections/rows/rows.ts';
import { handleCommandBatch } from '../../src/command.ts';
import { invalidInput } from '../../src/domain/rows/access.ts';
import { checkCells, columnsByKey, writtenStatuses } from '../../src/domain/rows/cells.ts';
import type { CellStatusValue } from '../../src/domain/rows/events.ts';
import { newRowId } from '../../src/domain/rows/ids.ts';
import { rowStream } from '../../src/domain/rows/row-state.ts';
import { CellsSchema, MAX_BATCH, RowSchema } from '../../src/domain/rows/schemas.ts';
import { rowView } from '../../src/domain/rows/view.ts';
import { loadTableForWrite } from '../../src/domain/tables/access.ts';
import { TableParams } from '../../src/domain/tables/schemas.ts';
import { AppError, type FieldError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/app.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import { appendedPosition, firstFailure, ROWS_BODY_LIMIT, rowPath, serializeAsIs } from './shared.ts';

export interface InsertRow {
  tableId: string;
  rowId: string;
  /** Checked against the columns' data types, by column id. */
  cells: Record<string, unknown>;
  statuses: Record<string, CellStatusValue>;
}

/** A new row: its id is fresh, so the stream must not exist yet. */
export const insertRow = rowStream.decider((command: InsertRow, state, now) => {
  if (state.exists) throw new AppError('conflict', `Row ${command.rowId} exists.`);
  return [{ type: 'RowInserted', data: { ...command, at: now.toISOString() } }];
});

export const InsertRowsBody = z.strictObject({
  rows: z
    .array(z.strictObject({ cells: CellsSchema }))
    .min(1)
    .max(MAX_BATCH)
    .describe(`1 to ${MAX_BATCH} rows, answered in the order sent`),
});

/** POST /api/tables/{tableId}/rows */
export const insertRowsRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tables/:tableId/rows',
    {
      config: { access: 'tables:write' },
      bodyLimit: ROWS_BODY_LIMIT,
      serializerCompiler: serializeAsIs,
      schema: {
        tags: ['rows'],
        summary: 'Insert rows',
        description:
          'Every value is checked against its column dataType; a batch with any bad value is refused whole ' +
          '(400 naming each path, e.g. rows[3].cells.score) and stores nothing.',
        params: TableParams,
        body: InsertRowsBody,
        response: { 201: z.object({ data: z.array(RowSchema) }) },
      },
    },
    async (request, reply) => {
      const { tableId } = request.params;
      const { state: table } = await loadTableForWrite(deps.store, tableId, principalOf(request));
      const byKey = columnsByKey(table.columns.values());
      const errors: FieldError[] = [];
      const checked = request.body.rows.map((row, i) => {
        const result = checkCells(byKey, row.cells, `rows[${i}].cells`, 'omit');
        errors.push(...result.errors);
        return result.cells;
      });
      if (errors.length > 0) throw invalidInput('body', errors);
      const now = deps.clock();
      const metadata = eventMetadata(request);
      const outcomes = await handleCommandBatch({
        store: deps.store,
        decider: insertRow,
        read: 'new',
        items: checked.map((cells) => {
          const rowId = newRowId(now.getTime());
          const statuses = writtenStatuses(table.columns, cells);
          return {
            stream: rowStream.name(tableId, rowId),
            command: { tableId, rowId, cells, statuses },
            metadata,
            now,
          };
        }),
      });
      const results = firstFailure(outcomes);
      await readYourWrites(deps, appendedPosition(results), [rowsProjection]);
      const columns = [...table.columns.values()];
      const data = results.map((r) => rowView(columns, r.state));
      return reply.code(201).header('location', rowPath(tableId, data[0]!.id)).send({ data });
    },
  );
};
