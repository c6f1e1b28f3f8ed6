import {
  ENROLLMENTS,
  type EnrollmentRow,
  enrollmentFromRow,
} from '../../projections/sequences/enrollments.ts';
import { SEQUENCES } from '../../projections/sequences/sequences.ts';
import {
  enrollmentView,
  isSequenceId,
  readable,
  sequenceNotFound,
} from '../../src/domain/sequences/access.ts';
import { EnrollmentSchema, SequenceParams } from '../../src/domain/sequences/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, isTimestamp, PageQuery, pageFrom, pageOf } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/** GET /api/sequences/{id}/enrollments: oldest first, a page at a time. */
export const listEnrollmentsRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/sequences/:sequenceId/enrollments',
    {
      config: { access: 'sequences:read' },
      schema: {
        operationId: 'listEnrollments',
        tags: ['sequences'],
        summary: 'List the enrollments of a sequence',
        params: SequenceParams,
        querystring: PageQuery,
        response: { 200: pageOf(EnrollmentSchema) },
      },
    },
    async (request) => {
      const { sequenceId } = request.params;
      const { rows: found } = isSequenceId(sequenceId)
        ? await deps.pool.query<{ organization_id: string }>(
            `SELECT organization_id FROM ${SEQUENCES} WHERE id = $1`,
            [sequenceId],
          )
        : { rows: [] };
      readable(found[0], sequenceNotFound(sequenceId), principalOf(request), 'sequence');
      const { limit, cursor } = request.query;
      const [at, id] = cursor ? decodeCursor(cursor, 2, ([t]) => isTimestamp(t!)) : [null, ''];
      const { rows } = await deps.pool.query<EnrollmentRow>(
        `SELECT * FROM ${ENROLLMENTS}
         WHERE sequence_id = $1 AND ($2::text IS NULL OR (enrolled_at, id) > ($2::text, $3))
         ORDER BY enrolled_at, id LIMIT $4`,
        [sequenceId, at, id, limit + 1],
      );
      return pageFrom(
        rows,
        limit,
        (row) => enrollmentView(enrollmentFromRow(row)),
        (row) => [row.enrolled_at, row.id],
      );
    },
  );
};
