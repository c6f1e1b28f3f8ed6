import { z } from 'zod';
import { ColumnResponseSchema } from '../../processes/runs/providers/index.ts';
import { columnsProjection } from '../../projections/columns/columns.ts';
import { loadTableForWrite } from '../../services/tables/load.ts';
import { handleCommand } from '../../src/command.ts';
import { columnStream } from '../../src/domain/columns/column-state.ts';
import type { Column } from '../../src/domain/columns/fields.ts';
import { columnNotFound } from '../../src/domain/tables/access.ts';
import { TableParams } from '../../src/domain/tables/schemas.ts';
import { AppError, type FieldError } from '../../src/errors.ts';
import type { Position } from '../../src/event-store/port.ts';
import { comparePositions } from '../../src/event-store/port.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { loadColumns } from './delete-column.ts';

export interface Move {
  columnId: string;
  position: number;
}

/**
 * The new positions for an ordering that must list every column of the table exactly once:
 * 1, 2, 3, ... in the order given. Refuses (400, naming each offending entry) otherwise.
 */
export function planReorder(columnIds: readonly string[], current: readonly Column[]): Move[] {
  const known = new Set(current.map((c) => c.id));
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  columnIds.forEach((id, i) => {
    if (!known.has(id))
      errors.push({ path: `columnIds[${i}]`, message: `${id} is not a column of this table` });
    else if (seen.has(id)) errors.push({ path: `columnIds[${i}]`, message: `${id} is listed twice` });
    seen.add(id);
  });
  const missing = current.filter((c) => !seen.has(c.id)).map((c) => c.id);
  if (missing.length > 0) errors.push({ path: 'columnIds', message: `missing: ${missing.join(', ')}` });
  if (errors.length > 0) {
    throw new AppError('validation_failed', 'columnIds must list every column of the table exactly once.', {
      errors,
    });
  }
  return columnIds.map((columnId, i) => ({ columnId, position: i + 1 }));
}

export interface MoveColumn {
  tableId: string;
  columnId: string;
  position: number;
}

export const moveColumn = columnStream.decider(({ tableId, columnId, position }: MoveColumn, state) => {
  if (!state.column) throw columnNotFound(tableId, columnId);
  if (state.column.position === position) return [];
  return [{ type: 'ColumnMoved', data: { tableId, columnId, position } }];
});

export const ReorderColumnsBody = z.strictObject({
  columnIds: z.array(z.string().max(200)).max(10_000).describe('Every column of the table exactly once'),
});

/**
 * POST /api/tables/{tableId}/columns/reorder. Each moved column gets a ColumnMoved on its own stream,
 * so a reorder never conflicts with PATCHes of other columns; it is not atomic across columns, and
 * repeating the same request completes one that was cut short.
 */
export const reorderColumnsRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tables/:tableId/columns/reorder',
    {
      config: { access: 'columns:write' },
      schema: {
        operationId: 'reorderColumns',
        tags: ['columns'],
        summary: 'Reorder the columns of a table',
        params: TableParams,
        body: ReorderColumnsBody,
        response: { 200: z.array(ColumnResponseSchema) },
      },
    },
    async (request) => {
      const { tableId } = request.params;
      const { state: table } = await loadTableForWrite(deps.store, tableId, principalOf(request));
      const columns = (await loadColumns(deps.store, table)).flatMap((s) => (s.column ? [s.column] : []));
      const moves = planReorder(request.body.columnIds, columns);
      const metadata = eventMetadata(request);
      const now = deps.clock();
      const results = await Promise.all(
        moves.map((command) =>
          handleCommand({
            store: deps.store,
            stream: columnStream.name(tableId, command.columnId),
            decider: moveColumn,
            command: { tableId, ...command },
            metadata,
            now,
          }),
        ),
      );
      const last = results
        .map((r) => r.appended?.position)
        .filter((p): p is Position => p !== undefined)
        .reduce<Position | undefined>((a, b) => (a && comparePositions(a, b) > 0 ? a : b), undefined);
      await readYourWrites(deps, last, [columnsProjection]);
      return results.map((r) => r.state.column!);
    },
  );
};
