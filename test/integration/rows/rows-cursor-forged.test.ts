import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { createColumns, insertRows, rowsPath } from '../../support/rows.ts';
import { createTable, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('rows API: forged cursors PostgreSQL cannot take are a 400, not a 500');

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

// Each was a 500: a number past a double's range overflowed numeric, and a NUL is no PostgreSQL text.
const FORGED: [string, string, object][] = [
  ['a number past the range of a double', 'score', { s: 'score', v: ['1e999999'], id: 'row_a' }],
  ['a NUL in a text value', 'name', { s: 'name', v: ['a\u0000b'], id: 'row_a' }],
  ['a NUL in the id', 'name', { s: 'name', v: ['a'], id: 'row_\u0000' }],
  ['a NUL in the id, no sort', '', { s: '', v: [], id: 'row_\u0000' }],
];

/** What a test compares: each case's status, code and the paths its problem names. */
const refusal = (what: string, body: { status: number; code: string; errors?: { path: string }[] }) => ({
  what,
  status: body.status,
  code: body.code,
  paths: (body.errors ?? []).map((e) => e.path),
});

/** A table with a number column to sort by and one row in it. */
async function scoredTable(t: TestApp, key: string): Promise<string> {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { name: 'text', score: 'number' });
  await insertRows(t.app, key, tableId, [{ name: 'a', score: 1 }]);
  return tableId;
}

const expected = (path: string) =>
  FORGED.map(([what]) => ({ what, status: 400, code: 'validation_failed', paths: [path] }));

test('GET .../rows: each forged cursor is a 400 validation problem naming querystring.cursor', async ({
  t,
  key,
}) => {
  const tableId = await scoredTable(t, key);
  const answers = [];
  for (const [what, sort, cursor] of FORGED) {
    const res = await call(t.app, 'GET', `${rowsPath(tableId)}?sort=${sort}&cursor=${cursorOf(cursor)}`, {
      headers: bearer(key),
    });
    answers.push(refusal(what, res.body));
  }
  assert.equal(answers, expected('querystring.cursor'));
});

test('POST .../rows/query: each forged cursor is a 400 validation problem naming cursor', async ({
  t,
  key,
}) => {
  const tableId = await scoredTable(t, key);
  const answers = [];
  for (const [what, sort, cursor] of FORGED) {
    const res = await call(t.app, 'POST', `${rowsPath(tableId)}/query`, {
      headers: bearer(key),
      body: { ...(sort ? { sort } : {}), cursor: cursorOf(cursor) },
    });
    answers.push(refusal(what, res.body));
  }
  assert.equal(answers, expected('cursor'));
});

test.run();
