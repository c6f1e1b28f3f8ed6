import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { type ServiceProcess, startServiceProcess } from '../../support/service-process.ts';
import { startSmtp } from '../../support/smtp.ts';

interface Ctx {
  db: TestDatabase;
  smtp: Awaited<ReturnType<typeof startSmtp>>;
  service: ServiceProcess;
  key: string;
  member: string;
}

const test = suite<Ctx>('e2e: a scheduled task email across a SIGKILL of the service');

const start = (ctx: Ctx) =>
  startServiceProcess({ DATABASE_URL: ctx.db.url, LOG_LEVEL: 'warn', SMTP_URL: ctx.smtp.url });

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.smtp = await startSmtp(
    () => false,
    (to) => to.startsWith('hang@'),
  );
  ctx.service = await start(ctx);
  ctx.key = (await bootstrapAccount(ctx.service.url)).apiKey;
  const member = await call(ctx.service.url, 'POST', '/api/users', {
    headers: bearer(ctx.key),
    body: { email: 'crash-mailer@example.com' },
  });
  ctx.member = member.body.id;
  await call(ctx.service.url, 'POST', '/api/sender-accounts', {
    headers: bearer(ctx.key),
    body: { type: 'email', address: 'crash@ours.example', userId: ctx.member, dailyLimit: 10 },
  });
});
test.after(async (ctx) => {
  await ctx.service?.stop('SIGKILL');
  await ctx.smtp?.close();
  await ctx.db?.drop();
});

const api = (ctx: Ctx, method: string, path: string, body?: object) =>
  call(ctx.service.url, method, path, { headers: bearer(ctx.key), ...(body ? { body } : {}) });

async function scheduledEmail(ctx: Ctx, address: string, sendAt: Date): Promise<string> {
  const lead = await api(ctx, 'POST', '/api/leads', { fullName: 'Crash Lead', emailAddresses: [address] });
  const task = await api(ctx, 'POST', '/api/tasks', {
    type: 'email',
    title: 'Crash test',
    notes: 'Hello',
    assigneeUserId: ctx.member,
    leadId: lead.body.id,
  });
  assert.is((await api(ctx, 'POST', `/api/tasks/${task.body.id}/draft-email`)).status, 200);
  const scheduled = await api(ctx, 'POST', `/api/tasks/${task.body.id}/schedule-email`, {
    sendAt: sendAt.toISOString(),
  });
  assert.is(scheduled.status, 200, JSON.stringify(scheduled.body));
  return task.body.id;
}

const emailOf = async (ctx: Ctx, taskId: string) =>
  (await api(ctx, 'GET', `/api/tasks/${taskId}`)).body.email;

test('killed between scheduling and sending: the restarted service sends it, once', async (ctx) => {
  const taskId = await scheduledEmail(ctx, 'ada@crash.example', new Date(Date.now() + 3000));
  assert.is(await ctx.service.stop('SIGKILL'), null);
  ctx.service = await start(ctx);
  const sent = await eventually('the email sent after the restart', async () => {
    const email = await emailOf(ctx, taskId);
    return email.status === 'sent' ? email : undefined;
  });
  assert.is(sent.messageId, `<${taskId}@ours.example>`, 'the Message-ID derived from the task');
  const received = ctx.smtp.received.filter((m) => m.to.includes('ada@crash.example'));
  assert.is(received.length, 1);
  assert.match(received[0]!.raw, `Message-ID: <${taskId}@ours.example>`);
});

test('killed during the SMTP exchange (intent recorded, no message id): not sent again, recorded as failed', async (ctx) => {
  const taskId = await scheduledEmail(ctx, 'hang@crash.example', new Date());
  await eventually('the send begun', async () => (await emailOf(ctx, taskId)).status === 'sending');
  assert.is(await ctx.service.stop('SIGKILL'), null);
  ctx.service = await start(ctx);
  // The killed holder's lease runs out, then the restarted service finds the send begun.
  const failed = await eventually(
    'the interrupted send recorded',
    async () => {
      const email = await emailOf(ctx, taskId);
      return email.status === 'failed' ? email : undefined;
    },
    120_000,
  );
  assert.match(failed.error, 'interrupted');
  // The intent recorded the Message-ID before the exchange: the failure names what to look for.
  assert.match(failed.error, `<${taskId}@ours.example>`);
  assert.is(failed.messageId, `<${taskId}@ours.example>`);
});

test.run();
