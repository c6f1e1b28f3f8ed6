import { createTransport } from 'nodemailer';
import { TASK_EMAIL_KIND } from '../../projections/tasks/task-emails.ts';
import { TASKS, tasksProjection } from '../../projections/tasks/tasks.ts';
import { handleCommand, loadState } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { senderAccountStream } from '../../src/domain/sequences/streams.ts';
import type { TaskEvent } from '../../src/domain/tasks/events.ts';
import { isDone, type TaskState, taskStream } from '../../src/domain/tasks/task.ts';
import type { WorkerFactory } from '../../src/feature.ts';
import type { WorkItem } from '../../src/work/queue.ts';
import type { Outcome } from '../../src/work/worker.ts';

const DAY_MS = 24 * 3_600_000;

/**
 * The Message-ID of a task's email: derived from the task alone, so every attempt to send it (a
 * person scheduling it again after an interrupted send) carries the same one, and a copy that did go
 * out is recognisable as the same message (in the sent folder, by the recipient's mail system).
 */
export function taskMessageId(taskId: string, from: string): string {
  const domain = /@([^@\s<>]+)$/.exec(from)?.[1] ?? 'tasks.invalid';
  return `<${taskId}@${domain}>`;
}

/** The send intent: taken only by a scheduled email of an open task, once (the stream's revision decides). */
const beginSend = taskStream.decider((messageId: string, state, now): TaskEvent[] => {
  if (state.life !== 'live' || isDone(state.status) || state.email?.status !== 'scheduled') return [];
  return [{ type: 'TaskEmailSending', data: { taskId: state.taskId, messageId, at: now.toISOString() } }];
});

/** The outcome of a begun send: sent (the task completes) or failed with the server's answer. */
const endSend = taskStream.decider(
  (outcome: { messageId: string } | { error: string }, state, now): TaskEvent[] => {
    if (state.email?.status !== 'sending') return [];
    const at = now.toISOString();
    const { taskId } = state;
    if ('error' in outcome) return [{ type: 'TaskEmailFailed', data: { taskId, error: outcome.error, at } }];
    const sent: TaskEvent = { type: 'TaskEmailSent', data: { taskId, messageId: outcome.messageId, at } };
    // Deleted (so skipped) during the exchange: the send is recorded, the task stays as it ended.
    if (state.life !== 'live' || isDone(state.status)) return [sent];
    return [sent, { type: 'TaskStatusChanged', data: { taskId, from: state.status, to: 'completed', at } }];
  },
);

/** Moves a send over the sender's daily limit to the next UTC day, saying so on the email. */
const moveSend = taskStream.decider((command: { sendAt: string; note: string }, state, now): TaskEvent[] => {
  if (state.email?.status !== 'scheduled') return [];
  const { taskId, organizationId } = state;
  const { senderAccountId } = state.email;
  const data = { taskId, organizationId, senderAccountId, ...command, at: now.toISOString() };
  return [{ type: 'TaskEmailScheduled', data }];
});

/**
 * Emails the sender account has sent on the UTC day `day` (YYYY-MM-DD), by the tasks read model: the
 * counter its dailyLimit is held to (GET /api/linkedin/limits reads it too).
 */
export async function sentOn(
  deps: Pick<ServiceDeps, 'pool'>,
  organizationId: string,
  senderAccountId: string,
  day: string,
) {
  const { rows } = await deps.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM ${TASKS} WHERE organization_id = $1
       AND cells->'email'->>'senderAccountId' = $2 AND cells->'email'->>'status' = 'sent'
       AND left(cells->'email'->>'sentAt', 10) = $3`,
    [organizationId, senderAccountId, day],
  );
  return Number(rows[0]!.n);
}

const smtpAnswer = (error: unknown) => {
  const e = error as { response?: string; message?: string };
  return e.response ?? e.message ?? String(error);
};

/**
 * Sends one scheduled task email at its sendAt, at most once by itself: the intent
 * (TaskEmailSending, with the Message-ID it will carry) is recorded before the SMTP exchange and the
 * outcome after it. A send found begun but not ended (a process killed mid-exchange) is not made
 * again (it may have gone out): it is recorded as failed, naming the Message-ID to look for, for a
 * person to check and schedule again. Sends of one sender go one at a time (the item's group).
 */
async function send(deps: ServiceDeps, item: WorkItem, smtpUrl: string): Promise<Outcome> {
  const { taskId } = item.payload as { taskId: string };
  const stream = taskStream.name(taskId);
  const metadata = { correlationId: item.id, actor: 'system:task-email' };
  const { state } = await loadState(deps.store, stream, taskStream);
  const email = state.email;
  if (state.life !== 'live' || !email || isDone(state.status)) return { status: 'done' };
  if (email.status === 'sending') {
    const error = `interrupted during the SMTP exchange: it may have gone out (look for Message-ID ${email.messageId ?? taskMessageId(taskId, email.from)}), so it is not sent again`;
    await handleCommand({
      store: deps.store,
      stream,
      decider: endSend,
      command: { error },
      metadata,
      now: deps.clock(),
    });
    return { status: 'done' };
  }
  if (email.status !== 'scheduled') return { status: 'done' };
  const now = deps.clock();
  // Moved since this item was made (rescheduled, or by the daily limit): its own item sends it then.
  if (Date.parse(email.sendAt!) > now.getTime()) return { status: 'done' };
  if (await overLimit(deps, state, now)) return { status: 'done' };
  const messageId = taskMessageId(taskId, email.from);
  const begun = await handleCommand({
    store: deps.store,
    stream,
    decider: beginSend,
    command: messageId,
    metadata,
    now,
  });
  if (!begun.appended) return { status: 'done' };
  let outcome: { messageId: string } | { error: string };
  try {
    const info = await createTransport(smtpUrl).sendMail({
      from: email.from,
      to: email.to,
      subject: email.subject,
      text: email.body,
      messageId,
    });
    outcome = { messageId: info.messageId || messageId };
  } catch (error) {
    outcome = { error: smtpAnswer(error) };
  }
  const ended = await handleCommand({
    store: deps.store,
    stream,
    decider: endSend,
    command: outcome,
    metadata,
    now: deps.clock(),
  });
  // The next send of this sender counts this one: the read model must show it first.
  if (ended.appended) await deps.projections.waitFor(ended.appended.position, [tasksProjection], 30_000);
  return { status: 'done' };
}

/** Over the sender's dailyLimit today (UTC): the send moves to the start of the next day, with a note. */
async function overLimit(deps: ServiceDeps, task: TaskState, now: Date): Promise<boolean> {
  const email = task.email!;
  const { state: sender } = await loadState(
    deps.store,
    senderAccountStream.name(email.senderAccountId),
    senderAccountStream,
  );
  const day = now.toISOString().slice(0, 10);
  if ((await sentOn(deps, task.organizationId, email.senderAccountId, day)) < sender.dailyLimit) return false;
  const next = new Date(Date.parse(`${day}T00:00:00.000Z`) + DAY_MS).toISOString();
  const note = `daily limit of ${sender.dailyLimit} reached for ${email.from} on ${day}: moved to ${next}`;
  await handleCommand({
    store: deps.store,
    stream: taskStream.name(task.taskId),
    decider: moveSend,
    command: { sendAt: next, note },
    metadata: { correlationId: `daily-limit:${task.taskId}`, actor: 'system:task-email' },
    now,
  });
  return true;
}

export const taskEmailWorker: WorkerFactory = (deps) => ({
  kind: TASK_EMAIL_KIND,
  concurrency: 4,
  async handle(item): Promise<Outcome> {
    const smtpUrl = deps.config.SMTP_URL;
    // Scheduling needs SMTP_URL; a process started without it leaves the item for a later attempt.
    if (!smtpUrl)
      return { status: 'retry', at: new Date(deps.clock().getTime() + 60_000), error: 'SMTP_URL unset' };
    return send(deps, item, smtpUrl);
  },
});
