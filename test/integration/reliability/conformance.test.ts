import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { ContractChecker, contract, type Document, type Exchange } from '../../support/conformance.ts';

/**
 * The checker every in-process response goes through (test/support/conformance.ts), shown to catch
 * what it is there to catch: an answer the document does not describe fails, whatever part is off.
 */
const test = suite<{ t: TestApp; checker: ContractChecker }>('conformance: the response checker');

test.before(async (ctx) => {
  ctx.t = await startTestApp({
    projections: service.projections,
    routes: service.routes,
    authenticator: createAuthenticator,
  });
  ctx.checker = new ContractChecker(ctx.t.app.swagger() as unknown as Document);
});
test.after(async ({ t }) => {
  await t?.close();
});

const json = (method: string, route: string, status: number, body: unknown, type = 'application/json') =>
  ({ method, url: route, route, status, contentType: type, body: JSON.stringify(body) }) as Exchange;

test('a body that matches its schema passes; a wrong one fails, naming the field', ({ checker }) => {
  assert.is(checker.check(json('GET', '/healthz', 200, { status: 'ok' })), undefined);
  const wrong = checker.check(json('GET', '/healthz', 200, { status: 'fine' }));
  assert.match(String(wrong), /body does not match the 200 schema: \/status/);
  const extra = checker.check(json('GET', '/healthz', 200, { status: 'ok', uptime: 3 }));
  assert.match(String(extra), /additional properties/);
  const table = { id: 'tbl_1', name: 'T', createdAt: 'yesterday' };
  assert.match(String(checker.check(json('GET', '/api/tables/:tableId', 200, table))), /does not match/);
});

test('an undocumented status, content type or operation fails', ({ checker }) => {
  assert.match(String(checker.check(json('GET', '/healthz', 302, {}))), /status 302 is not documented/);
  assert.match(
    String(checker.check(json('GET', '/healthz', 200, { status: 'ok' }, 'text/plain'))),
    /content type text\/plain is not documented/,
  );
  assert.match(String(checker.check(json('GET', '/api/nowhere', 200, {}))), /not in the document/);
});

test('every 4xx and 5xx is documented once as a problem, and checked as one', ({ checker }) => {
  const problem = {
    type: 'about:blank#not_found',
    title: 'Not found',
    status: 404,
    detail: 'No such table.',
    code: 'not_found',
    requestId: 'r1',
  };
  const type = 'application/problem+json';
  assert.is(checker.check(json('GET', '/api/tables/:tableId', 404, problem, type)), undefined);
  assert.match(
    String(checker.check(json('GET', '/api/tables/:tableId', 404, problem))),
    /content type application\/json is not documented for 4XX/,
  );
  const unknown = checker.check(json('GET', '/api/tables/:tableId', 404, { ...problem, code: 'nope' }, type));
  assert.match(String(unknown), /\/code must be equal to one of the allowed values/);
  const { requestId: _, ...anonymous } = problem;
  assert.match(String(checker.check(json('POST', '/api/tables', 500, anonymous, type))), /requestId/);
  // No route took it: still a problem, by the document's Problem schema.
  assert.is(checker.check({ ...json('GET', '/x', 404, problem, type), route: undefined }), undefined);
  assert.match(
    String(checker.check({ ...json('GET', '/x', 404, { nope: 1 }, type), route: undefined })),
    /not matching the Problem schema/,
  );
});

test('pages and /metrics are described with their own content types', ({ checker }) => {
  const page = { method: 'GET', route: '/blog/:slug', url: '/blog/x', body: '<!doctype html>' };
  assert.is(checker.check({ ...page, status: 200, contentType: 'text/html' }), undefined);
  assert.is(checker.check({ ...page, status: 404, contentType: 'text/html' }), undefined);
  assert.match(String(checker.check({ ...page, status: 200, contentType: 'application/json' })), /content/);
  const metrics = { method: 'GET', route: '/metrics', url: '/metrics', body: '# HELP x\n' };
  assert.is(checker.check({ ...metrics, status: 200, contentType: 'text/plain' }), undefined);
});

test('the hook in the test app records what a real request answered', async ({ t }) => {
  const before = contract.checked;
  const account = await bootstrapAccount(t.app);
  const answer = await call(t.app, 'GET', '/api/tables/tbl_missing', { headers: bearer(account.apiKey) });
  assert.is(answer.status, 404);
  assert.ok(contract.checked >= before + 2, `${contract.checked - before} responses checked`);
  const mine = contract.violations.filter((v) => v.exchange.url.startsWith('/api/tables/tbl_missing'));
  assert.equal(mine, []);
});

test.run();
