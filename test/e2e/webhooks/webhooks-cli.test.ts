import * as assert from 'uvu/assert';
import { type CliContext, cliSuite } from '../../support/cli-suite.ts';
import { eventually } from '../../support/eventually.ts';
import { Receiver } from '../../support/webhooks.ts';

const { test, stk, json } = cliSuite<CliContext & { receiver: Receiver }>(
  'e2e: stk webhooks against the running service',
  { env: () => ({ WEBHOOK_RETRY_SCHEDULE: '0,1,2', ALLOW_PRIVATE_NETWORK_TARGETS: 'true' }) },
);

test.before(async (ctx) => {
  ctx.receiver = await Receiver.start();
});
test.after(async (ctx) => {
  await ctx.receiver.close();
});

test('create | get | list | test | deliveries | redeliver | replay | rotate-secret | update | delete', async (ctx) => {
  const created = await json(ctx, [
    'webhooks',
    'create',
    '--url',
    ctx.receiver.url,
    '--events',
    'table.created',
  ]);
  assert.match(created.secret, /^whsec_/);
  const human = await stk(ctx, ['webhooks', 'get', created.id]);
  assert.is(human.code, 0, human.stderr);
  assert.match(human.stdout, /Status:\s+active/);
  assert.not.match(human.stdout, /whsec_/);
  const list = await stk(ctx, ['webhooks', 'list']);
  assert.match(list.stdout, new RegExp(`${created.id}\\s+active`));

  const sent = await stk(ctx, ['webhooks', 'test', created.id, '--event', 'row.created']);
  assert.is(sent.code, 0, sent.stderr);
  assert.match(sent.stdout, /Outcome:\s+succeeded/);
  const since = new Date(Date.now() - 1000).toISOString();
  const table = await json(ctx, ['tables', 'create', 'Hooked']);
  assert.ok(table.id);
  await eventually('the table.created message', () => ctx.receiver.received.length >= 2);
  const history = await eventually('two messages in the history', async () => {
    const page = await json(ctx, ['webhooks', 'deliveries', created.id]);
    return page.data.length === 2 && page.data;
  });
  const real = history.find((d: { test: boolean }) => !d.test);
  // Refused (409) until the message is settled, which is after its attempt shows in the history.
  const redelivered = await eventually('redelivered once settled', async () => {
    const run = await stk(ctx, ['webhooks', 'redeliver', created.id, real.id]);
    return !/still being delivered/.test(run.stderr) && run;
  });
  assert.is(redelivered.code, 0, redelivered.stderr);
  await eventually('the redelivery', () => ctx.receiver.received.length >= 3);
  await eventually('settled', async () => {
    const replayed = await json(ctx, [
      'webhooks',
      'replay',
      created.id,
      '--since',
      since,
      '--until',
      new Date(Date.now() + 60_000).toISOString(),
    ]);
    return replayed.requeued === 1;
  });
  const rotated = await json(ctx, ['webhooks', 'rotate-secret', created.id]);
  assert.is.not(rotated.secret, created.secret);
  const paused = await json(ctx, ['webhooks', 'update', created.id, '--pause']);
  assert.is(paused.status, 'paused');
  const bad = await stk(ctx, ['webhooks', 'update', created.id]);
  assert.is.not(bad.code, 0);
  const deleted = await stk(ctx, ['webhooks', 'delete', created.id]);
  assert.is(deleted.code, 0, deleted.stderr);
  const gone = await stk(ctx, ['webhooks', 'get', created.id]);
  assert.is.not(gone.code, 0);
  assert.match(gone.stderr, /No webhook subscription/);
});

test.run();
