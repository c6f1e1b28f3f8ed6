import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { service } from '../../../app/modules.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import type { RouteModule } from '../../../src/http/routes.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { serveApp } from '../../support/app.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { leaks, registryOf, SecretRegistry } from '../../support/secret-scan.ts';

/**
 * The secret scan every in-process test app runs (test/support/secret-scan.ts), shown to find what
 * it is there to find. Each case takes back the leaks it provoked, so that the run stays green.
 */
const test = suite('secret scan: responses, log lines and events');

const provoked = async (action: () => Promise<void>) => {
  const before = leaks.length;
  await action();
  return leaks.splice(before);
};

const CRON_SECRET = 'scan-test-cron-secret';

/** A route that does what must never be done: echo a secret in a body, a header and a log line. */
const careless: RouteModule = (app, deps) => {
  const schema = { response: { 200: z.object({ cron: z.string().optional() }) } };
  app.get('/test/leak', { config: { access: 'public' }, schema }, async (request, reply) => {
    request.log.trace({ cron: deps.config.CRON_SECRET }, 'careless');
    return reply.header('x-debug', String(deps.config.CRON_SECRET)).send({ cron: deps.config.CRON_SECRET });
  });
};

test('the registry finds known values, and ignores short ones', () => {
  const registry = new SecretRegistry();
  registry.add('short', 'too short to know');
  registry.add('a-long.secret(value)', 'secret');
  assert.equal(registry.find('x a-long.secret(value) y short'), ['secret']);
  assert.equal(registry.find('a-long-secret-value'), []);
});

test('a secret in a response body, a header or a log line is a leak; the reveals are not', async () => {
  const db: TestDatabase = await freshDatabase();
  const served = await serveApp(db, {
    projections: service.projections,
    routes: [...service.routes, careless],
    authenticator: createAuthenticator,
    env: { CRON_SECRET },
  });
  try {
    const found = await provoked(async () => {
      await call(served.app, 'GET', '/test/leak');
    });
    const where = found.map((l) => `${l.what} in ${l.where}`);
    assert.ok(where.includes('CRON_SECRET in response GET /test/leak 200'), where.join('\n'));
    assert.ok(where.includes('CRON_SECRET in log line'), where.join('\n'));

    // A key's creation answer shows its secret once; after that the secret is known.
    const quiet = await provoked(async () => {
      const account = await bootstrapAccount(served.app);
      const secret = account.apiKey.slice(account.apiKey.lastIndexOf('.') + 1);
      assert.equal(registryOf(db.url).find(`...${secret}...`), ['API key secret']);
      const keys = await call(served.app, 'GET', '/api/keys', { headers: bearer(account.apiKey) });
      assert.is(keys.status, 200);
    });
    assert.equal(quiet, []);
  } finally {
    await served.close();
  }
  // Events are searched as the database is dropped: one that holds a known secret is a leak.
  await db.pool.query(
    `INSERT INTO events (stream_name, stream_revision, event_id, type, data)
     VALUES ('careless-1', 0, gen_random_uuid(), 'careless.logged', $1)`,
    [JSON.stringify({ cron: CRON_SECRET })],
  );
  const inEvents = await provoked(() => db.drop());
  assert.equal(
    inEvents.map((l) => `${l.what} in ${l.where}`),
    ['CRON_SECRET in event careless.logged in careless-1'],
  );
});

test.run();
