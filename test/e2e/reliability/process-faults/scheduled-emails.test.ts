import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bootstrapAccount } from '../../../support/accounts.ts';
import { eventually } from '../../../support/eventually.ts';
import { emailOf, mailer, scheduledEmail } from '../../../support/fault-workload.ts';
import { freshDatabase, type TestDatabase } from '../../../support/postgres.ts';
import { Services } from '../../../support/process-faults.ts';
import type { ServiceProcess } from '../../../support/service-process.ts';
import { startSmtp } from '../../../support/smtp.ts';

interface Ctx {
  db: TestDatabase;
  smtp: Awaited<ReturnType<typeof startSmtp>>;
  services: Services;
  service: ServiceProcess;
  key: string;
  member: string;
}

const test = suite<Ctx>('e2e: a scheduled task email across a SIGKILL of the service');

const start = (ctx: Ctx) => ctx.services.start();

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.smtp = await startSmtp(
    () => false,
    (to) => to.startsWith('hang@'),
  );
  ctx.services = new Services({ DATABASE_URL: ctx.db.url, SMTP_URL: ctx.smtp.url });
  ctx.service = await start(ctx);
  ctx.key = (await bootstrapAccount(ctx.service.url)).apiKey;
  ctx.member = await mailer(ctx.service.url, ctx.key, 'crash@ours.example');
});
test.after(async (ctx) => {
  await ctx.services?.close();
  await ctx.smtp?.close();
  await ctx.db?.drop();
});

const scheduled = (ctx: Ctx, address: string, sendAt: Date) =>
  scheduledEmail(ctx.service.url, ctx.key, ctx.member, address, sendAt);
const emailNow = (ctx: Ctx, taskId: string) => emailOf(ctx.service.url, ctx.key, taskId);

test('killed between scheduling and sending: the restarted service sends it, once', async (ctx) => {
  const taskId = await scheduled(ctx, 'ada@crash.example', new Date(Date.now() + 3000));
  await ctx.services.kill(ctx.service);
  ctx.service = await start(ctx);
  const sent = await eventually('the email sent after the restart', async () => {
    const email = await emailNow(ctx, taskId);
    return email.status === 'sent' ? email : undefined;
  });
  assert.is(sent.messageId, `<${taskId}@ours.example>`, 'the Message-ID derived from the task');
  const received = ctx.smtp.received.filter((m) => m.to.includes('ada@crash.example'));
  assert.is(received.length, 1);
  assert.match(received[0]!.raw, `Message-ID: <${taskId}@ours.example>`);
});

test('killed during the SMTP exchange (intent recorded, no message id): not sent again, recorded as failed', async (ctx) => {
  const taskId = await scheduled(ctx, 'hang@crash.example', new Date());
  await eventually('the send begun', async () => (await emailNow(ctx, taskId)).status === 'sending');
  await ctx.services.kill(ctx.service);
  ctx.service = await start(ctx);
  // The killed holder's lease runs out, then the restarted service finds the send begun.
  const failed = await eventually(
    'the interrupted send recorded',
    async () => {
      const email = await emailNow(ctx, taskId);
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
