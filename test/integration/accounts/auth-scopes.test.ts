import { randomBytes } from 'node:crypto';
import type { RouteOptions } from 'fastify';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import { SCOPES, type Scope } from '../../../src/auth/scopes.ts';
import { loadConfig } from '../../../src/config.ts';
import type { ServiceDeps } from '../../../src/deps.ts';
import { buildApp } from '../../../src/http/app.ts';
import type { RouteModule } from '../../../src/http/routes.ts';
import { createLogger } from '../../../src/logger.ts';
import { bearer, bootstrapAccount, call, issueKey } from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

/**
 * Walks every route the full service registers (all of app/modules.ts, as it is when the tests run),
 * so routes that other features add later are covered without touching this file.
 */
interface SeenRoute {
  method: string;
  url: string;
  access: unknown;
}

const seen: SeenRoute[] = [];
const collector: RouteModule = (app) => {
  app.addHook('onRoute', (route: RouteOptions) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue; // fastify's automatic twin of a GET
      seen.push({
        method,
        url: route.url,
        access: (route.config as { access?: unknown } | undefined)?.access,
      });
    }
  });
};

const test = suite<{ t: TestApp; rootKey: string }>('auth: every route declares access; scope matrix');

test.before(async (ctx) => {
  ctx.t = await startTestApp({
    projections: service.projections,
    routes: [collector, ...service.routes],
    authenticator: createAuthenticator,
  });
  ctx.rootKey = (await bootstrapAccount(ctx.t.app)).apiKey;
});
test.after(async (ctx) => {
  await ctx.t.close();
});

const ACCESS = new Set<unknown>([...SCOPES, 'authenticated', 'public', 'operator']);
const scoped = () => seen.filter((r) => SCOPES.includes(r.access as Scope));

/** A concrete path for a route pattern: each parameter gets a made-up value. */
const concrete = (url: string) =>
  url.replace(/:(\w+)/g, () => `x${randomBytes(4).toString('hex')}`).replace(/\*$/, 'any');

const send = (t: TestApp, route: SeenRoute, apiKey?: string) =>
  call(t.app, route.method, concrete(route.url), {
    headers: apiKey ? bearer(apiKey) : {},
    body: ['POST', 'PUT', 'PATCH'].includes(route.method) ? {} : undefined,
  });

test('every registered route declares a scope, authenticated, public or operator', () => {
  assert.ok(seen.length >= 5, `saw only ${seen.length} routes`);
  const missing = seen.filter((r) => !ACCESS.has(r.access));
  assert.equal(missing, [], `routes without a valid access declaration: ${JSON.stringify(missing)}`);
  // The accounts routes are among them, with the access the issue gives them.
  const accessOf = (method: string, url: string) =>
    seen.find((r) => r.method === method && r.url === url)?.access;
  assert.is(accessOf('POST', '/api/auth/agent-bootstrap'), 'public');
  assert.is(accessOf('GET', '/api/me'), 'authenticated');
  assert.is(accessOf('GET', '/api/keys'), 'keys:read');
  assert.is(accessOf('POST', '/api/keys'), 'keys:write');
  assert.is(accessOf('DELETE', '/api/keys/:keyId'), 'keys:write');
});

test('the kernel refuses to register a route that declares no access', async () => {
  const careless: RouteModule = (app) => {
    app.get('/api/careless', async () => ({ ok: true }));
  };
  // Only the logger is touched while routes register, so no database is needed here.
  const deps = { config: loadConfig({ LOG_LEVEL: 'silent' }), logger: createLogger('silent') } as ServiceDeps;
  try {
    const app = await buildApp(deps, [careless]);
    await app.close();
    assert.unreachable('a route without access was registered');
  } catch (error) {
    assert.instance(error, Error);
    assert.match((error as Error).message, /declares no access/);
  }
});

test('every non-public route answers 401 without a key', async ({ t }) => {
  for (const route of seen.filter((r) => r.access !== 'public')) {
    const res = await send(t, route);
    assert.is(res.status, 401, `${route.method} ${route.url}: ${JSON.stringify(res.body)}`);
    // An API route asks for a key; an operator route (the console) for its sign-in.
    assert.match(res.headers['www-authenticate'] ?? '', route.access === 'operator' ? /^Cookie/ : /^Bearer/);
  }
});

test('operator routes (the console) open to no API key, even one holding every scope', async ({
  t,
  rootKey,
}) => {
  const routes = seen.filter((r) => r.access === 'operator');
  assert.ok(routes.length >= 10, `saw only ${routes.length} operator routes`);
  assert.ok(
    routes.every((r) => r.url.startsWith('/admin')),
    'operator routes are the console',
  );
  for (const route of routes) {
    const res = await call(t.app, route.method, concrete(route.url), {
      headers: { ...bearer(rootKey), 'x-api-key': rootKey },
      body: route.method === 'POST' ? {} : undefined,
    });
    assert.is(res.status, 401, `${route.method} ${route.url} with a developer key`);
  }
});

test('scope matrix: without its scope a route answers 403 missing_scope; with only that scope it does not', async ({
  t,
  rootKey,
}) => {
  const routes = scoped();
  assert.ok(routes.length > 0);
  const keys = new Map<Scope, { without: string; only: string }>();
  for (const scope of new Set(routes.map((r) => r.access as Scope))) {
    const without = await issueKey(
      t.app,
      rootKey,
      SCOPES.filter((s) => s !== scope),
      `all but ${scope}`,
    );
    const only = await issueKey(t.app, rootKey, [scope], `only ${scope}`);
    keys.set(scope, { without: without.apiKey, only: only.apiKey });
  }
  for (const route of routes) {
    const scope = route.access as Scope;
    const key = keys.get(scope)!;
    const denied = await send(t, route, key.without);
    const where = `${route.method} ${route.url}`;
    assert.is(
      denied.status,
      403,
      `${where} without ${scope}: ${denied.status} ${JSON.stringify(denied.body)}`,
    );
    assert.is(denied.body.code, 'missing_scope', where);
    assert.is(denied.body.scope, scope, where);
    assert.match(denied.body.detail, scope);

    // With only its scope the access check passes: whatever the handler answers (404 for made-up
    // ids, 400 for an empty body), it is neither a 401 nor a scope refusal.
    const allowed = await send(t, route, key.only);
    assert.is.not(allowed.status, 401, `${where} with only ${scope}`);
    assert.is.not(allowed.body?.code, 'missing_scope', `${where} with only ${scope}`);
  }
});

test("routes open to any key ('authenticated') accept a key holding a single unrelated scope", async ({
  t,
  rootKey,
}) => {
  const { apiKey } = await issueKey(t.app, rootKey, ['prompts:read']);
  for (const route of seen.filter((r) => r.access === 'authenticated')) {
    const res = await send(t, route, apiKey);
    assert.ok(![401, 403].includes(res.status), `${route.method} ${route.url}: ${res.status}`);
  }
});

test.run();
