import { enrollmentsProjection } from '../../projections/sequences/enrollments.ts';
import { handleCommand, loadState } from '../../src/command.ts';
import { enrollmentView } from '../../src/domain/sequences/access.ts';
import type { LeadEnrollmentEvent } from '../../src/domain/sequences/events.ts';
import {
  ENROLLMENT_MACHINE,
  type EnrollmentAction,
  transition,
} from '../../src/domain/sequences/machines.ts';
import { EnrollmentParams, EnrollmentSchema } from '../../src/domain/sequences/schemas.ts';
import { leadEnrollmentsStream, parseEnrollmentId } from '../../src/domain/sequences/streams.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

const enrollmentNotFound = (id: string) => new AppError('not_found', `No enrollment ${id}.`);

/** pause, resume, finish (reason `manual`): as the enrollment machine allows, 409 otherwise. */
export const changeEnrollmentStatus = leadEnrollmentsStream.decider(
  (command: { sequenceId: string; enrollmentId: string; action: EnrollmentAction }, state, now) => {
    const enrollment = state.get(command.sequenceId);
    if (!enrollment) throw enrollmentNotFound(command.enrollmentId);
    const to = transition(ENROLLMENT_MACHINE, 'enrollment', enrollment.status, command.action);
    const event: LeadEnrollmentEvent = {
      type: 'EnrollmentStatusChanged',
      data: {
        enrollmentId: enrollment.enrollmentId,
        from: enrollment.status,
        to,
        finishedReason: to === 'finished' ? 'manual' : null,
        at: now.toISOString(),
      },
    };
    return [event];
  },
);

/** One action's route; its path is spelled out where the list below registers it. */
const actionRoute =
  (
    path: `/api/enrollments/:enrollmentId/${string}`,
    operationId: string,
    action: EnrollmentAction,
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
          params: EnrollmentParams,
          response: { 200: EnrollmentSchema },
        },
      },
      async (request) => {
        const { enrollmentId } = request.params;
        const ids = parseEnrollmentId(enrollmentId);
        if (!ids) throw enrollmentNotFound(enrollmentId);
        const stream = leadEnrollmentsStream.name(ids.leadId);
        const loaded = await loadState(deps.store, stream, leadEnrollmentsStream);
        const enrollment = loaded.state.get(ids.sequenceId);
        if (!enrollment) throw enrollmentNotFound(enrollmentId);
        if (enrollment.organizationId !== principalOf(request).organizationId)
          throw new AppError('forbidden', 'The enrollment belongs to another organization.');
        const result = await handleCommand({
          store: deps.store,
          stream,
          decider: changeEnrollmentStatus,
          command: { ...ids, enrollmentId, action },
          metadata: eventMetadata(request),
          now: deps.clock(),
          loaded,
        });
        await readYourWrites(deps, result.appended?.position, [enrollmentsProjection]);
        return enrollmentView(result.state.get(ids.sequenceId)!);
      },
    );
  };

export const enrollmentActionRoutes = [
  actionRoute(
    '/api/enrollments/:enrollmentId/pause',
    'pauseEnrollment',
    'pause',
    'Pause an active enrollment',
  ),
  actionRoute(
    '/api/enrollments/:enrollmentId/resume',
    'resumeEnrollment',
    'resume',
    'Resume a paused enrollment',
  ),
  actionRoute(
    '/api/enrollments/:enrollmentId/finish',
    'finishEnrollment',
    'finish',
    'Finish an enrollment by hand (finishedReason manual)',
  ),
];
