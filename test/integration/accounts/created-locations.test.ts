import type { RouteOptions } from 'fastify';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import type { RouteModule } from '../../../src/http/routes.ts';
import { type Answer, bearer, bootstrapAccount, call, someClientAddress } from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { createTable } from '../../support/tables.ts';

/*
 * Every route of the service that answers 201 (its response schema has one) names what it created in
 * `Location`, a path a GET with the same key reads; those whose answer carries a key's secret also say
 * `Cache-Control: no-store`. The routes are collected from the service as registered, so a new 201
 * route fails here until it has a case below.
 */
const created: string[] = [];
const collector: RouteModule = (app) => {
  app.addHook('onRoute', (route: RouteOptions) => {
    const responses = (route.schema as { response?: Record<string, unknown> } | undefined)?.response;
    if (responses && '201' in responses) created.push(`${route.method} ${route.url}`);
  });
};

interface Ctx {
  t: TestApp;
  key: string;
  tableId: string;
  email: string;
  password: string;
}

interface Case {
  request: (ctx: Ctx) => Promise<Answer>;
  /** The id the answer gives the thing created: the one `Location` must name. */
  id: (body: Answer['body']) => string;
  /** How the resource read back names itself (default: its `id`). */
  readId?: (body: Answer['body']) => string;
  /** The key to read `Location` with (default: the suite's). */
  reader?: (body: Answer['body']) => string;
  secret?: boolean;
}

const publicPost = (ctx: Ctx, path: string, body: object) =>
  call(ctx.t.app, 'POST', path, { headers: { 'x-forwarded-for': someClientAddress() }, body });
const post = (ctx: Ctx, path: string, body: object) =>
  call(ctx.t.app, 'POST', path, { headers: bearer(ctx.key), body });

const CASES: Record<string, Case> = {
  'POST /api/auth/agent-bootstrap': {
    request: (ctx) =>
      publicPost(ctx, '/api/auth/agent-bootstrap', {
        email: 'located@example.com',
        password: 'a long enough password',
        organization_name: 'Located',
      }),
    id: (body) => body.keyMetadata.id,
    reader: (body) => body.apiKey,
    secret: true,
  },
  'POST /api/auth/login': {
    request: (ctx) =>
      publicPost(ctx, '/api/auth/login', { email: ctx.email, password: ctx.password, key_name: 'l' }),
    id: (body) => body.keyMetadata.id,
    secret: true,
  },
  'POST /api/keys': {
    request: (ctx) => post(ctx, '/api/keys', { name: 'located', scopes: ['tables:read'] }),
    id: (body) => body.keyMetadata.id,
    secret: true,
  },
  'POST /api/tables': {
    request: (ctx) => post(ctx, '/api/tables', { name: 'Located' }),
    id: (body) => body.id,
  },
  'POST /api/prompts': {
    request: (ctx) => post(ctx, '/api/prompts', { name: 'located', template: 'Hello {{name}}' }),
    id: (body) => body.id,
  },
  'POST /api/leads': {
    request: (ctx) =>
      post(ctx, '/api/leads', { fullName: 'Located Lead', emailAddresses: ['located@example.com'] }),
    id: (body) => body.id,
  },
  'POST /api/users': {
    request: (ctx) => post(ctx, '/api/users', { email: 'located.member@example.com', first_name: 'Located' }),
    id: (body) => body.id,
  },
  'POST /api/sequences': {
    request: (ctx) =>
      post(ctx, '/api/sequences', { name: 'Located', steps: [{ type: 'call', waitDays: 0 }] }),
    id: (body) => body.id,
  },
  'POST /api/tasks': {
    request: (ctx) => post(ctx, '/api/tasks', { title: 'Located task' }),
    id: (body) => body.id,
  },
  'POST /api/sequences/:sequenceId/clone': {
    request: async (ctx) => {
      const made = await post(ctx, '/api/sequences', { name: 'To clone', steps: [] });
      return post(ctx, `/api/sequences/${made.body.id}/clone`, {});
    },
    id: (body) => body.id,
  },
  'POST /api/sender-accounts': {
    request: async (ctx) => {
      const me = await call(ctx.t.app, 'GET', '/api/me', { headers: bearer(ctx.key) });
      return post(ctx, '/api/sender-accounts', {
        type: 'email',
        address: 'sender@example.com',
        userId: me.body.userData.id,
        dailyLimit: 40,
      });
    },
    id: (body) => body.id,
  },
  'PUT /api/secrets/:name': {
    request: (ctx) =>
      call(ctx.t.app, 'PUT', '/api/secrets/LOCATED_TOKEN', {
        headers: bearer(ctx.key),
        body: { value: 's3cret-value' },
      }),
    id: (body) => body.name,
    readId: (body) => body.name,
  },
  'POST /api/tables/:tableId/rows': {
    // A batch: Location names the first row it created.
    request: (ctx) => post(ctx, `/api/tables/${ctx.tableId}/rows`, { rows: [{ cells: {} }, { cells: {} }] }),
    id: (body) => body.data[0].id,
  },
  'POST /api/tables/:tableId/columns': {
    request: (ctx) =>
      post(ctx, `/api/tables/${ctx.tableId}/columns`, { label: 'Company', kind: 'input', dataType: 'text' }),
    id: (body) => body.id,
  },
  'POST /api/webhooks': {
    request: (ctx) => post(ctx, '/api/webhooks', { url: 'https://example.com/hook', eventTypes: ['*'] }),
    id: (body) => body.id,
    secret: true,
  },
};

const test = suite<Ctx>('every 201 names what it created in Location');

test.before(async (ctx) => {
  ctx.t = await startTestApp({
    projections: service.projections,
    routes: [collector, ...service.routes],
    authenticator: createAuthenticator,
  });
  const account = await bootstrapAccount(ctx.t.app);
  Object.assign(ctx, { key: account.apiKey, email: account.email, password: account.password });
  ctx.tableId = await createTable(ctx.t.app, ctx.key, 'Parent');
});
test.after(async (ctx) => {
  await ctx.t.close();
});

test('the cases below are every route answering 201', () => {
  assert.ok(created.length > 0);
  assert.equal([...created].sort(), Object.keys(CASES).sort());
});

for (const [route, check] of Object.entries(CASES)) {
  test(`${route}: Location reads back what was created`, async (ctx) => {
    const res = await check.request(ctx);
    assert.is(res.status, 201, JSON.stringify(res.body));
    const location = res.headers.location;
    assert.type(location, 'string', `${route} sends no Location`);
    assert.ok(location!.startsWith('/api/') && location!.endsWith(`/${check.id(res.body)}`), location);
    const read = await call(ctx.t.app, 'GET', location!, {
      headers: bearer(check.reader?.(res.body) ?? ctx.key),
    });
    assert.is(read.status, 200, `GET ${location}: ${JSON.stringify(read.body)}`);
    assert.is(check.readId ? check.readId(read.body) : read.body.id, check.id(res.body));
    if (check.secret) assert.is(res.headers['cache-control'], 'no-store', route);
  });
}

test.run();
