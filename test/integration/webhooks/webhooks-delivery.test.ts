import { Webhook } from 'standardwebhooks';
import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { insertRows } from '../../support/rows.ts';
import { createColumn, createTable } from '../../support/tables.ts';
import { deliveries, subscribe, webhooksSuite } from '../../support/webhooks.ts';

const test = webhooksSuite('webhooks delivery: signed, retried, recorded, only to its organization');

test("an organization's events reach its subscriptions only, signed as the specification says", async (ctx) => {
  const { t, key, receiver } = ctx;
  const mine = await subscribe(t.app, key, {
    url: receiver.url,
    eventTypes: ['table.created', 'row.created'],
  });
  const theirs = await subscribe(t.app, ctx.other.apiKey, {
    url: `${receiver.url}?other`,
    eventTypes: ['*'],
  });
  const tableId = await createTable(t.app, key);
  await createColumn(t.app, key, tableId, { key: 'name', label: 'Name', kind: 'input', dataType: 'text' });
  const rows = await insertRows(t.app, key, tableId, [{ name: 'Ada' }, { name: 'Grace' }]);
  await eventually('three messages', () => receiver.received.length >= 3);
  const webhook = new Webhook(mine.secret);
  for (const r of receiver.received) {
    assert.not.ok(r.headers['user-agent']?.includes('other') || r.body.includes('?other'));
    // Verified by the reference library: headers, timestamp, signature over id.timestamp.body.
    webhook.verify(r.body, r.headers as Record<string, string>);
    assert.match(String(r.headers['webhook-id']), /^msg_/);
  }
  const created = receiver
    .ofType('row.created')
    .map((m) => m.payload.data.rowId)
    .sort();
  assert.equal(created, rows.map((r) => r.id).sort());
  const table = receiver.ofType('table.created')[0]!.payload;
  assert.equal(table.data, { tableId, name: 'Leads', createdAt: table.data.createdAt });
  assert.is(receiver.ofType('column.created').length, 0, 'a type not subscribed to is not sent');
  // The other organization's catch-all subscription got none of this.
  assert.ok(receiver.received.every((r) => !r.body.includes(theirs.id)));
  const history = await eventually('the history', async () => {
    const list = await deliveries(t.app, key, mine.id);
    return list.length === 3 && list;
  });
  for (const message of history) {
    assert.is(message.status, 'succeeded');
    assert.is(message.attempts.length, 1);
    assert.is(message.attempts[0].statusCode, 200);
  }
  const otherHistory = await deliveries(t.app, ctx.other.apiKey, theirs.id);
  assert.equal(otherHistory, []);
  const health = (await call(t.app, 'GET', `/api/webhooks/${mine.id}`, { headers: bearer(key) })).body.health;
  assert.is(health.consecutiveFailures, 0);
  assert.ok(health.lastSuccessAt);
});

test('a failed message is retried by the schedule with the same webhook-id, then succeeds', async (ctx) => {
  const { t, key, receiver } = ctx;
  let calls = 0;
  receiver.answer = () => (++calls <= 2 ? { status: 500, body: 'x'.repeat(5000) } : { status: 204 });
  const sub = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['table.created'] });
  await createTable(t.app, key, 'Retried');
  await eventually('the first attempt', () => receiver.received.length >= 1);
  ctx.advance(1500);
  await eventually('the second attempt', () => receiver.received.length >= 2);
  ctx.advance(2500);
  await eventually('the third attempt', () => receiver.received.length >= 3);
  const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
  assert.is(ids.size, 1, 'one webhook-id across retries');
  const [message] = await eventually('three attempts recorded', async () => {
    const list = await deliveries(t.app, key, sub.id);
    return list[0]?.attempts.length === 3 && list;
  });
  assert.is(message.status, 'succeeded');
  assert.equal(
    message.attempts.map((a: { outcome: string; statusCode: number }) => [a.outcome, a.statusCode]),
    [
      ['retrying', 500],
      ['retrying', 500],
      ['succeeded', 204],
    ],
  );
  assert.ok(Buffer.byteLength(message.attempts[0].response) <= 1024, 'the excerpt is at most 1 KB');
  assert.ok(message.attempts[0].nextAttemptAt);
});

test('a message that spends the schedule is failed; redeliver sends it again with its id', async (ctx) => {
  const { t, key, receiver } = ctx;
  receiver.answer = () => ({ status: 500 });
  const sub = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['table.created'] });
  await createTable(t.app, key, 'Failing');
  for (let n = 1; n <= 3; n++) {
    await eventually(`attempt ${n}`, () => receiver.received.length >= n);
    ctx.advance(3000);
  }
  const [failed] = await eventually('the failed message', async () => {
    const list = await deliveries(t.app, key, sub.id, '?status=failed');
    return list.length === 1 && list;
  });
  assert.is(failed.attempts.length, 3);
  assert.is(failed.nextAttemptAt, null);
  assert.equal(await deliveries(t.app, key, sub.id, '?status=succeeded'), []);
  const health = (await call(t.app, 'GET', `/api/webhooks/${sub.id}`, { headers: bearer(key) })).body.health;
  assert.is(health.consecutiveFailures, 1);
  assert.ok(health.failingSince);

  receiver.answer = () => ({ status: 200 });
  const path = `/api/webhooks/${sub.id}/deliveries/${failed.id}/redeliver`;
  // The history shows the attempt once it is recorded, which is before its message is settled: until
  // then a redelivery is refused as still being delivered (409), and taken once it is settled.
  const res = await eventually('the message settled', async () => {
    const answer = await call(t.app, 'POST', path, { headers: bearer(key) });
    return answer.status !== 409 && answer;
  });
  assert.is(res.status, 202, JSON.stringify(res.body));
  await eventually('the redelivery', () => receiver.received.length >= 4);
  assert.is(receiver.received[3]!.headers['webhook-id'], failed.id);
  const missing = await call(t.app, 'POST', `/api/webhooks/${sub.id}/deliveries/msg_nope/redeliver`, {
    headers: bearer(key),
  });
  assert.is(missing.status, 404);
});

test('replay sends every message of a window again', async (ctx) => {
  const { t, key, receiver } = ctx;
  const sub = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['table.created'] });
  const since = new Date().toISOString();
  await createTable(t.app, key, 'One');
  await createTable(t.app, key, 'Two');
  await eventually('two messages', async () => (await deliveries(t.app, key, sub.id)).length === 2);
  // A replay sends again what is settled (docs/webhooks.md): the history shows an attempt once it is
  // recorded, which is before its message is settled.
  await eventually('both settled', async () => {
    const { rows } = await t.deps.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM work_items WHERE group_key = $1 AND status = 'done'`,
      [sub.id],
    );
    return rows[0]!.n === 2;
  });
  const until = new Date(Date.now() + 1000).toISOString();
  const res = await call(t.app, 'POST', `/api/webhooks/${sub.id}/replay`, {
    headers: bearer(key),
    body: { since, until },
  });
  assert.is(res.status, 202);
  assert.equal(res.body, { requeued: 2 });
  await eventually('four receipts', () => receiver.received.length >= 4);
  const ids = receiver.received.map((r) => r.headers['webhook-id']);
  assert.is(new Set(ids).size, 2);
  const backwards = await call(t.app, 'POST', `/api/webhooks/${sub.id}/replay`, {
    headers: bearer(key),
    body: { since: until, until: since },
  });
  assert.is(backwards.status, 400);
});

test("410 Gone disables at once and tells the organization's other subscriptions", async (ctx) => {
  const { t, receiver } = ctx;
  const key = ctx.other.apiKey;
  receiver.answer = (r) => (r.body.includes('"table.created"') ? { status: 410 } : { status: 200 });
  const gone = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['table.created'] });
  const watcher = await subscribe(t.app, key, {
    url: `${receiver.url}/watch`,
    eventTypes: ['webhook.disabled'],
  });
  await createTable(t.app, key, 'Gone');
  const [told] = await eventually('webhook.disabled', () => {
    const list = receiver.ofType('webhook.disabled');
    return list.length > 0 && list;
  });
  assert.is(told!.payload.data.subscriptionId, gone.id);
  new Webhook(watcher.secret).verify(JSON.stringify(told!.payload), told!.headers as Record<string, string>);
  const got = await call(t.app, 'GET', `/api/webhooks/${gone.id}`, { headers: bearer(key) });
  assert.is(got.body.status, 'disabled');
  assert.match(got.body.disabledReason, /410/);
  await createTable(t.app, key, 'After');
  await eventually('the read models', async () => (await deliveries(t.app, key, gone.id)).length === 1);
  assert.is(receiver.ofType('table.created').length, 1, 'nothing more to a disabled subscription');
  const enabled = await call(t.app, 'PATCH', `/api/webhooks/${gone.id}`, {
    headers: bearer(key),
    body: { enabled: true },
  });
  assert.is(enabled.body.status, 'active');
  assert.is(enabled.body.disabledReason, null);
});

test('429 with Retry-After waits that long; a paused subscription gets nothing', async (ctx) => {
  const { t, key, receiver } = ctx;
  receiver.answer = () => ({ status: 429, headers: { 'retry-after': '120' } });
  const sub = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['table.created'] });
  await createTable(t.app, key, 'Limited');
  const [message] = await eventually('the attempt', async () => {
    const list = await deliveries(t.app, key, sub.id);
    return list.length === 1 && list;
  });
  const wait = Date.parse(message.nextAttemptAt) - Date.parse(message.attempts[0].at);
  assert.ok(wait >= 120_000, `waits ${wait} ms`);
  const paused = await subscribe(t.app, key, {
    url: `${receiver.url}/paused`,
    eventTypes: ['*'],
    enabled: false,
  });
  await createTable(t.app, key, 'Quiet');
  // The active subscription got it: by then the paused one would have too.
  await eventually('the active subscription saw it', () =>
    receiver.received.some((r) => r.body.includes('Quiet')),
  );
  assert.not.ok(receiver.received.some((r) => r.body.includes(paused.id)));
  assert.equal(await deliveries(t.app, key, paused.id), []);
});

test('a test send answers the outcome and joins the history marked test', async (ctx) => {
  const { t, key, receiver } = ctx;
  const sub = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['row.created'] });
  const res = await call(t.app, 'POST', `/api/webhooks/${sub.id}/test`, {
    headers: bearer(key),
    body: { eventType: 'row.updated' },
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.outcome, 'succeeded');
  assert.is(res.body.statusCode, 200);
  const [sent] = receiver.received;
  const payload = new Webhook(sub.secret).verify(sent!.body, sent!.headers as Record<string, string>) as {
    type: string;
    test: boolean;
    data: { rowId: string };
  };
  assert.is(payload.type, 'row.updated');
  assert.is(payload.test, true);
  assert.ok(payload.data.rowId);
  const history = await eventually('the test in the history', async () => {
    const list = await deliveries(t.app, key, sub.id);
    return list.length === 1 && list;
  });
  assert.is(history[0].test, true);
  receiver.answer = () => ({ status: 503 });
  const failed = await call(t.app, 'POST', `/api/webhooks/${sub.id}/test`, {
    headers: bearer(key),
    body: { eventType: 'table.created' },
  });
  assert.is(failed.body.outcome, 'failed');
  assert.is(failed.body.statusCode, 503);
});

test('after a rotation messages carry both signatures for 24 hours, then the new one only', async (ctx) => {
  const { t, key, receiver } = ctx;
  const sub = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['table.created'] });
  const rotated = await call(t.app, 'POST', `/api/webhooks/${sub.id}/rotate-secret`, {
    headers: bearer(key),
  });
  await createTable(t.app, key, 'Rotated');
  await eventually('a message', () => receiver.received.length >= 1);
  const first = receiver.received[0]!;
  assert.is(String(first.headers['webhook-signature']).split(' ').length, 2);
  new Webhook(sub.secret).verify(first.body, first.headers as Record<string, string>);
  new Webhook(rotated.body.secret).verify(first.body, first.headers as Record<string, string>);
  ctx.advance(25 * 3_600_000);
  const test = await call(t.app, 'POST', `/api/webhooks/${sub.id}/test`, {
    headers: bearer(key),
    body: { eventType: 'table.created' },
  });
  assert.is(test.body.outcome, 'succeeded');
  const later = receiver.received[1]!;
  assert.is(String(later.headers['webhook-signature']).split(' ').length, 1);
});

test.run();
