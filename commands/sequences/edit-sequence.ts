import { z } from 'zod';
import { ENROLLMENTS } from '../../projections/sequences/enrollments.ts';
import { checkSequenceReferences } from '../../services/sequences/load.ts';
import { sequenceView } from '../../src/domain/sequences/access.ts';
import type { SequenceEvent, SequenceStep } from '../../src/domain/sequences/events.ts';
import { SEQUENCE_MACHINE, transition } from '../../src/domain/sequences/machines.ts';
import { PatchSequenceBody, SequenceParams, SequenceSchema } from '../../src/domain/sequences/schemas.ts';
import { sequenceStream } from '../../src/domain/sequences/streams.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { onSequence } from './shared.ts';

interface EditSequence {
  name?: string;
  sourceTableId?: string | null;
  steps?: SequenceStep[];
}

/** Steps change only while DRAFT or PAUSED (the `edit` action); name and table any time but ARCHIVED. */
export const editSequence = sequenceStream.decider((edit: EditSequence, state, now): SequenceEvent[] => {
  if (edit.steps !== undefined || state.status === 'ARCHIVED')
    transition(SEQUENCE_MACHINE, 'sequence', state.status, 'edit');
  return [{ type: 'SequenceEdited', data: { sequenceId: state.id, ...edit, at: now.toISOString() } }];
});

/** Deleted unless enrollments are still active in it (counted from the read model just before). */
export const deleteSequence = sequenceStream.decider(
  (command: { activeEnrollments: number }, state, now): SequenceEvent[] => {
    if (command.activeEnrollments > 0) {
      throw new AppError(
        'sequence_in_use',
        `Sequence ${state.id} has ${command.activeEnrollments} active enrollments; finish or pause them first.`,
        { activeEnrollments: command.activeEnrollments },
      );
    }
    return [{ type: 'SequenceDeleted', data: { sequenceId: state.id, at: now.toISOString() } }];
  },
);

export const patchSequenceRoute: RouteModule = (app, deps) => {
  app.patch(
    '/api/sequences/:sequenceId',
    {
      config: { access: 'sequences:write' },
      schema: {
        operationId: 'patchSequence',
        tags: ['sequences'],
        summary: 'Edit a sequence (its steps only while DRAFT or PAUSED)',
        params: SequenceParams,
        body: PatchSequenceBody,
        response: { 200: SequenceSchema },
      },
    },
    async (request) => {
      await checkSequenceReferences(deps.store, principalOf(request).organizationId, request.body);
      return sequenceView(
        await onSequence(deps, request, request.params.sequenceId, editSequence, request.body),
      );
    },
  );
};

/**
 * DELETE /api/sequences/{id}: 204; 409 `sequence_in_use` while enrollments are active in it. The count
 * is the read model's: an enrollment landing in the same instant can still slip past (it then belongs
 * to a deleted sequence, and its lead can be enrolled elsewhere).
 */
export const deleteSequenceRoute: RouteModule = (app, deps) => {
  app.delete(
    '/api/sequences/:sequenceId',
    {
      config: { access: 'sequences:write' },
      schema: {
        operationId: 'deleteSequence',
        tags: ['sequences'],
        summary: 'Delete a sequence without active enrollments',
        params: SequenceParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const { sequenceId } = request.params;
      const { rows } = await deps.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${ENROLLMENTS} WHERE sequence_id = $1 AND status = 'active'`,
        [sequenceId],
      );
      await onSequence(deps, request, sequenceId, deleteSequence, { activeEnrollments: rows[0]!.n });
      return reply.code(204).send(null);
    },
  );
};
