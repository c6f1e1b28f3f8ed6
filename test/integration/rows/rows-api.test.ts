import * as assert from 'uvu/assert';
import { batchOf } from '../../../src/domain/rows/ids.ts';
import { rowBatchStream, rowStream } from '../../../src/domain/rows/row-state.ts';
import { bearer, call } from '../../support/accounts.ts';
import { createColumns, insertRows, listAll, rowPath, rowsPath } from '../../support/rows.ts';
import { createTable, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('rows API: insert, read, patch, delete');

const LEADS = {
  name: 'text',
  score: 'number',
  active: 'boolean',
  seen: 'date',
  site: 'url',
  mail: 'email',
  extra: 'json',
  summary: { dataType: 'text', kind: 'enrichment' },
};

test('insert: 201 in the order sent, Location, values normalised, statuses of non-input cells', async ({
  t,
  key,
  keyId,
}) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, LEADS);
  const res = await call(t.app, 'POST', rowsPath(tableId), {
    headers: bearer(key),
    body: {
      rows: [
        {
          cells: {
            name: 'Ada',
            score: 4.5,
            active: true,
            seen: '2024-03-01T10:00:00+02:00',
            site: 'https://ada.example',
            mail: 'ada@example.com',
            extra: { company: { domains: ['ada.example'] } },
            summary: 'written directly',
          },
        },
        { cells: { name: 'Bob', seen: '2024-03-02', score: null } },
        { cells: {} },
      ],
    },
  });
  assert.is(res.status, 201, JSON.stringify(res.body));
  const [ada, bob, empty] = res.body.data;
  assert.is(res.headers.location, rowPath(tableId, ada.id));
  assert.match(ada.id, /^row_[0-9a-z]{28}$/);
  assert.ok(ada.id < bob.id && bob.id < empty.id, 'ids sort in the order sent');
  assert.is(ada.cells.seen, '2024-03-01T08:00:00.000Z');
  assert.is(bob.cells.seen, '2024-03-02T00:00:00.000Z');
  assert.equal(ada.cells.extra, { company: { domains: ['ada.example'] } });
  assert.not.ok('score' in bob.cells, 'null on insert leaves the cell out');
  assert.equal(ada.cellStatus, { summary: { status: 'done', updatedAt: ada.createdAt } });
  assert.equal(bob.cellStatus, { summary: { status: 'empty', updatedAt: bob.createdAt } });
  assert.equal(Object.keys(empty.cells), []);

  const listed = await listAll(t.app, key, tableId);
  assert.equal(listed, res.body.data, 'a GET right after shows the rows as answered, oldest first');
  const one = await call(t.app, 'GET', rowPath(tableId, ada.id), { headers: bearer(key) });
  assert.equal(one.body, ada);
  assert.is(one.headers.etag, '"0"');

  // One event for the batch, in a stream of its own; the rows' own streams are empty until they change.
  const { batchId } = batchOf(ada.id);
  const events = await t.deps.store.readStream(rowBatchStream.name(tableId, batchId));
  assert.equal(
    events.map((e) => e.type),
    ['RowsInserted'],
  );
  const [event] = events as [(typeof events)[number]];
  const inserted = (event.data as { rows: { rowId: string; cells: object }[] }).rows;
  assert.equal(
    inserted.map((r) => r.rowId),
    [ada.id, bob.id, empty.id],
  );
  assert.equal(Object.keys(inserted[0]!.cells).length, 8);
  assert.equal(await t.deps.store.readStream(rowStream.name(tableId, ada.id)), []);
  assert.is(event.metadata.actor, keyId);
  assert.is(event.metadata.correlationId, res.headers['x-request-id']);
});

test('insert: a bad batch is refused whole, every offending path named, nothing stored', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, LEADS);
  const res = await call(t.app, 'POST', rowsPath(tableId), {
    headers: bearer(key),
    body: {
      rows: [
        { cells: { name: 'fine' } },
        { cells: { name: 3, score: '12', active: 'yes', seen: '2024-13-01', nope: 1 } },
        { cells: { site: 'ftp://x.example', mail: 'not-an-email', extra: 'x'.repeat(300 * 1024) } },
        { cells: { name: 'x'.repeat(100_001), site: '/relative' } },
      ],
    },
  });
  assert.is(res.status, 400);
  assert.is(res.body.code, 'validation_failed');
  const byPath = Object.fromEntries(
    res.body.errors.map((e: { path: string; message: string }) => [e.path, e.message]),
  );
  assert.equal(Object.keys(byPath).sort(), [
    'rows[1].cells.active',
    'rows[1].cells.name',
    'rows[1].cells.nope',
    'rows[1].cells.score',
    'rows[1].cells.seen',
    'rows[2].cells.extra',
    'rows[2].cells.mail',
    'rows[2].cells.site',
    'rows[3].cells.name',
    'rows[3].cells.site',
  ]);
  assert.is(byPath['rows[1].cells.score'], 'expected a number');
  assert.is(byPath['rows[1].cells.nope'], 'unknown column');
  assert.equal(await listAll(t.app, key, tableId), []);
  const { rows } = await t.db.pool.query(
    `SELECT count(*)::int AS n FROM streams WHERE stream_name LIKE $1 OR stream_name LIKE $2`,
    [`row-${tableId}.%`, `rowbatch-${tableId}.%`],
  );
  assert.is(rows[0].n, 0, 'no row or batch stream was written');

  for (const rows of [[], Array.from({ length: 1001 }, () => ({ cells: {} }))]) {
    const sized = await call(t.app, 'POST', rowsPath(tableId), { headers: bearer(key), body: { rows } });
    assert.is(sized.status, 400);
    assert.equal(
      sized.body.errors.map((e: { path: string }) => e.path),
      ['rows'],
    );
  }
});

test('PATCH: only the cells sent, null clears, ETag and If-Match (412 when stale)', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, LEADS);
  const [row] = await insertRows(t.app, key, tableId, [{ name: 'Ada', score: 1, summary: 'x' }]);
  const url = rowPath(tableId, row.id);
  const patched = await call(t.app, 'PATCH', url, {
    headers: { ...bearer(key), 'if-match': '"0"' },
    body: { cells: { score: 2, summary: null, active: false } },
  });
  assert.is(patched.status, 200, JSON.stringify(patched.body));
  assert.equal(patched.body.cells, { name: 'Ada', score: 2, active: false });
  assert.is(patched.body.cellStatus.summary.status, 'empty');
  assert.is(patched.headers.etag, '"1"');
  const got = await call(t.app, 'GET', url, { headers: bearer(key) });
  assert.equal(got.body, patched.body);
  assert.is(got.headers.etag, '"1"');

  const stale = await call(t.app, 'PATCH', url, {
    headers: { ...bearer(key), 'if-match': '"0"' },
    body: { cells: { score: 3 } },
  });
  assert.is(stale.status, 412);
  assert.is(stale.body.code, 'precondition_failed');
  assert.is((await call(t.app, 'GET', url, { headers: bearer(key) })).body.cells.score, 2);

  const same = await call(t.app, 'PATCH', url, { headers: bearer(key), body: { cells: { score: 2 } } });
  assert.is(same.headers.etag, '"1"', 'a PATCH that changes nothing appends nothing');

  for (const body of [{ cells: {} }, { cells: { score: 'high' } }, { cells: { nope: 1 } }, { score: 1 }]) {
    const bad = await call(t.app, 'PATCH', url, { headers: bearer(key), body });
    assert.is(bad.status, 400, JSON.stringify(body));
    assert.ok(bad.body.errors.length > 0);
  }
});

test('concurrent PATCHes of different cells of one row all land', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  const keys = Array.from({ length: 12 }, (_, i) => `c${i}`);
  await createColumns(t.app, key, tableId, Object.fromEntries(keys.map((k) => [k, 'number'])));
  const [row] = await insertRows(t.app, key, tableId, [{}]);
  const answers = await Promise.all(
    keys.map((k, i) =>
      call(t.url, 'PATCH', rowPath(tableId, row.id), { headers: bearer(key), body: { cells: { [k]: i } } }),
    ),
  );
  assert.equal(
    answers.map((a) => a.status),
    keys.map(() => 200),
  );
  const got = await call(t.app, 'GET', rowPath(tableId, row.id), { headers: bearer(key) });
  assert.equal(got.body.cells, Object.fromEntries(keys.map((k, i) => [k, i])));
  assert.is(got.headers.etag, `"${keys.length}"`);
});

test('DELETE a row (204, then 404), bulk delete counts the rows it deleted', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { name: 'text' });
  const rows = await insertRows(t.app, key, tableId, [
    { name: 'a' },
    { name: 'b' },
    { name: 'c' },
    { name: 'd' },
  ]);
  const url = rowPath(tableId, rows[0].id);
  assert.is((await call(t.app, 'DELETE', url, { headers: bearer(key) })).status, 204);
  for (const method of ['GET', 'DELETE', 'PATCH'] as const) {
    const body = method === 'PATCH' ? { cells: { name: 'x' } } : undefined;
    assert.is((await call(t.app, method, url, { headers: bearer(key), body })).status, 404, method);
  }
  const bulk = await call(t.app, 'POST', `${rowsPath(tableId)}/delete`, {
    headers: bearer(key),
    body: { rowIds: [rows[0].id, rows[1].id, rows[2].id, rows[2].id, 'row_nope'] },
  });
  assert.is(bulk.status, 200, JSON.stringify(bulk.body));
  assert.equal(bulk.body, { deleted: 2 });
  assert.equal(
    (await listAll(t.app, key, tableId)).map((r) => r.cells.name),
    ['d'],
  );
  const empty = await call(t.app, 'POST', `${rowsPath(tableId)}/delete`, {
    headers: bearer(key),
    body: { rowIds: [] },
  });
  assert.is(empty.status, 400);
});

test("a deleted column's cells disappear from every read; a new column taking its key starts empty", async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  const { score } = await createColumns(t.app, key, tableId, { name: 'text', score: 'number' });
  const [row] = await insertRows(t.app, key, tableId, [{ name: 'a', score: 5 }]);
  const removed = await call(t.app, 'DELETE', `/api/tables/${tableId}/columns/${score.id}`, {
    headers: bearer(key),
  });
  assert.is(removed.status, 204);
  const got = await call(t.app, 'GET', rowPath(tableId, row.id), { headers: bearer(key) });
  assert.equal(got.body.cells, { name: 'a' });
  assert.equal((await listAll(t.app, key, tableId))[0].cells, { name: 'a' });
  const sorted = await call(t.app, 'GET', `${rowsPath(tableId)}?sort=score`, { headers: bearer(key) });
  assert.is(sorted.status, 400, 'the deleted key sorts nothing');
  await createColumns(t.app, key, tableId, { score: 'text' });
  assert.equal((await listAll(t.app, key, tableId))[0].cells, { name: 'a' });
});

test.run();
