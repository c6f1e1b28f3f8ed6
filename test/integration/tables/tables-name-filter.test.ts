import * as assert from 'uvu/assert';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { createTable, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('tables API: the name filter folds case for all of Unicode');

test('GET /api/tables?name= matches Ünïcødé as ünï and as CØD, as row conditions fold case', async ({
  t,
}) => {
  const { apiKey } = await bootstrapAccount(t.app);
  for (const name of ['Ünïcødé', 'ΣΟΦΙΑ', 'Plain', 'back\\slash']) await createTable(t.app, apiKey, name);
  const names = async (filter: string) =>
    (
      await call(t.app, 'GET', `/api/tables?name=${encodeURIComponent(filter)}`, { headers: bearer(apiKey) })
    ).body.data.map((row: { name: string }) => row.name);
  assert.equal(await names('ünï'), ['Ünïcødé']);
  assert.equal(await names('CØD'), ['Ünïcødé']);
  assert.equal(await names('σοφ'), ['ΣΟΦΙΑ']);
  assert.equal(await names('PLAIN'), ['Plain']);
  // `\` is a character to look for, as `%` and `_` are, not an escape.
  assert.equal(await names('K\\S'), ['back\\slash']);
  assert.equal(await names('\\'), ['back\\slash']);
  assert.equal(await names('ü n'), []);
});

test.run();
