import { Writable } from 'node:stream';
import { Ajv } from 'ajv';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { freePort } from '../../../src/db/embedded.ts';
import { createPool } from '../../../src/db/pool.ts';
import { PostgresEventStore } from '../../../src/event-store/postgres.ts';
import { buildApp } from '../../../src/http/app.ts';
import type { RouteModule } from '../../../src/http/routes.ts';
import { createLogger } from '../../../src/logger.ts';
import { Projections } from '../../../src/projection/projections.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { assertOpenApi3, compileSchema } from '../../support/openapi.ts';
import { testRegistry } from '../../support/test-streams.ts';

const widget = z.object({
  name: z.string().min(1),
  items: z.array(z.object({ name: z.string().min(1), qty: z.number().int().positive() })),
  meta: z.strictObject({ colour: z.enum(['red', 'blue']) }),
});

/** Routes that exist only in this test, to exercise the kernel's edges. */
const testRoutes: RouteModule = (app) => {
  app.post(
    '/test/widgets',
    {
      config: { access: 'public' },
      schema: { tags: ['test'], body: widget, response: { 201: z.object({ id: z.string() }) } },
    },
    async (_request, reply) => reply.code(201).send({ id: 'w1' }),
  );
  app.get('/test/boom', { config: { access: 'public' } }, async () => {
    throw new Error('connection to db-7.internal failed: password hunter2 rejected');
  });
  app.post('/test/echo', { config: { access: 'public' } }, async (request) => {
    // What a careless handler might log: the request's headers and body.
    request.log.info({ headers: request.headers, body: request.body }, 'echo');
    return { ok: true };
  });
};

const test = suite<{ t: TestApp }>('HTTP kernel');

test.before(async (ctx) => {
  ctx.t = await startTestApp({ routes: [testRoutes] });
});
test.after(async (ctx) => {
  await ctx.t.close();
});

const isProblem = (res: { headers: Record<string, unknown>; json(): Record<string, unknown> }) => {
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json();
  for (const key of ['type', 'title', 'status', 'detail', 'code', 'requestId'])
    assert.ok(key in body, `problem body lacks ${key}`);
  return body;
};

test('/healthz answers ok', async ({ t }) => {
  const res = await fetch(`${t.url}/healthz`);
  assert.is(res.status, 200);
  assert.equal(await res.json(), { status: 'ok' });
});

test('/readyz is 200 with every check ok', async ({ t }) => {
  const res = await t.app.inject({ method: 'GET', url: '/readyz' });
  assert.is(res.statusCode, 200);
  assert.equal(res.json(), {
    status: 'ready',
    checks: { database: { ok: true }, eventStore: { ok: true }, projections: { ok: true } },
  });
});

test('/readyz is 503 when the database is unreachable', async ({ t }) => {
  const closedPort = await freePort();
  const pool = createPool(`postgres://postgres:postgres@127.0.0.1:${closedPort}/nowhere`);
  const store = new PostgresEventStore(pool, testRegistry);
  const app = await buildApp({ ...t.deps, pool, store, projections: new Projections(store, pool, []) }, []);
  try {
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    assert.is(res.statusCode, 503);
    const body = res.json();
    assert.is(body.status, 'not_ready');
    assert.is(body.checks.database.ok, false);
    assert.is(body.checks.eventStore.ok, false);
    assert.is(body.checks.projections.ok, true);
    // Public: the answer names no host or port of the database.
    assert.not.match(res.body, String(closedPort));
  } finally {
    await app.close();
    await pool.end();
  }
});

test('/openapi.json is an OpenAPI 3 document holding the routes and their zod schemas', async ({ t }) => {
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.is(res.statusCode, 200);
  const doc = res.json();
  assertOpenApi3(doc);
  const op = doc.paths['/test/widgets'].post;
  const body = op.requestBody.content['application/json'].schema;
  assert.equal(body.required.sort(), ['items', 'meta', 'name']);
  assert.is(body.properties.items.type, 'array');
  assert.equal(body.properties.items.items.required.sort(), ['name', 'qty']);
  assert.equal(body.properties.meta.properties.colour.enum, ['red', 'blue']);
  // The documented schema says what the route's zod schema says.
  const validate = compileSchema(new Ajv({ strict: false }), body, doc.openapi);
  const good = { name: 'w', items: [{ name: 'i', qty: 2 }], meta: { colour: 'red' } };
  assert.ok(validate(good));
  assert.not.ok(validate({ ...good, items: [{ name: 'i', qty: 0 }] }), 'qty must be positive');
  assert.not.ok(validate({ ...good, meta: { colour: 'green' } }));
  assert.ok(op.responses['201'], 'the 201 response schema is documented');
  assert.ok(doc.paths['/healthz'].get, 'health routes are documented');
  assert.not.ok(doc.paths['/openapi.json'], 'the document does not list itself');
});

test('/docs answers HTML', async ({ t }) => {
  const res = await fetch(`${t.url}/docs`);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  assert.match(await res.text(), /<html/i);
});

test('x-request-id: honoured when well-formed, replaced when not, always returned', async ({ t }) => {
  const given = await t.app.inject({ method: 'GET', url: '/nope', headers: { 'x-request-id': 'abc-123.x' } });
  assert.is(given.headers['x-request-id'], 'abc-123.x');
  assert.is(given.json().requestId, 'abc-123.x');

  for (const bad of ['has spaces', 'x'.repeat(200), '<script>', 'a\u00e9b']) {
    const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': bad } });
    const id = String(res.headers['x-request-id']);
    assert.is.not(id, bad);
    assert.match(id, /^[0-9a-f-]{36}$/);
  }
  const none = await t.app.inject({ method: 'GET', url: '/healthz' });
  assert.match(String(none.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  const other = await t.app.inject({ method: 'GET', url: '/healthz' });
  assert.is.not(other.headers['x-request-id'], none.headers['x-request-id']);
});

test('an unknown route is a 404 problem', async ({ t }) => {
  const res = await t.app.inject({ method: 'GET', url: '/no/such/route?q=1' });
  assert.is(res.statusCode, 404);
  const body = isProblem(res);
  assert.is(body.code, 'route_not_found');
  assert.is(body.status, 404);
  assert.is(body.requestId, res.headers['x-request-id']);
});

test('malformed JSON is a 400 malformed_json problem', async ({ t }) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/test/widgets',
    headers: { 'content-type': 'application/json' },
    payload: '{"name": "a", ',
  });
  assert.is(res.statusCode, 400);
  assert.is(isProblem(res).code, 'malformed_json');
});

test('a validation failure is a 400 naming every offending path', async ({ t }) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/test/widgets',
    payload: {
      name: '',
      items: [
        { name: 'ok', qty: 1 },
        { name: '', qty: 1.5 },
      ],
      meta: { colour: 'green' },
    },
  });
  assert.is(res.statusCode, 400);
  const body = isProblem(res);
  assert.is(body.code, 'validation_failed');
  const errors = body.errors as { path: string; message: string }[];
  assert.equal(errors.map((e) => e.path).sort(), ['items[1].name', 'items[1].qty', 'meta.colour', 'name']);
  assert.ok(errors.every((e) => typeof e.message === 'string' && e.message.length > 0));
  assert.match(String(body.detail), 'items[1].name');
});

test('unknown fields of a strict object are each named at their own path', async ({ t }) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/test/widgets',
    payload: { name: 'w', items: [], meta: { colour: 'red', shade: 'dark', size: 2 } },
  });
  assert.is(res.statusCode, 400);
  const errors = isProblem(res).errors as { path: string; message: string }[];
  assert.equal(errors.map((e) => e.path).sort(), ['meta.shade', 'meta.size']);
});

test('an unexpected error is a 500 problem that leaks neither message nor stack', async ({ t }) => {
  const res = await t.app.inject({ method: 'GET', url: '/test/boom' });
  assert.is(res.statusCode, 500);
  const body = isProblem(res);
  assert.is(body.code, 'internal');
  for (const leak of ['hunter2', 'db-7.internal', 'password', '.ts:', 'at ', 'stack'])
    assert.not.ok(res.body.includes(leak), `the body leaks "${leak}"`);
});

test('a body over 1 MiB is a 413 problem', async ({ t }) => {
  const name = 'x'.repeat(1024 * 1024);
  const res = await t.app.inject({
    method: 'POST',
    url: '/test/widgets',
    payload: { name, items: [], meta: {} },
  });
  assert.is(res.statusCode, 413);
  assert.is(isProblem(res).code, 'payload_too_large');
  const ok = await t.app.inject({
    method: 'POST',
    url: '/test/widgets',
    payload: { name: 'x'.repeat(1000 * 1000), items: [], meta: { colour: 'red' } },
  });
  assert.is(ok.statusCode, 201, 'a body just under the limit passes');
});

test('a route declaring no access fails registration', async ({ t }) => {
  const undeclared: RouteModule = (app) => {
    app.get('/test/undeclared', async () => 'open');
  };
  const emptyConfig: RouteModule = (app) => {
    app.get('/test/empty', { config: {} }, async () => 'open');
  };
  for (const routes of [undeclared, emptyConfig]) {
    const error = await buildApp(t.deps, [routes]).then(
      () => undefined,
      (e: Error) => e,
    );
    assert.instance(error, Error);
    assert.match(String(error?.message), /declares no access/);
  }
});

test('logs carry the request id and never the credentials or passwords a request holds', async ({ t }) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp({ ...t.deps, logger: createLogger('info', sink) }, [testRoutes]);
  const secrets = ['stk_k1.SECRETbearer', 'stk_k2.SECRETapikey', 'SECRETpassword'];
  const headers = {
    authorization: `Bearer ${secrets[0]}`,
    'x-api-key': secrets[1]!,
    'x-request-id': 'log-test-1',
  };
  try {
    const echo = await app.inject({
      method: 'POST',
      url: '/test/echo',
      headers,
      payload: { password: secrets[2] },
    });
    assert.is(echo.statusCode, 200);
    await app.inject({ method: 'GET', url: '/test/boom', headers });
    await app.inject({ method: 'POST', url: '/test/widgets', headers, payload: { password: secrets[2] } });
    await app.inject({ method: 'GET', url: '/nope', headers });
  } finally {
    await app.close();
  }
  const all = lines.join('\n');
  for (const secret of secrets) assert.not.ok(all.includes(secret), `a log line holds ${secret}`);
  const echoed = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'echo');
  assert.is(echoed.headers.authorization, '[redacted]');
  assert.is(echoed.headers['x-api-key'], '[redacted]');
  assert.is(echoed.body.password, '[redacted]');
  const requests = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
  assert.is(requests.length, 4, 'one line per request');
  assert.ok(requests.every((l) => l.reqId === 'log-test-1'));
  assert.equal(
    requests.map((l) => l.status),
    [200, 500, 400, 404],
  );
});

test.run();
