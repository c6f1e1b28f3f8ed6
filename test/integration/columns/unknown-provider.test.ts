import * as assert from 'uvu/assert';
import { COLUMN_PROVIDERS } from '../../../processes/runs/providers/index.ts';
import { bearer, call } from '../../support/accounts.ts';
import { columnsPath, createColumn, createTable, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('columns API: a provider the registry does not know is refused (issue 33)');

// biome-ignore lint/suspicious/noExplicitAny: an answer's body is arbitrary JSON that tests pick apart
const refusedAtProvider = (res: { status: number; body: any }, misspelled: string) => {
  assert.is(res.status, 400, JSON.stringify(res.body));
  assert.is(res.body.code, 'validation_failed');
  assert.equal(
    res.body.errors.map((e: { path: string }) => e.path),
    ['config.provider'],
  );
  const message: string = res.body.errors[0].message;
  assert.ok(message.includes(misspelled), message);
  for (const { name } of COLUMN_PROVIDERS) assert.ok(message.includes(name), `${name} is listed: ${message}`);
};

test('create: an unknown provider is a 400 naming config.provider and listing the known ones; nothing is stored', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  const res = await call(t.app, 'POST', columnsPath(tableId), {
    headers: bearer(key),
    body: {
      label: 'Call',
      kind: 'enrichment',
      dataType: 'json',
      config: { provider: 'http_requests', url: 'https://api.example.com/', method: 'GET' },
    },
  });
  refusedAtProvider(res, 'http_requests');
  const list = await call(t.app, 'GET', columnsPath(tableId), { headers: bearer(key) });
  assert.equal(list.body.items ?? list.body, []);
});

test('patch: switching a column to an unknown provider is the same 400; the column keeps its config', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  const col = await createColumn(t.app, key, tableId, {
    label: 'Call',
    kind: 'enrichment',
    dataType: 'json',
    config: { provider: 'http_request', url: 'https://api.example.com/', method: 'GET' },
  });
  const url = `${columnsPath(tableId)}/${col.id}`;
  const res = await call(t.app, 'PATCH', url, {
    headers: bearer(key),
    body: { config: { provider: 'lead_finder' } },
  });
  refusedAtProvider(res, 'lead_finder');
  const after = await call(t.app, 'GET', url, { headers: bearer(key) });
  assert.is(after.body.config.provider, 'http_request');
});

test.run();
