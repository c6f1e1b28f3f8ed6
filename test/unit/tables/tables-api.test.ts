/**
 * API specs of the table commands that read no read model, on the in-memory store (conventions 17
 * and 21): given the streams, when a request, then the answer and the events it appended. The specs
 * that read a read model too (a GET right after, a list) run on PostgreSQL, in
 * test/integration/tables/.
 */
import * as assert from 'uvu/assert';
import { tableCommands } from '../../../commands/tables/index.ts';
import { bearer } from '../../support/accounts.ts';
import { thenAppended, whenRequest } from '../../support/api-spec.ts';
import { memoryAppSuite } from '../../support/memory-app.ts';

const test = memoryAppSuite('tables API specs in memory: create', tableCommands);

test('POST /api/tables refuses a missing or empty name and unknown keys (400), appending nothing', async ({
  t,
  key,
  keyId,
}) => {
  for (const body of [{}, { name: '  ' }, { name: 'x', extra: 1 }]) {
    const when = await whenRequest(t, 'POST', '/api/tables', { headers: bearer(key), body });
    assert.is(when.answer.status, 400, JSON.stringify(body));
    assert.is(when.answer.body.code, 'validation_failed');
    thenAppended(when, keyId, []);
  }
});

test.run();
