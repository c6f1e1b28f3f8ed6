import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { service } from '../../../app/modules.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import type { RouteModule } from '../../../src/http/routes.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { columnsPath, createColumn, createTable } from '../../support/tables.ts';

/**
 * Routes with no input schema at all: what a future route gets from the edge without asking. (Their
 * answers are documented, as every answer must be: test/support/conformance.ts.)
 */
const bareRoutes: RouteModule = (app) => {
  const ok = { response: { 200: z.object({ ok: z.boolean() }) } };
  const echo = { response: { 200: z.object({ params: z.looseObject({}), query: z.looseObject({}) }) } };
  app.post('/test/bare', { config: { access: 'public' }, schema: ok }, async () => ({ ok: true }));
  app.get('/test/bare/:id', { config: { access: 'public' }, schema: echo }, async (request) => ({
    params: request.params as Record<string, unknown>,
    query: request.query as Record<string, unknown>,
  }));
};

const test = suite<{ t: TestApp; key: string }>('HTTP edge: text and nesting of every input');

test.before(async (ctx) => {
  ctx.t = await startTestApp({
    projections: service.projections,
    routes: [...service.routes, bareRoutes],
    authenticator: createAuthenticator,
  });
  ctx.key = (await bootstrapAccount(ctx.t.app)).apiKey;
});
test.after(async (ctx) => {
  await ctx.t.close();
});

type Answer = Awaited<ReturnType<typeof call>>;

/** A 400 validation_failed problem; returns the paths it names. */
function refusedAt(res: Answer): string[] {
  assert.is(res.status, 400, JSON.stringify(res.body));
  assert.match(res.headers['content-type'] ?? '', /^application\/problem\+json/);
  assert.is(res.body.code, 'validation_failed');
  return res.body.errors.map((e: { path: string }) => e.path);
}

/** `{"a":{"a":...{}}}` with `levels` objects, as text (JSON.stringify gives up long before 10,000). */
const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

const httpColumn = (config: object = {}) => ({
  label: 'Call',
  kind: 'enrichment',
  dataType: 'json',
  config: { provider: 'http_request', url: 'https://api.example.com/x', method: 'POST', ...config },
});

test('a NUL or a lone surrogate in any string of a body is a 400 naming its path', async ({ t, key }) => {
  const auth = { headers: bearer(key) };
  const before = await call(t.app, 'GET', '/api/tables', auth);
  refusedAt(await call(t.app, 'POST', '/api/tables', { ...auth, body: { name: 'Leads\u0000' } }));
  assert.equal(refusedAt(await call(t.app, 'POST', '/api/tables', { ...auth, body: { name: '\ud800' } })), [
    'name',
  ]);
  assert.equal((await call(t.app, 'GET', '/api/tables', auth)).body, before.body, 'nothing was stored');

  const tableId = await createTable(t.app, key);
  const columns = columnsPath(tableId);
  const keyed = await call(t.app, 'POST', columns, {
    ...auth,
    body: httpColumn({ headers: { 'X-A\u0000': 'v' } }),
  });
  // The key itself is the offending text; the path shows it escaped.
  assert.equal(refusedAt(keyed), ['config.headers.X-A\\u0000']);
  const col = await createColumn(t.app, key, tableId, httpColumn());
  const patched = await call(t.app, 'PATCH', `${columns}/${col.id}`, {
    ...auth,
    body: { config: { body: { q: ['ok', 'lone \udc00 low'] } } },
  });
  assert.equal(refusedAt(patched), ['config.body.q[1]']);
  const stored = await call(t.app, 'GET', `${columns}/${col.id}`, auth);
  assert.equal(stored.body.config, col.config, 'the column is unchanged');

  // The public sync endpoint parses its own bodies; the rule holds there too.
  const sync = await call(t.app, 'POST', '/api/content/sync', {
    body: { items: [{ slug: 'fine' }, { slug: 'a\u0000b' }] },
  });
  assert.equal(refusedAt(sync), ['items[1].slug']);

  const bare = await call(t.app, 'POST', '/test/bare', {
    body: { rows: [{}, {}, {}, { cells: { name: 'x\u0000', note: '\ud83d' } }] },
  });
  assert.equal(refusedAt(bare), ['rows[3].cells.name', 'rows[3].cells.note']);

  // Paired surrogates (an emoji) are ordinary text.
  const emoji = await call(t.app, 'POST', '/api/tables', { ...auth, body: { name: 'Leads \ud83d\ude00' } });
  assert.is(emoji.status, 201, JSON.stringify(emoji.body));
  assert.is(emoji.body.name, 'Leads \ud83d\ude00');
});

test('a NUL in a path parameter or a query string is a 400 naming it', async ({ t }) => {
  assert.equal(refusedAt(await call(t.app, 'GET', '/test/bare/a%00b')), ['params.id']);
  assert.equal(refusedAt(await call(t.app, 'GET', '/test/bare/1?q=ok&r=%00')), ['querystring.r']);
  assert.equal(refusedAt(await call(`${t.url}/`, 'GET', '/test/bare/1?q=a%00')), ['querystring.q']);
  const fine = await call(t.app, 'GET', '/test/bare/a%20b?q=%C3%A9');
  assert.is(fine.status, 200);
  assert.equal(fine.body, { params: { id: 'a b' }, query: { q: '\u00e9' } });
});

test('a body nested deeper than 64 levels is a 400 naming where, on every route', async ({ t, key }) => {
  const raw = (method: 'POST' | 'PATCH', url: string, payload: string, headers = {}) =>
    t.app
      .inject({ method, url, headers: { ...headers, 'content-type': 'application/json' }, payload })
      .then((res) => ({
        status: res.statusCode,
        headers: res.headers as Record<string, string>,
        body: res.json(),
      }));

  assert.is((await raw('POST', '/test/bare', nestedObjects(64))).status, 200, '64 levels pass');
  assert.equal(refusedAt(await raw('POST', '/test/bare', nestedObjects(65))), [`a${'.a'.repeat(63)}`]);

  // The sync endpoint's own walker used to overflow the stack on this (a 500).
  const arrays = `{"items":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
  assert.equal(refusedAt(await raw('POST', '/api/content/sync', arrays)), [`items${'[0]'.repeat(63)}`]);

  const tableId = await createTable(t.app, key);
  const columns = columnsPath(tableId);
  const listed = await call(t.app, 'GET', columns, { headers: bearer(key) });
  const column = (config: string) =>
    `{"label":"Deep","kind":"enrichment","dataType":"json","config":{"provider":"http_request",` +
    `"url":"https://api.example.com/x","method":"POST","body":${config}}}`;
  // Thousands of levels used to overflow the stack in the route's own validation (a 500).
  const [path] = refusedAt(await raw('POST', columns, column(nestedObjects(4_000)), bearer(key)));
  assert.is(path, `config.body${'.a'.repeat(62)}`);
  refusedAt(await raw('POST', columns, column(nestedObjects(10_000)), bearer(key)));
  assert.equal((await call(t.app, 'GET', columns, { headers: bearer(key) })).body, listed.body);

  const col = await createColumn(t.app, key, tableId, httpColumn());
  const patch = `{"config":{"body":${nestedObjects(10_000)}}}`;
  refusedAt(await raw('PATCH', `${columns}/${col.id}`, patch, bearer(key)));
  const again = await call(t.app, 'PATCH', `${columns}/${col.id}`, {
    headers: bearer(key),
    body: { config: { body: { q: 'still editable' } } },
  });
  assert.is(again.status, 200, JSON.stringify(again.body));
});

test.run();
