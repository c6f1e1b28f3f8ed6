import * as assert from 'uvu/assert';
import { subscriptionStream } from '../../../src/domain/webhooks/subscription-state.ts';
import { bearer, call } from '../../support/accounts.ts';
import { subscribe, webhooksSuite } from '../../support/webhooks.ts';

const test = webhooksSuite('webhooks API: subscriptions, secrets, catalogue');

test('create answers 201 with Location and the secret once (no-store); GET, list and PATCH never show it', async (ctx) => {
  const { t, key } = ctx;
  const res = await call(t.app, 'POST', '/api/webhooks', {
    headers: bearer(key),
    body: { url: ctx.receiver.url, eventTypes: ['row.created', 'row.created', 'table.created'] },
  });
  assert.is(res.status, 201, JSON.stringify(res.body));
  assert.is(res.headers.location, `/api/webhooks/${res.body.id}`);
  assert.is(res.headers['cache-control'], 'no-store');
  assert.match(res.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal(res.body.eventTypes, ['row.created', 'table.created']);
  assert.is(res.body.status, 'active');
  assert.equal(res.body.health, { consecutiveFailures: 0, failingSince: null, lastSuccessAt: null });
  const secret = res.body.secret;
  const got = await call(t.app, 'GET', res.headers.location!, { headers: bearer(key) });
  assert.is(got.status, 200);
  const { secret: _shown, ...withoutSecret } = res.body;
  assert.equal(got.body, withoutSecret);
  const patched = await call(t.app, 'PATCH', res.headers.location!, {
    headers: bearer(key),
    body: { enabled: false, description: 'paused for now' },
  });
  assert.is(patched.status, 200);
  assert.is(patched.body.status, 'paused');
  assert.is(patched.body.description, 'paused for now');
  const list = await call(t.app, 'GET', '/api/webhooks?limit=1', { headers: bearer(key) });
  assert.is(list.status, 200);
  assert.ok(list.body.data.length === 1);
  for (const answer of [got, patched, list])
    assert.not.ok(JSON.stringify(answer.body).includes(secret.slice(6)));
  // The log has the sealed secret only.
  const events = await t.deps.store.readStream(
    subscriptionStream.name(ctx.account.organizationId, res.body.id),
  );
  assert.not.ok(JSON.stringify(events.map((e) => e.data)).includes(secret.slice(6)));
  assert.not.ok(ctx.lines.join('').includes(secret.slice(6)), 'the secret is never logged');
});

test('lists page through every subscription once', async (ctx) => {
  const { t } = ctx;
  const key = ctx.other.apiKey;
  const made = [];
  for (let i = 0; i < 5; i++)
    made.push((await subscribe(t.app, key, { url: ctx.receiver.url, eventTypes: ['*'] })).id);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { status: number; body: { data: { id: string }[]; nextCursor: string | null } } = await call(
      t.app,
      'GET',
      `/api/webhooks?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      { headers: bearer(key) },
    );
    assert.is(page.status, 200);
    seen.push(...page.body.data.map((s) => s.id));
    cursor = page.body.nextCursor;
  } while (cursor);
  assert.equal(seen, made);
  for (const id of made) {
    assert.is((await call(t.app, 'DELETE', `/api/webhooks/${id}`, { headers: bearer(key) })).status, 204);
  }
  const after = await call(t.app, 'GET', '/api/webhooks', { headers: bearer(key) });
  assert.equal(after.body.data, []);
});

test("another organization's subscription is not found; bad input is a 400 naming the field", async (ctx) => {
  const { t, key } = ctx;
  const sub = await subscribe(t.app, key, { url: ctx.receiver.url, eventTypes: ['*'] });
  const otherKey = bearer(ctx.other.apiKey);
  for (const [method, path] of [
    ['GET', `/api/webhooks/${sub.id}`],
    ['DELETE', `/api/webhooks/${sub.id}`],
    ['POST', `/api/webhooks/${sub.id}/rotate-secret`],
    ['GET', `/api/webhooks/${sub.id}/deliveries`],
  ] as const) {
    const res = await call(t.app, method, path, { headers: otherKey });
    assert.is(res.status, 404, `${method} ${path}`);
  }
  const bad = [
    [{ url: 'ftp://example.com/x', eventTypes: ['*'] }, '"url"'],
    [{ url: 'https://user:pw@example.com/x', eventTypes: ['*'] }, '"url"'],
    [{ url: ctx.receiver.url, eventTypes: ['row.exploded'] }, '"eventTypes[0]"'],
    [{ url: ctx.receiver.url, eventTypes: [] }, '"eventTypes"'],
    [{ url: ctx.receiver.url, eventTypes: ['*'], secret: 'mine' }, 'secret'],
  ] as const;
  for (const [body, path] of bad) {
    const res = await call(t.app, 'POST', '/api/webhooks', { headers: bearer(key), body });
    assert.is(res.status, 400, JSON.stringify(body));
    assert.ok(JSON.stringify(res.body.errors).includes(path), `${path}: ${JSON.stringify(res.body.errors)}`);
  }
  const empty = await call(t.app, 'PATCH', `/api/webhooks/${sub.id}`, { headers: bearer(key), body: {} });
  assert.is(empty.status, 400);
});

test('the catalogue lists every type with the JSON Schema of its data', async (ctx) => {
  const res = await call(ctx.t.app, 'GET', '/api/webhooks/event-types', { headers: bearer(ctx.key) });
  assert.is(res.status, 200);
  const rowCreated = res.body.data.find((e: { type: string }) => e.type === 'row.created');
  assert.is(rowCreated.schema.type, 'object');
  assert.ok(rowCreated.schema.properties.rowId);
  assert.ok(rowCreated.schema.required.includes('cells'));
});

test('rotating answers a new secret (no-store); the old one is not shown again', async (ctx) => {
  const { t, key } = ctx;
  const sub = await subscribe(t.app, key, { url: ctx.receiver.url, eventTypes: ['*'] });
  const res = await call(t.app, 'POST', `/api/webhooks/${sub.id}/rotate-secret`, { headers: bearer(key) });
  assert.is(res.status, 200);
  assert.is(res.headers['cache-control'], 'no-store');
  assert.match(res.body.secret, /^whsec_/);
  assert.is.not(res.body.secret, sub.secret);
});

test.run();
