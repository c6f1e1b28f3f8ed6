/**
 * The API spec helpers (test/support/api-spec.ts) on an app over the in-memory store
 * (test/support/memory-app.ts): given streams, when a request, then the answer and the events it
 * appended; and the loud failure of a route that reads the database there.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { handleCommand } from '../../../src/command.ts';
import { AppError } from '../../../src/errors.ts';
import { principalOf } from '../../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../../src/http/commands.ts';
import type { RouteModule } from '../../../src/http/routes.ts';
import { bearer, call } from '../../support/accounts.ts';
import { givenStreams, thenAnswered, thenAppended, whenRequest } from '../../support/api-spec.ts';
import { type MemoryApp, startMemoryApp } from '../../support/memory-app.ts';
import { counterSetStream } from '../../support/test-streams.ts';

/** Sets a counter of the key's organization; setting it to its own value is a conflict. */
const setCounter = counterSetStream.decider((command: { value: number }, state) => {
  if (state.value === command.value)
    throw new AppError('conflict', `The counter is ${command.value} already.`);
  return [{ type: 'CounterSet', data: { value: command.value } }];
});

const counterRoutes: RouteModule = (app, deps) => {
  app.put(
    '/test/counters/:name',
    {
      config: { access: 'tables:write' },
      schema: {
        params: z.object({ name: z.string() }),
        body: z.strictObject({ value: z.number().int() }),
        response: { 200: z.object({ value: z.number() }) },
      },
    },
    async (request) => {
      const result = await handleCommand({
        store: deps.store,
        stream: counterSetStream.name(`${principalOf(request).organizationId}.${request.params.name}`),
        decider: setCounter,
        command: request.body,
        metadata: eventMetadata(request),
        now: deps.clock(),
      });
      await readYourWrites(deps, result.appended?.position, []);
      return { value: result.state.value! };
    },
  );
  app.get(
    '/test/counters',
    {
      config: { access: 'tables:read' },
      schema: { response: { 200: z.object({ count: z.number() }) } },
    },
    async () => {
      const { rows } = await deps.pool.query('SELECT count(*) FROM counters');
      return { count: Number(rows[0].count) };
    },
  );
};

const test = suite<{ t: MemoryApp }>('API spec on the in-memory store');
test.before.each(async (ctx) => {
  ctx.t = await startMemoryApp({ routes: [counterRoutes] });
});
test.after.each(async (ctx) => {
  await ctx.t.close();
});

test('given a stream, when a request changes it, then the answer and the event with its metadata', async ({
  t,
}) => {
  const { apiKey, keyId, organizationId } = t.issueKey();
  const stream = counterSetStream.name(`${organizationId}.visits`);
  await givenStreams(t, { [stream]: [{ type: 'CounterSet', data: { value: 1 } }] });
  const when = await whenRequest(t, 'PUT', '/test/counters/visits', {
    headers: bearer(apiKey),
    body: { value: 2 },
  });
  thenAnswered(when, 200, { value: 2 });
  thenAppended(when, keyId, [{ stream, type: 'CounterSet', data: { value: 2 } }]);
  assert.is(when.appended[0]!.revision, 1n);
});

test('a refusal appends nothing; so does a request refused before its handler', async ({ t }) => {
  const { apiKey, keyId, organizationId } = t.issueKey();
  const stream = counterSetStream.name(`${organizationId}.visits`);
  await givenStreams(t, { [stream]: [{ type: 'CounterSet', data: { value: 1 } }] });
  const when = await whenRequest(t, 'PUT', '/test/counters/visits', {
    headers: bearer(apiKey),
    body: { value: 1 },
  });
  assert.is(thenAnswered(when, 409).code, 'conflict');
  thenAppended(when, keyId, []);
  const readOnly = t.issueKey({ organizationId, scopes: ['tables:read'] });
  const denied = await whenRequest(t, 'PUT', '/test/counters/visits', {
    headers: bearer(readOnly.apiKey),
    body: { value: 5 },
  });
  assert.is(thenAnswered(denied, 403).code, 'missing_scope');
  thenAppended(denied, readOnly.keyId, []);
  assert.is((await call(t.app, 'PUT', '/test/counters/visits', { body: { value: 5 } })).status, 401);
});

test('a given event its schema refuses fails the spec before any request', async ({ t }) => {
  try {
    await givenStreams(t, { [counterSetStream.name('bad')]: [{ type: 'CounterSet', data: { value: 'x' } }] });
    assert.unreachable('an invalid given event was appended');
  } catch (error) {
    assert.is((error as Error).name, 'InvalidEventError');
  }
  assert.equal(await t.store.readAll(), []);
});

test('a route that reads the database answers 500 there, naming its query', async ({ t }) => {
  const { apiKey } = t.issueKey();
  const logged: string[] = [];
  const error = console.error;
  console.error = (message: string) => logged.push(message);
  try {
    const answer = await call(t.app, 'GET', '/test/counters', { headers: bearer(apiKey) });
    assert.is(answer.status, 500);
  } finally {
    console.error = error;
  }
  assert.match(logged.join('\n'), /no database.*SELECT count\(\*\) FROM counters/);
});

test.run();
