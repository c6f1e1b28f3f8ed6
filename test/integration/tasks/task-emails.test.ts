import * as assert from 'uvu/assert';
import { TASK_EMAIL_KIND } from '../../../projections/tasks/task-emails.ts';
import { bearer, call } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { createPrompt } from '../../support/prompts.ts';
import { activeSequence, addMember, addSender, createLead, enroll } from '../../support/sequences.ts';
import { startSmtp } from '../../support/smtp.ts';
import { DAY_MS, enrollmentTasks, tasksSuite } from '../../support/tasks.ts';

let smtp: Awaited<ReturnType<typeof startSmtp>>;
const test = tasksSuite(
  'task emails: drafted from the step for the lead, scheduled, sent over SMTP',
  async () => {
    smtp = await startSmtp((to) => to.startsWith('nobody@'));
    return { SMTP_URL: smtp.url };
  },
);
test.after(async () => {
  await smtp?.close();
});

type Ctx = Parameters<Parameters<typeof test>[1]>[0];

const getTask = async (ctx: Ctx, id: string) =>
  (await call(ctx.t.app, 'GET', `/api/tasks/${id}`, { headers: bearer(ctx.key) })).body;

/** The send item of a task, once it waits for its run time. */
async function sendPlannedFor(ctx: Ctx, taskId: string, at: string) {
  await eventually(`the send of ${taskId} planned for ${at}`, async () => {
    const { rows } = await ctx.t.db.pool.query(
      `SELECT 1 FROM work_items WHERE kind = $1 AND payload->>'taskId' = $2 AND status = 'pending' AND run_at = $3`,
      [TASK_EMAIL_KIND, taskId, new Date(at)],
    );
    return rows.length > 0;
  });
}

const manualEmailTask = async (ctx: Ctx, member: string, leadId: string) => {
  const res = await call(ctx.t.app, 'POST', '/api/tasks', {
    headers: bearer(ctx.key),
    body: {
      type: 'email',
      title: 'Follow up, {{firstName}}',
      notes: 'Dear {{fullName}}',
      assigneeUserId: member,
      leadId,
    },
  });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return res.body.id as string;
};

const post = (ctx: Ctx, path: string, body?: object) =>
  call(ctx.t.app, 'POST', path, { headers: bearer(ctx.key), ...(body ? { body } : {}) });

test('a sequence email step: drafted with the lead fields, edited, scheduled, sent once at sendAt through SMTP; the send completes the task and advances the enrollment', async (ctx) => {
  const { t, key } = ctx;
  const member = await addMember(t.app, key, 'mailer@example.com');
  const senderId = await addSender(t.app, key, {
    type: 'email',
    address: 'mailer@ours.example',
    userId: member,
    dailyLimit: 1,
  });
  const leadId = await createLead(t.app, key, {
    firstName: 'Ada',
    lastName: 'Lovelace',
    companyName: 'Engines',
    emailAddresses: ['ada@engines.example'],
  });
  const sequenceId = await activeSequence(t.app, key, {
    steps: [
      {
        type: 'email',
        waitDays: 0,
        subject: 'Hi {{firstName}}',
        body: 'Hello {{firstName}} at {{companyName}}{{title}}.',
      },
      { type: 'call', waitDays: 1 },
    ],
  });
  const enrolled = await enroll(t.app, key, sequenceId, { leadIds: [leadId], assigneeUserId: member });
  const enrollmentId = enrolled.body.data[0].enrollmentId as string;
  const [task] = await eventually('the email step task', async () => {
    const tasks = await enrollmentTasks(t.app, key, enrollmentId);
    return tasks.length === 1 ? tasks : undefined;
  });

  const unconfigured = await post(ctx, `/api/tasks/${task!.id}/schedule-email`, {
    sendAt: new Date(Date.now() + ctx.offset + 60_000).toISOString(),
  });
  assert.is(unconfigured.status, 409, 'nothing drafted yet');
  const drafted = await post(ctx, `/api/tasks/${task!.id}/draft-email`);
  assert.is(drafted.status, 200, JSON.stringify(drafted.body));
  assert.equal(
    { ...drafted.body.email },
    {
      to: 'ada@engines.example',
      from: 'mailer@ours.example',
      senderAccountId: senderId,
      subject: 'Hi Ada',
      body: 'Hello Ada at Engines.',
      status: 'drafted',
      sendAt: null,
      sentAt: null,
      messageId: null,
      error: null,
    },
  );
  const edited = await call(t.app, 'PATCH', `/api/tasks/${task!.id}`, {
    headers: bearer(key),
    body: { email: { body: 'Hello Ada, about the engines.' } },
  });
  assert.is(edited.body.email.body, 'Hello Ada, about the engines.');
  assert.is(edited.body.email.subject, 'Hi Ada');

  const now = Date.now() + ctx.offset;
  for (const sendAt of [
    // Past the minute of grace a send time may lag behind the server's clock.
    new Date(now - 5 * 60_000).toISOString(),
    new Date(now + 91 * DAY_MS).toISOString(),
    'soon',
  ]) {
    const bad = await post(ctx, `/api/tasks/${task!.id}/schedule-email`, { sendAt });
    assert.is(bad.status, 400, sendAt);
    assert.equal(
      bad.body.errors.map((e: { path: string }) => e.path),
      ['sendAt'],
    );
  }
  const sendAt = new Date(now + 3_600_000).toISOString();
  const scheduled = await post(ctx, `/api/tasks/${task!.id}/schedule-email`, { sendAt });
  assert.is(scheduled.status, 200, JSON.stringify(scheduled.body));
  assert.is(scheduled.body.status, 'scheduled');
  assert.is(scheduled.body.email.status, 'scheduled');
  await sendPlannedFor(ctx, task!.id, sendAt);
  assert.is(smtp.received.length, 0, 'nothing goes out before sendAt');

  ctx.advance(3_600_000);
  const sent = await eventually('the email sent', async () => {
    const now = await getTask(ctx, task!.id);
    return now.email.status === 'sent' ? now : undefined;
  });
  assert.is(sent.status, 'completed');
  assert.ok(sent.email.messageId);
  assert.is(smtp.received.length, 1);
  assert.equal(smtp.received[0]!.to, ['ada@engines.example']);
  assert.is(smtp.received[0]!.from, 'mailer@ours.example');
  assert.match(smtp.received[0]!.raw, 'Hello Ada, about the engines.');
  assert.match(smtp.received[0]!.raw, sent.email.messageId);
  // Sending completed the task: the enrollment moved on, its next step due a day after the send.
  await eventually('the next step planned a day after the send', async () => {
    const { rows } = await t.db.pool.query(
      `SELECT 1 FROM work_items WHERE kind = 'sequence-tasks' AND payload->>'enrollmentId' = $1
         AND status = 'pending' AND run_at = $2`,
      [enrollmentId, new Date(Date.parse(sent.completedAt) + DAY_MS)],
    );
    return rows.length > 0;
  });

  // The sender's daily limit (1) is used: two more emails today move to the next UTC day, saying so.
  const other = await createLead(t.app, key, {
    fullName: 'Grace Hopper',
    firstName: 'Grace',
    emailAddresses: ['grace@navy.example'],
  });
  const a = await manualEmailTask(ctx, member, other);
  const b = await manualEmailTask(ctx, member, other);
  for (const id of [a, b]) {
    const d = await post(ctx, `/api/tasks/${id}/draft-email`);
    assert.is(d.body.email.subject, 'Follow up, Grace');
    assert.is(d.body.email.body, 'Dear Grace Hopper');
    const s = await post(ctx, `/api/tasks/${id}/schedule-email`, {
      sendAt: new Date(Date.now() + ctx.offset + 1000).toISOString(),
    });
    assert.is(s.status, 200, JSON.stringify(s.body));
  }
  ctx.advance(1000);
  const today = new Date(Date.now() + ctx.offset).toISOString().slice(0, 10);
  const tomorrow = new Date(Date.parse(`${today}T00:00:00.000Z`) + DAY_MS).toISOString();
  for (const id of [a, b]) {
    const moved = await eventually(`${id} moved to the next day`, async () => {
      const now = await getTask(ctx, id);
      return now.email.sendAt === tomorrow ? now : undefined;
    });
    assert.is(moved.email.status, 'scheduled');
    assert.match(moved.email.error, 'daily limit of 1');
  }
  assert.is(smtp.received.length, 1);
  ctx.advance(DAY_MS);
  const dayAfter = new Date(Date.parse(tomorrow) + DAY_MS).toISOString();
  const [first, second] = await eventually('one sent on the next day, the other moved again', async () => {
    const both = [await getTask(ctx, a), await getTask(ctx, b)];
    const sentOne = both.find((x) => x.email.status === 'sent');
    const movedOne = both.find((x) => x.email.status === 'scheduled' && x.email.sendAt === dayAfter);
    return sentOne && movedOne ? [sentOne, movedOne] : undefined;
  });
  assert.is(first.status, 'completed');
  assert.is(second.status, 'scheduled');
  assert.is(smtp.received.length, 2);
});

test('a step naming a prompt template with no LLM configured: drafted from the step text, rendered plainly', async (ctx) => {
  const { t, key } = ctx;
  const member = await addMember(t.app, key, 'mailer3@example.com');
  await addSender(t.app, key, { type: 'email', address: 'mailer3@ours.example', userId: member });
  const leadId = await createLead(t.app, key, { firstName: 'Edsger', emailAddresses: ['ed@goto.example'] });
  const prompt = await createPrompt(t.app, key, { name: 'unused-here', template: 'Write to {{firstName}}.' });
  const sequenceId = await activeSequence(t.app, key, {
    steps: [
      {
        type: 'email',
        waitDays: 0,
        subject: 'Hi {{firstName}}',
        body: 'Plain {{firstName}}',
        promptTemplateId: prompt.id,
      },
    ],
  });
  const enrolled = await enroll(t.app, key, sequenceId, { leadIds: [leadId], assigneeUserId: member });
  const [task] = await eventually('the email step task', async () => {
    const tasks = await enrollmentTasks(t.app, key, enrolled.body.data[0].enrollmentId);
    return tasks.length === 1 ? tasks : undefined;
  });
  const drafted = await post(ctx, `/api/tasks/${task!.id}/draft-email`);
  assert.is(drafted.status, 200, JSON.stringify(drafted.body));
  assert.is(drafted.body.email.subject, 'Hi Edsger');
  assert.is(drafted.body.email.body, 'Plain Edsger');
});

test('a refused recipient: the failure is recorded with the SMTP answer; the task stays open', async (ctx) => {
  const member = await addMember(ctx.t.app, ctx.key, 'mailer2@example.com');
  await addSender(ctx.t.app, ctx.key, {
    type: 'email',
    address: 'mailer2@ours.example',
    userId: member,
    dailyLimit: 50,
  });
  const leadId = await createLead(ctx.t.app, ctx.key, {
    fullName: 'No Body',
    emailAddresses: ['nobody@nowhere.example'],
  });
  const id = await manualEmailTask(ctx, member, leadId);
  await post(ctx, `/api/tasks/${id}/draft-email`);
  const s = await post(ctx, `/api/tasks/${id}/schedule-email`, {
    sendAt: new Date(Date.now() + ctx.offset).toISOString(),
  });
  assert.is(s.status, 200, JSON.stringify(s.body));
  const failed = await eventually('the send failed', async () => {
    const now = await getTask(ctx, id);
    return now.email.status === 'failed' ? now : undefined;
  });
  assert.match(failed.email.error, '550');
  assert.is(failed.status, 'pending');
});

test.run();
