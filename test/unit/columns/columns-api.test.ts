/**
 * API specs of PATCH column, which reads only streams (its table's, its own, those its config names),
 * on the in-memory store (conventions 17 and 21): given a table's streams, when a request, then the
 * answer and the events it appended. The specs that read a read model too (a GET right after, a
 * create at the next position) run on PostgreSQL, in test/integration/columns/.
 */
import * as assert from 'uvu/assert';
import { columnCommands } from '../../../commands/columns/index.ts';
import { bearer, call } from '../../support/accounts.ts';
import { givenStreams, thenAppended, whenRequest } from '../../support/api-spec.ts';
import { tableWithColumns } from '../../support/column-events.ts';
import { memoryAppSuite } from '../../support/memory-app.ts';
import { columnsPath, leaf } from '../../support/tables.ts';

const test = memoryAppSuite('columns API specs in memory: PATCH', columnCommands);

test('PATCH: 400 for an empty body, unknown keys or wrong types, appending nothing', async ({
  t,
  key,
  keyId,
  organizationId,
}) => {
  const { tableId, columnIds, streams } = tableWithColumns(organizationId, [{ key: 'a', label: 'A' }]);
  await givenStreams(t, streams);
  const url = `${columnsPath(tableId)}/${columnIds[0]}`;
  for (const body of [
    {},
    { key: 'b' },
    { label: 'x', dataType: 'json' },
    { position: 'top' },
    { config: 3 },
  ]) {
    const when = await whenRequest(t, 'PATCH', url, { headers: bearer(key), body });
    assert.is(when.answer.status, 400, JSON.stringify(body));
    assert.is(when.answer.body.code, 'validation_failed');
    assert.ok(when.answer.body.errors.length > 0);
    thenAppended(when, keyId, []);
  }
});

test('PATCH: run condition errors name each offending path', async ({ t, key, organizationId }) => {
  const { tableId, columnIds, streams } = tableWithColumns(organizationId, [
    { key: 'score', label: 'Score', dataType: 'number' },
    { key: 'b', label: 'B', kind: 'enrichment' },
  ]);
  await givenStreams(t, streams);
  const url = `${columnsPath(tableId)}/${columnIds[1]}`;
  const send = (runCondition: unknown) =>
    call(t.app, 'PATCH', url, { headers: bearer(key), body: { config: { runCondition } } });

  const between = await send({
    type: 'any',
    children: [leaf('score', 'isNotEmpty'), leaf('score', 'between', { value: 1 })],
  });
  assert.is(between.status, 400);
  assert.ok(
    between.body.errors.some((e: { path: string }) => e.path === 'config.runCondition.children[1].value2'),
  );

  const unknownColumn = await send({ type: 'all', children: [leaf('nope', 'isEmpty')] });
  assert.is(unknownColumn.status, 400);
  assert.equal(
    unknownColumn.body.errors.map((e: { path: string }) => e.path),
    ['config.runCondition.children[0].columnKey'],
  );

  const deep = (n: number): unknown =>
    n === 1 ? leaf('score', 'isEmpty') : { type: 'not', children: [deep(n - 1)] };
  assert.is((await send(deep(20))).status, 200);
  const tooDeep = await send(deep(21));
  assert.is(tooDeep.status, 400);
  assert.is(tooDeep.body.errors[0].path, 'config.runCondition');
  const wide = (n: number) => ({
    type: 'any',
    children: Array.from({ length: n }, () => leaf('score', 'isEmpty')),
  });
  assert.is((await send(wide(499))).status, 200);
  assert.is((await send(wide(500))).status, 400);
  // Built as text: nesting this deep is beyond what JSON.stringify takes, but not beyond a client.
  const nested = '{"type":"not","children":['.repeat(10_000) + '{}' + ']}'.repeat(10_000);
  const hostile = await t.app.inject({
    method: 'PATCH',
    url,
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: `{"config":{"runCondition":${nested}}}`,
  });
  assert.is(hostile.statusCode, 400);
  // Refused at the edge (nesting past 64 levels), at the path where the limit was crossed.
  assert.match(hostile.json().errors[0].path, /^config\.runCondition\.children\[0\]/);
});

test('a column reading its own output is no cycle (its own writes never retrigger it)', async ({
  t,
  key,
  organizationId,
}) => {
  // Issue 15, item 5 (test/integration/columns/retrigger-cycle.test.ts has the cycles refused).
  const { tableId, columnIds, streams } = tableWithColumns(organizationId, [
    { key: 'name', label: 'Name' },
    {
      key: 's',
      label: 'S',
      kind: 'enrichment',
      autoRun: 'onSourceUpdate',
      // As the create stores it: validated, with the provider's defaults.
      config: {
        provider: 'http_request',
        method: 'GET',
        url: 'https://example.com/{{name}}',
        timeoutSeconds: 30,
      },
    },
  ]);
  await givenStreams(t, streams);
  const patched = await call(t.app, 'PATCH', `${columnsPath(tableId)}/${columnIds[1]}`, {
    headers: bearer(key),
    body: { config: { provider: 'http_request', method: 'GET', url: 'https://example.com/lookup?q={{s}}' } },
  });
  assert.is(patched.status, 200, JSON.stringify(patched.body));
});

test.run();
