import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { columnsPath, createColumn, createTable, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('columns: concurrent creates without a position (real socket)');

test('five parallel creates in one table get five distinct positions, each after the columns before', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.url, key);
  await createColumn(t.url, key, tableId, { label: 'First', kind: 'input', dataType: 'text' });
  const answers = await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      call(t.url, 'POST', columnsPath(tableId), {
        headers: bearer(key),
        body: { label: `Field ${i}`, kind: 'input', dataType: 'text' },
      }),
    ),
  );
  assert.equal(
    answers.map((a) => a.status),
    [201, 201, 201, 201, 201],
  );
  const positions = answers.map((a) => a.body.position as number).sort((a, b) => a - b);
  assert.equal(positions, [2, 3, 4, 5, 6]);
  const listed = (await call(t.url, 'GET', columnsPath(tableId), { headers: bearer(key) })).body;
  assert.equal(
    listed.map((c: { position: number }) => c.position),
    [1, 2, 3, 4, 5, 6],
  );
});

test('a position given is taken as it is, next to creates that take the next one', async ({ t, key }) => {
  const tableId = await createTable(t.url, key);
  const answers = await Promise.all([
    call(t.url, 'POST', columnsPath(tableId), {
      headers: bearer(key),
      body: { label: 'Pinned', kind: 'input', dataType: 'text', position: 10.5 },
    }),
    call(t.url, 'POST', columnsPath(tableId), {
      headers: bearer(key),
      body: { label: 'Pinned too', kind: 'input', dataType: 'text', position: 10.5 },
    }),
  ]);
  assert.equal(
    answers.map((a) => a.body.position),
    [10.5, 10.5],
  );
  const next = await createColumn(t.url, key, tableId, { label: 'Next', kind: 'input', dataType: 'text' });
  assert.is(next.position, 11.5);
});

test.run();
