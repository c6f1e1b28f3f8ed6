import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateColumnConfig } from '../../../processes/runs/providers/index.ts';
import { isSecretPlaceholder } from '../../../src/domain/columns/references.ts';

// `{{secrets.name}}` names a secret only with a name a secret can have: anything else would fail at
// every run, so it is a column reference and refused when no such column exists.
const ctx = {
  organizationId: 'o1',
  columns: [{ id: 'col_1', key: 'domain', dataType: 'url' }],
  tables: new Map(),
};
const http = (url: string) => ({ provider: 'http_request', url, method: 'GET' });

test('secret placeholders follow the secret name rule', () => {
  for (const name of ['secrets.API_KEY', 'secrets._x', `secrets.a${'b'.repeat(63)}`])
    assert.ok(isSecretPlaceholder(name), name);
  for (const name of [
    'secrets.has-dash',
    'secrets.1st',
    `secrets.a${'b'.repeat(64)}`,
    'secrets.',
    'secret.x',
  ]) {
    assert.not.ok(isSecretPlaceholder(name), name);
  }
  assert.ok(validateColumnConfig(http('https://x.test/{{domain}}?k={{secrets.API_KEY}}'), ctx).ok);
  const refused = validateColumnConfig(http('https://x.test/?k={{secrets.has-dash}}'), ctx);
  assert.equal(refused.ok ? [] : refused.errors.map((e) => e.path), ['config.url']);
});

test.run();
