import { z } from 'zod';
import { columnStream } from '../../src/domain/columns/column-state.ts';
import { ColumnParams } from '../../src/domain/tables/schemas.ts';
import type { RecordedEvent } from '../../src/event-store/port.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, pageFrom, pageOf, pageQuery } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { readColumn } from './get-column.ts';

const HistoryEntry = z.object({
  revision: z.number().int(),
  type: z.string(),
  at: z.string(),
  actor: z.string().nullable().describe('id of the API key that made the change'),
  changes: z
    .record(z.string(), z.unknown())
    .describe('only the fields that changed; config only its changed keys'),
});

/** What one event of the column's stream changed, as the history shows it. */
export function changesOf(event: RecordedEvent): Record<string, unknown> {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'ColumnCreated': {
      const { tableId: _t, columnId: _c, ...fields } = data;
      return fields;
    }
    case 'ColumnPatched':
      return data.changes as Record<string, unknown>;
    case 'ColumnMoved':
      return { position: data.position };
    default:
      return {};
  }
}

const Query = pageQuery({ max: 500, default: 100 });

const historyEntry = (event: RecordedEvent) => ({
  revision: Number(event.revision),
  type: event.type,
  at: event.recordedAt.toISOString(),
  actor: typeof event.metadata.actor === 'string' ? event.metadata.actor : null,
  changes: changesOf(event),
});

/** GET /api/tables/{tableId}/columns/{columnId}/history: the column's stream, oldest first, by pages. */
export const columnHistoryRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/tables/:tableId/columns/:columnId/history',
    {
      config: { access: 'tables:read' },
      schema: {
        operationId: 'listColumnHistory',
        tags: ['columns'],
        summary: 'The changes of a column, oldest first',
        params: ColumnParams,
        querystring: Query,
        response: { 200: pageOf(HistoryEntry) },
      },
    },
    async (request) => {
      const { tableId, columnId } = request.params;
      await readColumn(deps.pool, principalOf(request), tableId, columnId);
      const { limit, cursor } = request.query;
      // The cursor is the revision of the last entry shown: the page starts right after it.
      const [after] = cursor ? decodeCursor(cursor, 1, ([revision]) => /^\d{1,18}$/.test(revision!)) : [];
      const events = await deps.store.readStream(columnStream.name(tableId, columnId), {
        from: after === undefined ? 0n : BigInt(after) + 1n,
        limit: limit + 1,
      });
      return pageFrom(events, limit, historyEntry, (last) => [String(last.revision)]);
    },
  );
};
