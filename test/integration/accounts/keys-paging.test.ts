import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { accounts, bearer, bootstrapAccount, call, issueKey } from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

const test = suite<{ t: TestApp }>('keys: GET /api/keys a page at a time');

test.before(async (ctx) => {
  ctx.t = await startTestApp(accounts);
});
test.after(async (ctx) => {
  await ctx.t.close();
});

test('limit and cursor walk every key of the organization once, oldest first, and no other', async ({
  t,
}) => {
  const account = await bootstrapAccount(t.app);
  const other = await bootstrapAccount(t.app);
  const issued = [account.keyId];
  for (let i = 0; i < 6; i++)
    issued.push((await issueKey(t.app, account.apiKey, ['tables:read'], `k${i}`)).keyId);
  await issueKey(t.app, other.apiKey, ['tables:read'], 'not theirs');

  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = cursor ? `?limit=4&cursor=${cursor}` : '?limit=4';
    const page = await call(t.app, 'GET', `/api/keys${query}`, { headers: bearer(account.apiKey) });
    assert.is(page.status, 200, JSON.stringify(page.body));
    assert.ok(page.body.keys.length <= 4);
    seen.push(...page.body.keys.map((k: { id: string }) => k.id));
    cursor = page.body.nextCursor;
    pages++;
  } while (cursor);
  assert.is(pages, 2);
  assert.equal(seen, issued);

  const all = await call(t.app, 'GET', '/api/keys', { headers: bearer(account.apiKey) });
  assert.equal(
    all.body.keys.map((k: { id: string }) => k.id),
    issued,
  );
  assert.is(all.body.nextCursor, null);
});

test('a cursor this API did not return, or a limit out of range, is a 400 naming it', async ({ t }) => {
  const account = await bootstrapAccount(t.app);
  for (const [query, path] of [
    ['?cursor=garbage', 'querystring.cursor'],
    [`?cursor=${Buffer.from('["not a time","k"]').toString('base64url')}`, 'querystring.cursor'],
    ['?limit=0', 'querystring.limit'],
    ['?limit=101', 'querystring.limit'],
  ]) {
    const res = await call(t.app, 'GET', `/api/keys${query}`, { headers: bearer(account.apiKey) });
    assert.is(res.status, 400, query);
    assert.is(res.body.errors[0].path, path, query);
  }
});

test.run();
