import * as assert from 'uvu/assert';
import { z } from 'zod';
import { buildApp } from '../../../src/http/app.ts';
import { bearer, call } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { createColumns, listAll, rowsPath } from '../../support/rows.ts';
import { createTable, tablesSuite } from '../../support/tables.ts';

/*
 * Idempotency-Key (src/http/idempotency.ts), through the POST routes of rows that use it: the kernel
 * piece every later POST route takes the same way.
 */
const test = tablesSuite('Idempotency-Key: the first answer replayed, another request refused');

const post = (target: Parameters<typeof call>[0], apiKey: string, path: string, body: object, key?: string) =>
  call(target, 'POST', path, {
    headers: { ...bearer(apiKey), ...(key ? { 'idempotency-key': key } : {}) },
    body,
  });

async function batchStreams(
  db: { pool: { query: (q: string, v: unknown[]) => Promise<{ rows: { n: number }[] }> } },
  tableId: string,
) {
  const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM streams WHERE stream_name LIKE $1`, [
    `rowbatch-${tableId}.%`,
  ]);
  return rows[0]!.n;
}

test('the same key and body: the first answer again (status, body, Location), nothing stored twice', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { name: 'text' });
  const body = { rows: [{ cells: { name: 'a' } }, { cells: { name: 'b' } }] };
  const first = await post(t.app, key, rowsPath(tableId), body, 'import-1');
  assert.is(first.status, 201);
  assert.is(first.headers['idempotent-replayed'], undefined);
  const again = await post(
    t.app,
    key,
    rowsPath(tableId),
    { rows: [{ cells: { name: 'a' } }, { cells: { name: 'b' } }] },
    'import-1',
  );
  assert.is(again.status, 201);
  assert.equal(again.body, first.body);
  assert.is(again.headers.location, first.headers.location);
  assert.is(again.headers['idempotent-replayed'], 'true');
  assert.is((await listAll(t.app, key, tableId)).length, 2);
  assert.is(await batchStreams(t.db, tableId), 1, 'one batch stream');
  // Without a key, the same body is a new request.
  assert.is((await post(t.app, key, rowsPath(tableId), body)).status, 201);
  assert.is((await listAll(t.app, key, tableId)).length, 4);
});

test('the same key with another body, method or path: 422 idempotency_key_reused, nothing stored', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { name: 'text' });
  await post(t.app, key, rowsPath(tableId), { rows: [{ cells: { name: 'a' } }] }, 'k-2');
  for (const [path, body] of [
    [rowsPath(tableId), { rows: [{ cells: { name: 'other' } }] }],
    [`${rowsPath(tableId)}/query`, { limit: 5 }],
  ] as const) {
    const res = await post(t.app, key, path, body, 'k-2');
    assert.is(res.status, 422, path);
    assert.is(res.body.code, 'idempotency_key_reused');
  }
  assert.equal(
    (await listAll(t.app, key, tableId)).map((r) => r.cells.name),
    ['a'],
  );
});

test('keys are per organization', async ({ t, key, otherKey }) => {
  const mine = await createTable(t.app, key);
  const theirs = await createTable(t.app, otherKey);
  await createColumns(t.app, key, mine, { name: 'text' });
  await createColumns(t.app, otherKey, theirs, { name: 'text' });
  assert.is(
    (await post(t.app, key, rowsPath(mine), { rows: [{ cells: { name: 'x' } }] }, 'shared')).status,
    201,
  );
  const other = await post(t.app, otherKey, rowsPath(theirs), { rows: [{ cells: { name: 'y' } }] }, 'shared');
  assert.is(other.status, 201);
  assert.is(other.headers['idempotent-replayed'], undefined);
});

test('a failed request releases its key: the corrected retry with it runs', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { score: 'number' });
  const bad = await post(t.app, key, rowsPath(tableId), { rows: [{ cells: { score: 'x' } }] }, 'k-4');
  assert.is(bad.status, 400);
  const good = await post(t.app, key, rowsPath(tableId), { rows: [{ cells: { score: 1 } }] }, 'k-4');
  assert.is(good.status, 201);
  assert.is(good.headers['idempotent-replayed'], undefined);
});

test('concurrent requests with one key: served once, every one gets that answer', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { name: 'text' });
  const body = { rows: Array.from({ length: 200 }, (_, i) => ({ cells: { name: `n${i}` } })) };
  const answers = await Promise.all(
    Array.from({ length: 6 }, () => post(t.url, key, rowsPath(tableId), body, 'k-5')),
  );
  assert.equal(
    answers.map((a) => a.status),
    Array(6).fill(201),
  );
  for (const a of answers) assert.equal(a.body, answers[0]!.body);
  assert.is(answers.filter((a) => a.headers['idempotent-replayed'] === undefined).length, 1);
  assert.is((await listAll(t.app, key, tableId)).length, 200);
});

test('a key older than 24 hours is free again; a bad key is a 400 naming the header', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { name: 'text' });
  await post(t.app, key, rowsPath(tableId), { rows: [{ cells: { name: 'old' } }] }, 'k-6');
  await t.db.pool.query(
    `UPDATE idempotency_keys SET created_at = now() - interval '23 hours' WHERE key = 'k-6'`,
  );
  const kept = await post(t.app, key, rowsPath(tableId), { rows: [{ cells: { name: 'new' } }] }, 'k-6');
  assert.is(kept.status, 422, 'still kept after 23 hours');
  await t.db.pool.query(
    `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'k-6'`,
  );
  const fresh = await post(t.app, key, rowsPath(tableId), { rows: [{ cells: { name: 'new' } }] }, 'k-6');
  assert.is(fresh.status, 201);
  for (const bad of ['x'.repeat(256), 'tab\there']) {
    const res = await post(t.app, key, rowsPath(tableId), { rows: [{ cells: { name: 'z' } }] }, bad);
    assert.is(res.status, 400);
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      ['headers.idempotency-key'],
    );
  }
});

test('bulk delete replays its count rather than deleting again', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { name: 'text' });
  const created = await post(t.app, key, rowsPath(tableId), {
    rows: [{ cells: { name: 'a' } }, { cells: { name: 'b' } }],
  });
  const rowIds = created.body.data.map((r: { id: string }) => r.id);
  const first = await post(t.app, key, `${rowsPath(tableId)}/delete`, { rowIds }, 'k-7');
  const again = await post(t.app, key, `${rowsPath(tableId)}/delete`, { rowIds }, 'k-7');
  assert.equal([first.body, again.body], [{ deleted: 2 }, { deleted: 2 }]);
  assert.is((await post(t.app, key, `${rowsPath(tableId)}/delete`, { rowIds })).body.deleted, 0);
});

test('a retry while the first request is still served waits, then 409 idempotency_key_in_use', async ({
  t,
  key,
}) => {
  // A route of its own whose handler waits for the test: the kernel piece as any POST route takes it.
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let served = 0;
  const app = await buildApp(t.deps, [
    (a) => {
      a.post(
        '/test/slow',
        {
          // Honoured as on every POST route (src/http/idempotency.ts), with a short wait for the test.
          config: { access: 'tables:write', idempotency: { waitMs: 300 } },
          schema: { body: z.object({ n: z.number() }) },
        },
        async (_request, reply) => {
          served++;
          await gate;
          return reply.code(201).header('location', '/test/slow/1').send({ served });
        },
      );
    },
  ]);
  try {
    const first = post(app, key, '/test/slow', { n: 1 }, 'k-8');
    // Once the first holds the key (a fixed pause let the retry claim it first on a busy machine, and
    // then the retry waited on the gate for ever).
    await eventually('the first request to be served', () => served === 1);
    const busy = await post(app, key, '/test/slow', { n: 1 }, 'k-8');
    assert.is(busy.status, 409);
    assert.is(busy.body.code, 'idempotency_key_in_use');
    release();
    assert.equal((await first).body, { served: 1 });
    const replay = await post(app, key, '/test/slow', { n: 1 }, 'k-8');
    assert.equal([replay.status, replay.body, replay.headers.location], [201, { served: 1 }, '/test/slow/1']);
    assert.is(served, 1);
  } finally {
    release();
    await app.close();
  }
});

test.run();
