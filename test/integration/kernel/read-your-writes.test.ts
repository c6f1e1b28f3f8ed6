import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import { SCOPES } from '../../../src/auth/scopes.ts';
import { apiKeyStream } from '../../../src/domain/accounts/streams.ts';
import { columnStream } from '../../../src/domain/columns/column-state.ts';
import { tableStream } from '../../../src/domain/tables/table-state.ts';
import type { RecordedEvent } from '../../../src/event-store/port.ts';
import { bearer, bootstrapAccount, call, issueKey } from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { columnCreated } from '../../support/column-events.ts';
import { eventually } from '../../support/eventually.ts';
import { columnsPath, createTable } from '../../support/tables.ts';
import { poisonedBy } from '../../support/test-projections.ts';

/*
 * A command whose write has committed answers with what it wrote even when the read models it waits
 * for are behind: here the api_keys, tables and columns projections have stopped at a poison event,
 * so nothing after it reaches their tables. Before, such a request waited out the read-your-writes
 * bound and answered 500: a create that landed, reported as failed (and a key's secret lost).
 */

const LAGGING = ['api_keys', 'tables', 'columns'];
const isPoison = (event: RecordedEvent) => event.stream.includes('poisoned');

interface Ctx {
  t: TestApp;
  key: string;
  organizationId: string;
  tableId: string;
  /** A key issued before the read models stopped: it authenticates, and the test revokes it. */
  spare: { apiKey: string; keyId: string };
}

const test = suite<Ctx>('read-your-writes: a committed write answers while its read models are behind');

test.before(async (ctx) => {
  ctx.t = await startTestApp({
    projections: service.projections.map((p) => (LAGGING.includes(p.name) ? poisonedBy(p, isPoison) : p)),
    routes: service.routes,
    authenticator: createAuthenticator,
  });
  const account = await bootstrapAccount(ctx.t.app);
  ctx.key = account.apiKey;
  ctx.organizationId = account.organizationId;
  ctx.tableId = await createTable(ctx.t.app, ctx.key, 'Before');
  ctx.spare = await issueKey(ctx.t.app, ctx.key, ['tables:read'], 'spare');

  const { store } = ctx.t.deps;
  const at = new Date().toISOString();
  await store.append(tableStream.name('tbl_poisoned'), [
    {
      type: 'TableCreated',
      data: { tableId: 'tbl_poisoned', organizationId: ctx.organizationId, name: 'poison', at },
    },
  ]);
  await store.append(columnStream.name(ctx.tableId, 'col_poisoned'), [
    columnCreated(ctx.tableId, 'col_poisoned', { key: 'poison', label: 'poison', position: 99 }),
  ]);
  await store.append(apiKeyStream.name('poisoned'), [
    {
      type: 'ApiKeyIssued',
      data: {
        keyId: 'poisoned',
        organizationId: ctx.organizationId,
        userId: account.userId,
        name: 'poison',
        prefix: 'stk_poisoned',
        scopes: [],
        secretHash: '0'.repeat(64),
      },
    },
  ]);
  const failed = () => new Set(ctx.t.deps.projections.failedHere());
  await eventually('the read models to stop at the poison events', () =>
    LAGGING.every((name) => failed().has(name)),
  );
});

test.after(async (ctx) => {
  await ctx.t.close();
});

test('POST /api/tables answers 201 with the new table', async ({ t, key }) => {
  const res = await call(t.app, 'POST', '/api/tables', { headers: bearer(key), body: { name: 'Behind' } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  assert.match(res.body.id, /^tbl_[0-9a-z]{20}$/);
  assert.is(res.body.name, 'Behind');
  assert.is(res.body.createdAt, res.body.updatedAt);
  const [created] = await t.deps.store.readStream(tableStream.name(res.body.id));
  assert.is(created?.type, 'TableCreated');
  // The read model is behind indeed: the table is not readable yet.
  const got = await call(t.app, 'GET', `/api/tables/${res.body.id}`, { headers: bearer(key) });
  assert.is(got.status, 404);
});

test('POST .../columns answers 201 with the new column and its ETag', async ({ t, key, tableId }) => {
  const res = await call(t.app, 'POST', columnsPath(tableId), {
    headers: bearer(key),
    body: { label: 'Company', kind: 'input', dataType: 'text' },
  });
  assert.is(res.status, 201, JSON.stringify(res.body));
  assert.match(res.body.id, /^col_/);
  assert.is(res.body.key, 'company');
  assert.is(res.body.label, 'Company');
  assert.is(res.headers.etag, '"0"');
  const [created] = await t.deps.store.readStream(columnStream.name(tableId, res.body.id));
  assert.is(created?.type, 'ColumnCreated');
  const got = await call(t.app, 'GET', `${columnsPath(tableId)}/${res.body.id}`, { headers: bearer(key) });
  assert.is(got.status, 404);
});

test('POST /api/keys answers 201 with the key, shown once, and its metadata', async ({ t, key }) => {
  const res = await call(t.app, 'POST', '/api/keys', {
    headers: bearer(key),
    body: { name: 'behind', scopes: ['tables:read', 'tables:write'] },
  });
  assert.is(res.status, 201, JSON.stringify(res.body));
  const meta = res.body.keyMetadata;
  assert.ok(res.body.apiKey.startsWith(`stk_${meta.id}.`), res.body.apiKey);
  assert.is(meta.name, 'behind');
  assert.equal(meta.scopes, ['tables:read', 'tables:write']);
  assert.ok(res.body.apiKey.startsWith(meta.prefix), meta.prefix);
  const [issued] = await t.deps.store.readStream(apiKeyStream.name(meta.id));
  assert.is(meta.createdAt, issued?.recordedAt.toISOString());
  const listed = await call(t.app, 'GET', '/api/keys', { headers: bearer(key) });
  assert.is(listed.status, 200);
  assert.not.ok(
    listed.body.keys.some((k: { id: string }) => k.id === meta.id),
    'listed already',
  );
});

test('POST /api/auth/agent-bootstrap answers 201 with the whole account', async ({ t }) => {
  const account = await bootstrapAccount(t.app, { organization_name: 'Lagging', last_name: 'Behind' });
  const body = account.body;
  assert.is(body.userData.email, account.email);
  assert.is(body.userData.firstName, 'Test');
  assert.is(body.userData.lastName, 'Behind');
  assert.equal(body.credits.organization, { id: account.organizationId, name: 'Lagging', balance: 50 });
  assert.equal(body.credits.user, { id: account.userId, creditsUsed: 0 });
  assert.equal(body.keyMetadata.scopes, [...SCOPES]);
  assert.ok(body.apiKey.startsWith(`stk_${body.keyMetadata.id}.`));
});

test('DELETE /api/keys/{id} answers 202 while the revocation is not in force yet', async (ctx) => {
  const { t, key, spare } = ctx;
  const res = await call(t.app, 'DELETE', `/api/keys/${spare.keyId}`, { headers: bearer(key) });
  assert.is(res.status, 202);
  const events = await t.deps.store.readStream(apiKeyStream.name(spare.keyId));
  assert.equal(
    events.map((e) => e.type),
    ['ApiKeyIssued', 'ApiKeyRevoked'],
  );
  // The 202 is the truth: the key still works until the read model shows the revocation.
  const me = await call(t.app, 'GET', '/api/me', { headers: bearer(spare.apiKey) });
  assert.is(me.status, 200);
  const again = await call(t.app, 'DELETE', `/api/keys/${spare.keyId}`, { headers: bearer(key) });
  assert.is(again.status, 202);
});

test.run();
