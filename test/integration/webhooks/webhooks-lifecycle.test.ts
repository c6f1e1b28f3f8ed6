import * as assert from 'uvu/assert';
import { DATA_KEYS } from '../../../services/secrets/data-keys.ts';
import { sign } from '../../../src/domain/webhooks/signing.ts';
import { bearer, call } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { insertRows } from '../../support/rows.ts';
import { createTable } from '../../support/tables.ts';
import { deliveries, replayUntilReceived, subscribe, webhooksSuite } from '../../support/webhooks.ts';

const DAY_MS = 86_400_000;

const test = webhooksSuite('webhooks lifecycle: paused messages, expired keys, history retention');

test('messages pending when a subscription is paused are skipped in the history; a replay sends them', async (ctx) => {
  const { t, key, receiver } = ctx;
  const MESSAGES = 40;
  // Slow enough that most messages are still waiting when the pause comes.
  receiver.delayMs = 200;
  const sub = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['row.created'] });
  const since = new Date(Date.now() - 1000).toISOString();
  const tableId = await createTable(t.app, key);
  await insertRows(
    t.app,
    key,
    tableId,
    Array.from({ length: MESSAGES }, () => ({})),
  );
  await eventually('the first message', () => receiver.received.length >= 1);
  const paused = await call(t.app, 'PATCH', `/api/webhooks/${sub.id}`, {
    headers: bearer(key),
    body: { enabled: false },
  });
  assert.is(paused.body.status, 'paused');
  const history = await eventually(
    'every message in the history',
    async () => {
      const list = await deliveries(t.app, key, sub.id, '?limit=100');
      return list.length === MESSAGES && list.every((m) => m.status !== 'retrying') && list;
    },
    60_000,
  );
  const skipped = history.filter((m) => m.status === 'skipped');
  assert.ok(skipped.length > 0, 'some messages were still waiting at the pause');
  const sent = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
  for (const message of history) {
    if (message.status === 'skipped') {
      assert.not.ok(sent.has(message.id), `${message.id} skipped but sent`);
      assert.equal(
        message.attempts.map((a: { outcome: string }) => a.outcome),
        ['skipped'],
      );
      assert.is(message.attempts[0].response, 'skipped: subscription paused');
    } else {
      assert.is(message.status, 'succeeded');
      assert.ok(sent.has(message.id), `${message.id} succeeded but not received`);
    }
  }
  const filtered = await deliveries(t.app, key, sub.id, '?status=skipped&limit=100');
  assert.is(filtered.length, skipped.length);
  // Skipped messages say nothing of the receiver's health.
  const health = (await call(t.app, 'GET', `/api/webhooks/${sub.id}`, { headers: bearer(key) })).body.health;
  assert.is(health.consecutiveFailures, 0);
  assert.is(health.failingSince, null);

  receiver.delayMs = 0;
  await call(t.app, 'PATCH', `/api/webhooks/${sub.id}`, { headers: bearer(key), body: { enabled: true } });
  await replayUntilReceived(t.app, key, sub.id, since, receiver, skipped);
});

test("a replaced secret's data key is destroyed once it stops signing", async (ctx) => {
  const { t, key, receiver } = ctx;
  const sub = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['table.created'] });
  const keysOf = async () =>
    (
      await t.deps.pool.query<{ key_id: string }>(`SELECT key_id FROM ${DATA_KEYS} WHERE secret_name = $1`, [
        `webhook:${sub.id}`,
      ])
    ).rows.map((r) => r.key_id);
  const rotated = await call(t.app, 'POST', `/api/webhooks/${sub.id}/rotate-secret`, {
    headers: bearer(key),
  });
  assert.is(rotated.status, 200);
  assert.is((await keysOf()).length, 2, 'both keys while both secrets sign');
  // Not before its time: the old key still opens while the old secret signs.
  ctx.advance(23 * 3_600_000);
  await createTable(t.app, key, 'Before');
  await eventually('a message signed twice', () => receiver.received.length >= 1);
  assert.is(String(receiver.received[0]!.headers['webhook-signature']).split(' ').length, 2);
  assert.is((await keysOf()).length, 2);
  ctx.advance(2 * 3_600_000);
  await eventually('the old key destroyed', async () => (await keysOf()).length === 1, 30_000);
  await createTable(t.app, key, 'After');
  await eventually('a message signed once', () => receiver.received.length >= 2);
  const later = receiver.received[1]!;
  assert.is(String(later.headers['webhook-signature']).split(' ').length, 1);
  // Signed by the new secret alone (the timestamp is the moved clock's: checked without a freshness window).
  const [id, timestamp] = [String(later.headers['webhook-id']), Number(later.headers['webhook-timestamp'])];
  assert.is(later.headers['webhook-signature'], sign(rotated.body.secret, id, timestamp, later.body));
});

// Last: it moves the clock a month on.
test('the history keeps messages WEBHOOK_HISTORY_DAYS (30) after their last attempt', async (ctx) => {
  const { t, key, receiver } = ctx;
  const sub = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['table.created'] });
  await createTable(t.app, key, 'Old');
  const [old] = await eventually('the first message recorded', async () => {
    const list = await deliveries(t.app, key, sub.id);
    return list.length === 1 && list;
  });
  ctx.advance(29 * DAY_MS);
  await createTable(t.app, key, 'Recent');
  const both = await eventually('two messages recorded', async () => {
    const list = await deliveries(t.app, key, sub.id);
    return list.length === 2 && list;
  });
  assert.ok(
    both.some((m) => m.id === old.id),
    'kept at 29 days',
  );
  ctx.advance(2 * DAY_MS);
  await createTable(t.app, key, 'New');
  const left = await eventually('the old message pruned', async () => {
    const list = await deliveries(t.app, key, sub.id);
    return list.length === 2 && !list.some((m) => m.id === old.id) && list;
  });
  assert.is(left.length, 2);
  const attempts = await t.deps.pool.query('SELECT 1 FROM webhook_attempts WHERE message_id = $1', [old.id]);
  assert.is(attempts.rowCount, 0, 'its attempts went with it');
});

test.run();
