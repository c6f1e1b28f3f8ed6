import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BOOTSTRAP_STEPS } from '../../../../commands/accounts/bootstrap-account.ts';
import {
  bearer,
  bootstrapAttempts,
  call,
  someClientAddress,
  undone,
  usable,
} from '../../../support/accounts.ts';
import { eventually } from '../../../support/eventually.ts';
import { Services } from '../../../support/process-faults.ts';
import { closeStore, openStore, type StoreContext } from '../../../support/store.ts';

/**
 * The service process killed (SIGKILL: no error handler, no shutdown) in the middle of a bootstrap,
 * after each of its steps in turn: the test-only hook STK_TEST_BOOTSTRAP_PAUSE_AFTER holds the
 * bootstrap there, the test kills the process. Restarted, the service lets the same address, with the
 * same password, sign up at once, and there is exactly one usable account for it.
 */
interface Ctx extends StoreContext {
  services: Services;
}

const test = suite<Ctx>('e2e: a bootstrap killed between its steps');
const PASSWORD = 'a password long enough';

test.before(async (ctx) => {
  await openStore(ctx);
  ctx.services = new Services({ DATABASE_URL: ctx.db.url });
});
test.after(async (ctx) => {
  await ctx.services.close();
  await closeStore(ctx);
});

const start = (ctx: Ctx, env: Record<string, string> = {}) => ctx.services.start(env);

const bootstrap = (url: string, email: string) =>
  call(url, 'POST', '/api/auth/agent-bootstrap', {
    headers: { 'x-forwarded-for': someClientAddress() },
    body: { email, password: PASSWORD, organization_name: 'Crash' },
  });

const emailOf = (step: string) => `killed-after-${step}@example.com`;

test('killed after each step, the address signs up again at once: one usable account', async (ctx) => {
  for (const step of BOOTSTRAP_STEPS) {
    const service = await start(ctx, { STK_TEST_BOOTSTRAP_PAUSE_AFTER: step });
    const pending = bootstrap(service.url, emailOf(step)).then(
      (res) => res.status,
      () => 'connection lost',
    );
    await eventually(`the bootstrap paused after ${step}`, () =>
      service.output().includes('test hook: bootstrap paused'),
    );
    await ctx.services.kill(service);
    assert.is(await pending, 'connection lost');
    const [left] = await bootstrapAttempts(ctx.store, emailOf(step));
    assert.ok(left && !usable(left), `after ${step}: ${JSON.stringify(left)}`);
  }

  const service = await start(ctx);
  for (const step of BOOTSTRAP_STEPS) {
    const email = emailOf(step);
    const retry = await bootstrap(service.url, email);
    assert.is(retry.status, 201, `${step}: ${JSON.stringify(retry.body)}`);
    const me = await call(service.url, 'GET', '/api/me', { headers: bearer(retry.body.apiKey) });
    assert.is(me.status, 200);
    assert.is(me.body.organization.balance, 50);

    const attempts = await bootstrapAttempts(ctx.store, email);
    assert.is(attempts.length, 2, step);
    assert.ok(undone(attempts[0]!), `the killed attempt (${step}) is undone: ${JSON.stringify(attempts[0])}`);
    assert.ok(usable(attempts[1]!), `the retry (${step}) is the account`);
    const users = await ctx.db.pool.query('SELECT count(*)::int AS n FROM users WHERE email = $1', [email]);
    assert.is(users.rows[0].n, 1, step);
  }
});

test.run();
