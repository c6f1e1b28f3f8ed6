import * as assert from 'uvu/assert';
import { FAILED_MESSAGES_IN_A_ROW } from '../../../processes/webhooks/disable.ts';
import { bearer, call, type Target } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { insertRows } from '../../support/rows.ts';
import { createTable } from '../../support/tables.ts';
import { replayUntilReceived, subscribe, webhooksSuite } from '../../support/webhooks.ts';

// Three attempts 2 and 4 seconds apart.
const test = webhooksSuite('webhooks: what a disable drops shows as skipped', {
  WEBHOOK_RETRY_SCHEDULE: '0,2,4',
});

/** Bounds a wait that only a hang exceeds: every wait here is for the state its test asserts. */
const HANG_MS = 120_000;

// biome-ignore lint/suspicious/noExplicitAny: deliveries are arbitrary JSON that tests pick apart
type Delivery = any;

const webhookOf = async (target: Target, key: string, id: string) =>
  (await call(target, 'GET', `/api/webhooks/${id}`, { headers: bearer(key) })).body;

/** Every page of a subscription's history. */
async function history(target: Target, key: string, id: string, status = ''): Promise<Delivery[]> {
  const all: Delivery[] = [];
  let cursor: string | null = null;
  do {
    const query = `?limit=100${status && `&status=${status}`}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await call(target, 'GET', `/api/webhooks/${id}/deliveries${query}`, { headers: bearer(key) });
    assert.is(res.status, 200);
    all.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return all;
}

/** Once every message is settled in the history: none still `retrying` (else fails with the counts). */
async function settled(target: Target, key: string, id: string, count: number): Promise<Delivery[]> {
  let last: Delivery[] = [];
  try {
    return await eventually(
      `${count} messages, none retrying`,
      async () => {
        last = await history(target, key, id);
        return last.length === count && last.every((m) => m.status !== 'retrying') && last;
      },
      HANG_MS,
    );
  } catch (error) {
    const counts: Record<string, number> = {};
    for (const m of last) counts[m.status] = (counts[m.status] ?? 0) + 1;
    throw new Error(`${(error as Error).message}: ${last.length} in the history, ${JSON.stringify(counts)}`);
  }
}

const disabledOf = (target: Target, key: string, id: string) =>
  eventually(
    'disabled',
    async () => {
      const s = await webhookOf(target, key, id);
      return s.status === 'disabled' && s;
    },
    HANG_MS,
  );

function assertSkipped(message: Delivery, sent: Set<string>) {
  assert.is(message.nextAttemptAt, null, `${message.id}: no attempt to come`);
  const last = message.attempts.at(-1);
  assert.is(last.outcome, 'skipped');
  assert.is(last.response, 'skipped: subscription disabled');
  assert.is(last.nextAttemptAt, null);
  // Its other attempts (made before the disable) were sent; the skipped one was not.
  const made = message.attempts.filter((a: { outcome: string }) => a.outcome !== 'skipped');
  assert.is(made.length, message.attempts.length - 1, `${message.id}: one skip, the last`);
  if (made.length === 0) assert.not.ok(sent.has(message.id), `${message.id} never attempted but sent`);
}

test('messages waiting for a retry when 20 in a row failed show as skipped, not retrying for ever', async (ctx) => {
  const { t, key, receiver } = ctx;
  // Two messages wait for a retry an hour away (a 503's Retry-After) while 20 others spend the
  // schedule: they are waiting when the twentieth failure disables, however slow the machine. Waiting
  // on the schedule's own seconds, whether any still was depended on how fast the failures came.
  const waiting = ['Waiting 1', 'Waiting 2'];
  receiver.answer = (request) =>
    waiting.includes(JSON.parse(request.body).data.name)
      ? { status: 503, headers: { 'retry-after': '3600' } }
      : { status: 500 };
  const sub = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['table.created'] });
  for (const name of waiting) await createTable(t.app, key, name);
  await eventually(
    'two messages waiting for a retry',
    async () => {
      const list = await history(t.app, key, sub.id);
      return list.length === waiting.length && list.every((m) => m.status === 'retrying');
    },
    HANG_MS,
  );
  for (let i = 0; i < FAILED_MESSAGES_IN_A_ROW; i++) await createTable(t.app, key, `T${i}`);
  const disabled = await disabledOf(t.app, key, sub.id);
  assert.match(disabled.disabledReason, /20 messages in a row failed after every retry/);

  const MESSAGES = FAILED_MESSAGES_IN_A_ROW + waiting.length;
  const list = await settled(t.app, key, sub.id, MESSAGES);
  const sent = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
  const skipped = list.filter((m) => m.status === 'skipped');
  assert.is(skipped.length, waiting.length, 'the messages waiting for a retry at the disable');
  for (const message of list) {
    if (message.status === 'skipped') {
      assertSkipped(message, sent);
      assert.equal(
        message.attempts.map((a: { outcome: string }) => a.outcome),
        ['retrying', 'skipped'],
      );
    } else {
      assert.is(message.status, 'failed');
      assert.is(message.attempts.length, 3, `${message.id}: the whole schedule`);
    }
  }
  assert.equal(await history(t.app, key, sub.id, 'retrying'), []);
  assert.is((await history(t.app, key, sub.id, 'skipped')).length, skipped.length);
  // Every attempt the history shows as made reached the receiver, and nothing else did.
  const made = list.flatMap((m) => m.attempts).filter((a: { outcome: string }) => a.outcome !== 'skipped');
  assert.is(receiver.received.length, made.length);
  // Skipped messages say nothing of the receiver's health: only the failed ones count.
  assert.is((await webhookOf(t.app, key, sub.id)).health.consecutiveFailures, FAILED_MESSAGES_IN_A_ROW);
});

test('a message whose attempt was in flight when the disable came, and would be retried, shows as skipped', async (ctx) => {
  const { t, key, receiver } = ctx;
  receiver.answer = (request) => {
    const gone = JSON.parse(request.body).data.name === 'Gone';
    // Read right after this answer: the 410 comes at once, the others while it is being recorded.
    receiver.delayMs = gone ? 0 : 500;
    // An hour's Retry-After: without the disable, their next attempt would be an hour away.
    return gone ? { status: 410 } : { status: 503, headers: { 'retry-after': '3600' } };
  };
  const sub = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['table.created'] });
  for (const name of ['B', 'C', 'D']) await createTable(t.app, key, name);
  await eventually('three messages in flight', () => receiver.received.length === 3);
  await createTable(t.app, key, 'Gone');
  const disabled = await disabledOf(t.app, key, sub.id);
  assert.match(disabled.disabledReason, /410 Gone/);

  const list = await settled(t.app, key, sub.id, 4);
  const sent = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
  assert.is(receiver.received.length, 4, 'each message sent once');
  assert.equal(list.map((m) => m.status).sort(), ['failed', 'skipped', 'skipped', 'skipped']);
  for (const message of list.filter((m) => m.status === 'skipped')) {
    assertSkipped(message, sent);
    assert.equal(
      message.attempts.map((a: { outcome: string }) => a.outcome),
      ['retrying', 'skipped'],
    );
  }
});

test('messages never attempted when a 410 disables show as skipped; enabled again, redeliver and replay send them', async (ctx) => {
  const { t, receiver } = ctx;
  const key = ctx.other.apiKey;
  // More than one claim holds (128): some messages are still queued, not claimed, at the disable.
  const MESSAGES = 150;
  receiver.delayMs = 50;
  receiver.answer = () => ({ status: 410 });
  const sub = await subscribe(t.app, key, { url: receiver.url, eventTypes: ['row.created'] });
  const since = new Date(Date.now() - 1000).toISOString();
  const tableId = await createTable(t.app, key);
  await insertRows(
    t.app,
    key,
    tableId,
    Array.from({ length: MESSAGES }, () => ({})),
  );
  const disabled = await disabledOf(t.app, key, sub.id);
  assert.match(disabled.disabledReason, /410 Gone/);

  const list = await settled(t.app, key, sub.id, MESSAGES);
  const sent = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
  const skipped = list.filter((m) => m.status === 'skipped');
  for (const message of list) {
    if (message.status === 'skipped') {
      assert.is(message.attempts.length, 1, `${message.id}: never attempted`);
      assertSkipped(message, sent);
    } else assert.is(message.status, 'failed');
  }
  assert.is(skipped.length, MESSAGES - receiver.received.length);

  // Enabled again: a redelivery sends one skipped message, a replay of the window all of them.
  receiver.delayMs = 0;
  receiver.answer = () => ({ status: 200 });
  const enabled = await call(t.app, 'PATCH', `/api/webhooks/${sub.id}`, {
    headers: bearer(key),
    body: { enabled: true },
  });
  assert.is(enabled.body.status, 'active');
  const first = skipped[0];
  const redelivered = await call(t.app, 'POST', `/api/webhooks/${sub.id}/deliveries/${first.id}/redeliver`, {
    headers: bearer(key),
  });
  assert.is(redelivered.status, 202);
  await eventually('the redelivered message sent', () =>
    receiver.received.some((r) => r.headers['webhook-id'] === first.id),
  );
  const after = await eventually('the redelivery in the history', async () => {
    const m = (await history(t.app, key, sub.id)).find((d) => d.id === first.id);
    return m?.status === 'succeeded' && m;
  });
  assert.equal(
    after.attempts.map((a: { outcome: string }) => a.outcome),
    ['skipped', 'succeeded'],
  );
  await replayUntilReceived(t.app, key, sub.id, since, receiver, skipped);
});

test.run();
