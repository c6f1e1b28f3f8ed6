import * as assert from 'uvu/assert';
import { bearer, call, issueKey } from '../../support/accounts.ts';
import { callStep, createSequence, emailStep, sequenceAction } from '../../support/sequences.ts';
import { createTable, tablesSuite } from '../../support/tables.ts';

/*
 * The specs that read a read model (GET, list, a delete counting active enrollments). The status
 * machine and PATCH, which read only streams, are API specs in memory:
 * test/unit/sequences/sequences-api.test.ts.
 */
const test = tablesSuite('sequences API: create, list, get, edit, clone, delete, the status machine');

const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path).sort();

test('POST: 201 DRAFT with Location; a sourceTableId of no table of the organization is a 400 naming it', async ({
  t,
  key,
  otherKey,
}) => {
  const tableId = await createTable(t.app, key, 'Source');
  const res = await call(t.app, 'POST', '/api/sequences', {
    headers: bearer(key),
    body: { name: 'Intro', sourceTableId: tableId, steps: [emailStep, callStep] },
  });
  assert.is(res.status, 201, JSON.stringify(res.body));
  assert.is(res.headers.location, `/api/sequences/${res.body.id}`);
  assert.is(res.body.status, 'DRAFT');
  assert.equal(res.body.allowedActions, ['activate', 'archive', 'edit']);
  assert.is(res.body.sourceTableId, tableId);
  const got = await call(t.app, 'GET', res.headers.location!, { headers: bearer(key) });
  assert.equal(got.body, {
    ...res.body,
    stats: { enrolled: 0, active: 0, paused: 0, finished: 0, failed: 0 },
  });
  const otherTable = await createTable(t.app, otherKey, 'Theirs');
  for (const [body, path] of [
    [{ name: 'x', sourceTableId: otherTable, steps: [] }, 'sourceTableId'],
    [{ name: 'x', sourceTableId: 'tbl_nope', steps: [] }, 'sourceTableId'],
    [{ name: 'x', steps: [{ type: 'fax', waitDays: 1 }] }, 'steps[0].type'],
    [{ name: 'x', steps: [{ type: 'call', waitDays: -1 }] }, 'steps[0].waitDays'],
    [{ steps: [] }, 'name'],
  ] as const) {
    const bad = await call(t.app, 'POST', '/api/sequences', { headers: bearer(key), body });
    assert.is(bad.status, 400, JSON.stringify(body));
    assert.equal(paths(bad.body), [path], JSON.stringify(body));
  }
  assert.is((await call(t.app, 'GET', res.headers.location!, { headers: bearer(otherKey) })).status, 403);
});

test('clone: a DRAFT copy of the steps; list pages and filters by status; delete answers 204', async ({
  t,
  key,
  otherKey,
}) => {
  const id = await createSequence(t.app, key, { name: 'Original', steps: [emailStep, callStep] });
  await sequenceAction(t.app, key, id, 'activate');
  const clone = await call(t.app, 'POST', `/api/sequences/${id}/clone`, { headers: bearer(key) });
  assert.is(clone.status, 201);
  assert.is(clone.headers.location, `/api/sequences/${clone.body.id}`);
  assert.is(clone.body.status, 'DRAFT');
  assert.is(clone.body.clonedFrom, id);
  assert.equal(clone.body.steps, [emailStep, callStep]);
  const active = await call(t.app, 'GET', '/api/sequences?status=ACTIVE&limit=100', { headers: bearer(key) });
  assert.ok(active.body.data.every((s: { status: string }) => s.status === 'ACTIVE'));
  assert.ok(active.body.data.some((s: { id: string }) => s.id === id));
  assert.not.ok(active.body.data.some((s: { id: string }) => s.id === clone.body.id));
  assert.is((await call(t.app, 'GET', '/api/sequences?status=NOPE', { headers: bearer(key) })).status, 400);
  assert.equal((await call(t.app, 'GET', '/api/sequences', { headers: bearer(otherKey) })).body.data, []);
  assert.is(
    (await call(t.app, 'DELETE', `/api/sequences/${clone.body.id}`, { headers: bearer(otherKey) })).status,
    403,
  );
  assert.is(
    (await call(t.app, 'DELETE', `/api/sequences/${clone.body.id}`, { headers: bearer(key) })).status,
    204,
  );
  assert.is(
    (await call(t.app, 'GET', `/api/sequences/${clone.body.id}`, { headers: bearer(key) })).status,
    404,
  );
});

test('scopes: read lists, write defines, run changes status', async ({ t, key }) => {
  const id = await createSequence(t.app, key);
  const reader = (await issueKey(t.app, key, ['sequences:read'])).apiKey;
  const writer = (await issueKey(t.app, key, ['sequences:write'])).apiKey;
  const runner = (await issueKey(t.app, key, ['sequences:run'])).apiKey;
  assert.is((await call(t.app, 'GET', '/api/sequences', { headers: bearer(reader) })).status, 200);
  assert.is((await createSequence(t.app, writer).catch(() => 'refused')) === 'refused', false);
  assert.is((await sequenceAction(t.app, writer, id, 'activate')).status, 403);
  assert.is((await sequenceAction(t.app, runner, id, 'activate')).status, 200);
  assert.is(
    (await call(t.app, 'POST', '/api/sequences', { headers: bearer(runner), body: { name: 'x', steps: [] } }))
      .status,
    403,
  );
});

test.run();
