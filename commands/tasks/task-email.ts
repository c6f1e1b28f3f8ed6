import { draftWithLlm } from '../../processes/tasks/llm-draft.ts';
import { tasksProjection } from '../../projections/tasks/tasks.ts';
import { sendersFor } from '../../services/sequences/enroll.ts';
import { loadTaskForWrite } from '../../services/tasks/load.ts';
import { handleCommand, loadState } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { leadStream } from '../../src/domain/leads/lead-state.ts';
import {
  leadEnrollmentsStream,
  senderAccountStream,
  sequenceStream,
} from '../../src/domain/sequences/streams.ts';
import { taskView } from '../../src/domain/tasks/access.ts';
import { leadFields, renderForLead } from '../../src/domain/tasks/draft.ts';
import type { TaskEvent } from '../../src/domain/tasks/events.ts';
import { ScheduleEmailBody, TaskParams, TaskSchema } from '../../src/domain/tasks/schemas.ts';
import { isDone, type TaskState, taskStream } from '../../src/domain/tasks/task.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { storedInstant } from './create-task.ts';

const MAX_AHEAD_MS = 90 * 24 * 3_600_000;
/** `now` as a client says it reaches the service a little later: a minute's grace. */
const GRACE_MS = 60_000;

const cannot = (state: TaskState, why: string, allowedActions: string[] = []) =>
  new AppError('invalid_transition', `Task ${state.taskId}: ${why}`, {
    currentStatus: state.email?.status ?? 'none',
    allowedActions,
  });

type Draft = Omit<Extract<TaskEvent, { type: 'TaskEmailDrafted' }>['data'], 'at' | 'taskId'>;

function checkRedraftable(state: TaskState) {
  if (state.email && !['drafted', 'failed'].includes(state.email.status))
    throw cannot(state, `its email is ${state.email.status}; it is not drafted again`);
}

/** A new draft of an email task that is not scheduled, sending or sent. */
export const draftEmail = taskStream.decider((draft: Draft, state, now): TaskEvent[] => {
  checkRedraftable(state);
  return [{ type: 'TaskEmailDrafted', data: { taskId: state.taskId, ...draft, at: now.toISOString() } }];
});

/** Schedules (or moves) a drafted, failed or scheduled email of an open task. */
export const scheduleEmail = taskStream.decider(
  (command: { sendAt: string; note: string | null }, state, now): TaskEvent[] => {
    if (isDone(state.status)) throw cannot(state, `the task is ${state.status}`);
    if (!state.email || !['drafted', 'failed', 'scheduled'].includes(state.email.status))
      throw cannot(state, 'draft the email before scheduling it', state.email ? [] : ['draft-email']);
    const data = {
      taskId: state.taskId,
      organizationId: state.organizationId,
      senderAccountId: state.email.senderAccountId,
      ...command,
      at: now.toISOString(),
    };
    return [{ type: 'TaskEmailScheduled', data }];
  },
);

/**
 * The email's subject and body for its lead: written by the `llm` provider when the step names a
 * prompt template and an LLM API is configured; else the step's text (for a task made by hand, its
 * title and notes) rendered plainly. A model's answer without a subject line keeps the plain subject.
 */
async function composeDraft(deps: ServiceDeps, task: TaskState): Promise<Draft> {
  if (task.type !== 'email') throw cannot(task, `a ${task.type} task has no email`);
  checkRedraftable(task);
  const lead = task.leadId
    ? (await loadState(deps.store, leadStream.name(task.leadId), leadStream)).state
    : undefined;
  const to = lead?.status === 'live' ? lead.data.emailAddresses[0]?.address : undefined;
  if (!lead || !to) throw cannot(task, 'its lead has no email address to write to');
  let senderId: string | undefined;
  let subject = task.title;
  let body = task.notes ?? '';
  let promptTemplateId: string | undefined;
  if (task.sequenceId && task.stepIndex !== null) {
    const { state: sequence } = await loadState(
      deps.store,
      sequenceStream.name(task.sequenceId),
      sequenceStream,
    );
    const step = sequence.steps[task.stepIndex];
    subject = step?.subject ?? subject;
    body = step?.body ?? body;
    promptTemplateId = step?.promptTemplateId;
    const enrollments = await loadState(
      deps.store,
      leadEnrollmentsStream.name(lead.id),
      leadEnrollmentsStream,
    );
    senderId = enrollments.state.get(task.sequenceId)?.senderAccountIds.email;
  }
  senderId ??= (await sendersFor(deps.pool, task.organizationId, task.assigneeUserId, undefined, deps.store))
    .email;
  const sender = senderId
    ? (await loadState(deps.store, senderAccountStream.name(senderId), senderAccountStream)).state
    : undefined;
  if (sender?.status !== 'live') throw cannot(task, 'no email sender account to send from');
  // Last: a draft refused for anything above costs no model call.
  const written = promptTemplateId
    ? await draftWithLlm(deps, {
        organizationId: task.organizationId,
        taskId: task.taskId,
        promptTemplateId,
        fields: leadFields(lead.data),
      })
    : undefined;
  return {
    to,
    from: sender.address,
    senderAccountId: sender.id,
    subject: written?.subject ?? renderForLead(subject, lead.data, 'subject'),
    body: written?.body ?? renderForLead(body, lead.data, 'body'),
  };
}

/** POST /api/tasks/{taskId}/draft-email: the step's text or prompt template, for the task's lead. */
export const draftEmailRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tasks/:taskId/draft-email',
    {
      config: { access: 'tasks:write' },
      schema: {
        operationId: 'draftTaskEmail',
        tags: ['tasks'],
        summary: "Draft an email task's subject and body from its step, for its lead",
        params: TaskParams,
        response: { 200: TaskSchema },
      },
    },
    async (request) => {
      const task = await loadTaskForWrite(deps.store, request.params.taskId, principalOf(request));
      const draft = await composeDraft(deps, task);
      const result = await handleCommand({
        store: deps.store,
        stream: taskStream.name(task.taskId),
        decider: draftEmail,
        command: draft,
        metadata: eventMetadata(request),
        now: deps.clock(),
      });
      await readYourWrites(deps, result.appended?.position, [tasksProjection]);
      return taskView(result.state);
    },
  );
};

/** POST /api/tasks/{taskId}/schedule-email: goes out at sendAt through SMTP (409 when none is configured, as the tasks contract spells it). */
export const scheduleEmailRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tasks/:taskId/schedule-email',
    {
      config: { access: 'tasks:write' },
      schema: {
        operationId: 'scheduleTaskEmail',
        tags: ['tasks'],
        summary: 'Schedule a drafted email to go out at sendAt',
        params: TaskParams,
        body: ScheduleEmailBody,
        response: { 200: TaskSchema },
      },
    },
    async (request) => {
      const task = await loadTaskForWrite(deps.store, request.params.taskId, principalOf(request));
      if (!deps.config.SMTP_URL)
        throw new AppError(
          'provider_unavailable',
          'No SMTP server is configured (SMTP_URL): emails cannot be sent.',
          // The tasks issue spells 409 for this route; every other unconfigured provider is a 503.
          { status: 409 },
        );
      const now = deps.clock();
      const sendAt = Date.parse(request.body.sendAt);
      if (sendAt < now.getTime() - GRACE_MS || sendAt > now.getTime() + MAX_AHEAD_MS) {
        const message = `must be between now (${now.toISOString()}) and 90 days ahead`;
        throw new AppError('validation_failed', `Invalid sendAt: ${message}`, {
          errors: [{ path: 'sendAt', message }],
        });
      }
      const result = await handleCommand({
        store: deps.store,
        stream: taskStream.name(task.taskId),
        decider: scheduleEmail,
        command: { sendAt: storedInstant(request.body.sendAt), note: null },
        metadata: eventMetadata(request),
        now,
      });
      await readYourWrites(deps, result.appended?.position, [tasksProjection]);
      return taskView(result.state);
    },
  );
};
