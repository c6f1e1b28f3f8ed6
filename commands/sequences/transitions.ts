import { sequenceView } from '../../src/domain/sequences/access.ts';
import type { SequenceEvent } from '../../src/domain/sequences/events.ts';
import { SEQUENCE_MACHINE, type SequenceAction, transition } from '../../src/domain/sequences/machines.ts';
import { SequenceParams, SequenceSchema } from '../../src/domain/sequences/schemas.ts';
import { sequenceStream } from '../../src/domain/sequences/streams.ts';
import { AppError } from '../../src/errors.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { onSequence } from './shared.ts';

/** activate, pause, archive: as the machine allows (409 `invalid_transition` otherwise). */
export const changeSequenceStatus = sequenceStream.decider(
  (action: Exclude<SequenceAction, 'edit'>, state, now): SequenceEvent[] => {
    const to = transition(SEQUENCE_MACHINE, 'sequence', state.status, action);
    if (action === 'activate' && state.steps.length === 0) {
      throw new AppError('invalid_transition', 'A sequence needs at least one step to be activated.', {
        currentStatus: state.status,
        allowedActions: Object.keys(SEQUENCE_MACHINE[state.status]).filter((a) => a !== 'activate'),
        errors: [{ path: 'steps', message: 'add a step first' }],
      });
    }
    return [
      {
        type: 'SequenceStatusChanged',
        data: { sequenceId: state.id, from: state.status, to, at: now.toISOString() },
      },
    ];
  },
);

/** One transition's route; its path is spelled out where the list below registers it. */
const transitionRoute =
  (
    path: `/api/sequences/:sequenceId/${string}`,
    operationId: string,
    action: Exclude<SequenceAction, 'edit'>,
    summary: string,
  ): RouteModule =>
  (app, deps) => {
    app.post(
      path,
      {
        config: { access: 'sequences:run' },
        schema: {
          operationId,
          tags: ['sequences'],
          summary,
          params: SequenceParams,
          response: { 200: SequenceSchema },
        },
      },
      async (request) =>
        sequenceView(
          await onSequence(deps, request, request.params.sequenceId, changeSequenceStatus, action),
        ),
    );
  };

export const sequenceTransitionRoutes = [
  transitionRoute(
    '/api/sequences/:sequenceId/activate',
    'activateSequence',
    'activate',
    'Activate a DRAFT or PAUSED sequence (it needs a step)',
  ),
  transitionRoute(
    '/api/sequences/:sequenceId/pause',
    'pauseSequence',
    'pause',
    'Pause an ACTIVE sequence: its enrollments make no progress while paused',
  ),
  transitionRoute(
    '/api/sequences/:sequenceId/archive',
    'archiveSequence',
    'archive',
    'Archive a sequence (terminal)',
  ),
];
