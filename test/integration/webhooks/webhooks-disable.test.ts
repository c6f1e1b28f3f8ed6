import * as assert from 'uvu/assert';
import { FAILED_MESSAGES_IN_A_ROW } from '../../../processes/webhooks/disable.ts';
import { bearer, call, type Target } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { createTable } from '../../support/tables.ts';
import { subscribe, webhooksSuite } from '../../support/webhooks.ts';

// One attempt per message, so that each failure spends the schedule at once.
const test = webhooksSuite('webhooks: the disable rules', { WEBHOOK_RETRY_SCHEDULE: '0' });

const statusOf = async (target: Target, key: string, id: string) =>
  (await call(target, 'GET', `/api/webhooks/${id}`, { headers: bearer(key) })).body;

test(`${FAILED_MESSAGES_IN_A_ROW} messages in a row that spend the schedule disable the subscription`, async (ctx) => {
  const { t, key, receiver } = ctx;
  receiver.answer = () => ({ status: 500 });
  const sub = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['table.created'] });
  for (let i = 0; i < FAILED_MESSAGES_IN_A_ROW - 1; i++) await createTable(t.app, key, `T${i}`);
  await eventually(
    '19 failed',
    async () => (await statusOf(t.app, key, sub.id)).health.consecutiveFailures === 19,
  );
  assert.is((await statusOf(t.app, key, sub.id)).status, 'active', 'not yet');
  await createTable(t.app, key, 'The twentieth');
  const disabled = await eventually('disabled', async () => {
    const s = await statusOf(t.app, key, sub.id);
    return s.status === 'disabled' && s;
  });
  assert.match(disabled.disabledReason, /20 messages in a row/);
});

test('failing for 5 days disables the subscription; one success in between starts the count again', async (ctx) => {
  const { t, receiver } = ctx;
  const key = ctx.other.apiKey;
  receiver.answer = () => ({ status: 500 });
  const sub = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['table.created'] });
  await createTable(t.app, key, 'First failure');
  await eventually('failing', async () => (await statusOf(t.app, key, sub.id)).health.failingSince !== null);
  ctx.advance(3 * 24 * 3_600_000);
  receiver.answer = () => ({ status: 200 });
  await createTable(t.app, key, 'A success');
  await eventually('healthy', async () => (await statusOf(t.app, key, sub.id)).health.failingSince === null);
  receiver.answer = () => ({ status: 500 });
  await createTable(t.app, key, 'Failing again');
  await eventually(
    'failing again',
    async () => (await statusOf(t.app, key, sub.id)).health.failingSince !== null,
  );
  ctx.advance(3 * 24 * 3_600_000);
  await createTable(t.app, key, 'Three days later');
  await eventually('two failures', () => receiver.received.length >= 4);
  assert.is((await statusOf(t.app, key, sub.id)).status, 'active', 'failing 3 days only');
  ctx.advance(2 * 24 * 3_600_000 + 1000);
  await createTable(t.app, key, 'Five days later');
  const disabled = await eventually('disabled', async () => {
    const s = await statusOf(t.app, key, sub.id);
    return s.status === 'disabled' && s;
  });
  assert.match(disabled.disabledReason, /5 days/);
});

test.run();
