import * as assert from 'uvu/assert';
import { columnStream } from '../../../src/domain/columns/column-state.ts';
import { bearer, call } from '../../support/accounts.ts';
import { createColumn, createTable, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('columns under concurrency (real socket)');

test('50 concurrent PATCHes of one column, each changing something else, all land', async ({ t, key }) => {
  const tableId = await createTable(t.url, key);
  const col = await createColumn(t.url, key, tableId, {
    label: 'Summary',
    kind: 'enrichment',
    dataType: 'text',
    config: { provider: 'llm', mode: 'basic' },
  });
  const url = `/api/tables/${tableId}/columns/${col.id}`;
  const configKeys = Array.from({ length: 46 }, (_, i) => `k${i}`);
  const bodies: object[] = [
    { label: 'Renamed' },
    { position: 42.5 },
    { isImportant: true },
    { autoRun: 'onInsert' },
    ...configKeys.map((k, i) => ({ config: { [k]: i } })),
  ];
  assert.is(bodies.length, 50);
  const answers = await Promise.all(
    bodies.map((body) => call(t.url, 'PATCH', url, { headers: bearer(key), body })),
  );
  assert.equal(
    answers.map((a) => a.status),
    bodies.map(() => 200),
  );

  const final = (await call(t.url, 'GET', url, { headers: bearer(key) })).body;
  assert.is(final.label, 'Renamed');
  assert.is(final.position, 42.5);
  assert.is(final.isImportant, true);
  assert.is(final.autoRun, 'onInsert');
  assert.equal(final.config, {
    provider: 'llm',
    mode: 'basic',
    ...Object.fromEntries(configKeys.map((k, i) => [k, i])),
  });
  const history = (await call(t.url, 'GET', `${url}/history`, { headers: bearer(key) })).body.data;
  assert.is(history.length, 51);
  assert.equal(
    history.map((h: { revision: number }) => h.revision),
    Array.from({ length: 51 }, (_, i) => i),
  );
});

test('concurrent creates of one key in one table: exactly one wins, the others get 409', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.url, key);
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      call(t.url, 'POST', `/api/tables/${tableId}/columns`, {
        headers: bearer(key),
        body: { label: `Email ${i}`, key: 'email', kind: 'input', dataType: 'email' },
      }),
    ),
  );
  const statuses = answers.map((a) => a.status).sort();
  assert.equal(statuses, [201, ...Array(11).fill(409)]);
  const list = (await call(t.url, 'GET', `/api/tables/${tableId}/columns`, { headers: bearer(key) })).body;
  assert.is(list.length, 1);
});

test('concurrent creates of different keys all land', async ({ t, key }) => {
  const tableId = await createTable(t.url, key);
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      call(t.url, 'POST', `/api/tables/${tableId}/columns`, {
        headers: bearer(key),
        body: { label: `Field ${i}`, kind: 'input', dataType: 'text' },
      }),
    ),
  );
  assert.ok(answers.every((a) => a.status === 201));
  const list = (await call(t.url, 'GET', `/api/tables/${tableId}/columns`, { headers: bearer(key) })).body;
  assert.equal(new Set(list.map((c: { key: string }) => c.key)).size, 20);
});

test('a PATCH that loses the race on every retry answers 409 saying so; nothing changes', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.url, key);
  const col = await createColumn(t.url, key, tableId, {
    label: 'Contested',
    kind: 'input',
    dataType: 'text',
  });
  const url = `/api/tables/${tableId}/columns/${col.id}`;
  const before = await call(t.url, 'GET', url, { headers: bearer(key) });
  // Every append to this column's stream finds the stream's revision not as expected, as if another
  // writer always got there first: the streams row refuses each update that append_events makes.
  const stream = columnStream.name(tableId, col.id);
  await t.db.pool.query(`CREATE FUNCTION test_stream_always_moved() RETURNS trigger LANGUAGE plpgsql
    AS $$ BEGIN RETURN NULL; END $$`);
  await t.db.pool.query(
    `CREATE TRIGGER test_stream_always_moved BEFORE UPDATE ON streams FOR EACH ROW
     WHEN (OLD.stream_name = '${stream}') EXECUTE FUNCTION test_stream_always_moved()`,
  );
  try {
    const lost = await call(t.url, 'PATCH', url, { headers: bearer(key), body: { label: 'Mine' } });
    assert.is(lost.status, 409);
    assert.is(lost.body.code, 'conflict');
    assert.match(lost.body.detail, /too many concurrent changes/i);
    assert.match(lost.body.detail, /retry/i);

    // With If-Match the caller named a revision: not having it is still the precondition failing.
    const strict = await call(t.url, 'PATCH', url, {
      headers: { ...bearer(key), 'if-match': before.headers.etag! },
      body: { label: 'Mine' },
    });
    assert.is(strict.status, 412);
  } finally {
    await t.db.pool.query('DROP TRIGGER test_stream_always_moved ON streams');
    await t.db.pool.query('DROP FUNCTION test_stream_always_moved()');
  }
  const after = await call(t.url, 'GET', url, { headers: bearer(key) });
  assert.equal(after.body, before.body);
  assert.is(after.headers.etag, before.headers.etag);
});

test.run();
