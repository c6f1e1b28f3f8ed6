import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { createPrompt } from '../../support/prompts.ts';
import { tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('prompts API: forged list cursors are a 400, not a 500');

const cursorOf = (parts: string[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');

test('GET /api/prompts with a cursor whose time PostgreSQL cannot take: 400 naming querystring.cursor', async ({
  t,
  key,
}) => {
  await createPrompt(t.app, key, { name: 'Intro', template: 'Hi {{who}}' });
  // Date.parse took each of these; PostgreSQL refused them, and the refusal was a 500.
  const times = [
    '1',
    '2024-02-30',
    '+275760-09-13T00:00:00Z',
    '2024-02-30T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '2024-01-01T00:00:00+16:00',
  ];
  const answers = [];
  for (const at of times) {
    const res = await call(t.app, 'GET', `/api/prompts?cursor=${cursorOf([at, 'prm_a'])}`, {
      headers: bearer(key),
    });
    answers.push({
      at,
      status: res.status,
      paths: (res.body.errors ?? []).map((e: { path: string }) => e.path),
    });
  }
  assert.equal(
    answers,
    times.map((at) => ({ at, status: 400, paths: ['querystring.cursor'] })),
  );
  // A cursor the API made still pages.
  await createPrompt(t.app, key, { name: 'Outro', template: 'Bye {{who}}' });
  const first = await call(t.app, 'GET', '/api/prompts?limit=1', { headers: bearer(key) });
  const second = await call(t.app, 'GET', `/api/prompts?limit=1&cursor=${first.body.nextCursor}`, {
    headers: bearer(key),
  });
  assert.is(second.status, 200);
  assert.equal(
    second.body.data.map((p: { name: string }) => p.name),
    ['Outro'],
  );
});

test.run();
