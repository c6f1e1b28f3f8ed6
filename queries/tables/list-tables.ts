import { z } from 'zod';
import { TABLES, type TableRow, tableFromRow } from '../../projections/tables/tables.ts';
import { isTableId } from '../../src/domain/tables/ids.ts';
import { TableSchema } from '../../src/domain/tables/schemas.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/app.ts';

const Query = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().max(500).optional().describe('nextCursor of the previous page'),
});

/** The cursor is opaque to clients: the (createdAt, id) of the last table of the previous page. */
export function encodeCursor(row: { created_at: Date; id: string }): string {
  return Buffer.from(`${row.created_at.toISOString()}|${row.id}`).toString('base64url');
}

/** Exactly what toISOString writes: Date.parse also takes "0" and 31 February, which PostgreSQL refuses. */
const isIsoInstant = (text: string) => {
  const time = Date.parse(text);
  return !Number.isNaN(time) && new Date(time).toISOString() === text;
};

/**
 * Only what encodeCursor wrote passes: anything else reached PostgreSQL as a timestamp it cannot read
 * or text with a NUL, and its refusal was a 500.
 */
export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt, id, ...rest] = Buffer.from(cursor, 'base64url').toString().split('|');
  if (!createdAt || !id || rest.length > 0 || !isIsoInstant(createdAt) || !isTableId(id)) {
    throw new AppError('validation_failed', 'The cursor is not one this API returned.', {
      errors: [{ path: 'querystring.cursor', message: 'not a cursor of this API' }],
    });
  }
  return { createdAt, id };
}

/** GET /api/tables: the organization's tables, oldest first, a page at a time. */
export const listTablesRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/tables',
    {
      config: { access: 'tables:read' },
      schema: {
        tags: ['tables'],
        summary: 'List the research tables of the organization',
        querystring: Query,
        response: { 200: z.object({ data: z.array(TableSchema), nextCursor: z.string().nullable() }) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const after = cursor ? decodeCursor(cursor) : undefined;
      const { rows } = await deps.pool.query<TableRow>(
        `SELECT id, organization_id, name, created_at, updated_at FROM ${TABLES}
         WHERE organization_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3))
         ORDER BY created_at, id LIMIT $4`,
        [principalOf(request).organizationId, after?.createdAt ?? null, after?.id ?? '', limit + 1],
      );
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        data: page.map(tableFromRow),
        nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
      };
    },
  );
};
