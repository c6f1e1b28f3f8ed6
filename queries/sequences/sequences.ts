import { ENROLLMENTS } from '../../projections/sequences/enrollments.ts';
import { SEQUENCES, type StoredSequence, sequenceFromRow } from '../../projections/sequences/sequences.ts';
import { isSequenceId, readable, sequenceNotFound, sequenceView } from '../../src/domain/sequences/access.ts';
import {
  ListSequencesQuery,
  SequenceDetailSchema,
  SequenceParams,
  SequenceSchema,
} from '../../src/domain/sequences/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, isTimestamp, pageFrom, pageOf } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';

const viewOf = (row: StoredSequence) => sequenceView(sequenceFromRow(row));

/** GET /api/sequences: oldest first, a page at a time, `status` to filter. */
export const listSequencesRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/sequences',
    {
      config: { access: 'sequences:read' },
      schema: {
        operationId: 'listSequences',
        tags: ['sequences'],
        summary: 'List the sequences of the organization',
        querystring: ListSequencesQuery,
        response: { 200: pageOf(SequenceSchema) },
      },
    },
    async (request) => {
      const { limit, cursor, status } = request.query;
      const [at, id] = cursor ? decodeCursor(cursor, 2, ([t]) => isTimestamp(t!)) : [null, ''];
      const { rows } = await deps.pool.query<StoredSequence>(
        `SELECT * FROM ${SEQUENCES}
         WHERE organization_id = $1 AND ($2::text IS NULL OR (created_at, id) > ($2::text, $3))
           AND ($4::text IS NULL OR status = $4)
         ORDER BY created_at, id LIMIT $5`,
        [principalOf(request).organizationId, at, id, status ?? null, limit + 1],
      );
      return pageFrom(rows, limit, viewOf, (row) => [row.created_at, row.id]);
    },
  );
};

/** GET /api/sequences/{id}: the sequence and its enrollments counted by status. */
export const getSequenceRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/sequences/:sequenceId',
    {
      config: { access: 'sequences:read' },
      schema: {
        operationId: 'getSequence',
        tags: ['sequences'],
        summary: 'Get a sequence with its enrollment stats',
        params: SequenceParams,
        response: { 200: SequenceDetailSchema },
      },
    },
    async (request) => {
      const { sequenceId } = request.params;
      const { rows } = isSequenceId(sequenceId)
        ? await deps.pool.query<StoredSequence>(`SELECT * FROM ${SEQUENCES} WHERE id = $1`, [sequenceId])
        : { rows: [] };
      const row = readable(rows[0], sequenceNotFound(sequenceId), principalOf(request), 'sequence');
      const { rows: counts } = await deps.pool.query<{ status: string; n: number }>(
        `SELECT status, count(*)::int AS n FROM ${ENROLLMENTS} WHERE sequence_id = $1 GROUP BY status`,
        [sequenceId],
      );
      const of = (status: string) => counts.find((c) => c.status === status)?.n ?? 0;
      const stats = {
        enrolled: counts.reduce((sum, c) => sum + c.n, 0),
        active: of('active'),
        paused: of('paused'),
        finished: of('finished'),
        failed: of('failed'),
      };
      return { ...viewOf(row), stats };
    },
  );
};
