import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  bootstrapBody,
  bootstrapAccount as runBootstrap,
} from '../../../commands/accounts/bootstrap-account.ts';
import { TAKEOVER_GRACE_MS } from '../../../src/domain/accounts/streams.ts';
import type { EventStore } from '../../../src/event-store/port.ts';
import {
  accounts,
  bearer,
  bootstrapAttempts,
  call,
  someClientAddress,
  undone,
  usable,
} from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';

/*
 * A bootstrap appends five times: the reservation of the address, the organization (with its 50
 * credits), the user, the key, and the completion. Each of those fails here in turn (a store that
 * throws on its Nth append); whatever the step, the address can sign up again and exactly one usable
 * account exists in the end. The crash of the process between steps is test/e2e/reliability/process-faults/bootstrap.test.ts.
 */

interface Ctx {
  t: TestApp;
  store: EventStore;
  /** Milliseconds added to the app's clock. */
  later: number;
}

const test = suite<Ctx>('accounts: a bootstrap that fails leaves nothing behind');

const STEPS = ['reservation', 'organization', 'user', 'key', 'completion'];
const PASSWORD = 'correct horse battery staple';

/**
 * The app's store, failing from the `from`-th append of the next bootstrap on: only that append
 * (`until` = from), or every one after it too (the database gone). `committed` lets the failing append
 * land before it throws (the answer lost on the way back).
 */
function failAppends(ctx: Ctx, from: number, options: { until?: number; committed?: boolean } = {}) {
  let n = 0;
  const until = options.until ?? from;
  ctx.t.deps.store = new Proxy(ctx.store, {
    get(target, name, receiver) {
      if (name !== 'append') return Reflect.get(target, name, receiver);
      return async (...args: Parameters<EventStore['append']>) => {
        n++;
        if (n < from || n > until) return target.append(...args);
        if (options.committed) await target.append(...args);
        throw new Error(`injected failure of append ${n}`);
      };
    },
  });
}

const bootstrap = (t: TestApp, email: string, password = PASSWORD) =>
  call(t.app, 'POST', '/api/auth/agent-bootstrap', {
    headers: { 'x-forwarded-for': someClientAddress() },
    body: { email, password, organization_name: 'Engines' },
  });

/** Exactly one usable account for `email`, every other attempt undone, in the log and the read models. */
async function exactlyOneAccount(ctx: Ctx, email: string, apiKey: string) {
  const attempts = await bootstrapAttempts(ctx.store, email);
  assert.is(attempts.filter(usable).length, 1, JSON.stringify(attempts));
  for (const attempt of attempts.filter((a) => !usable(a)))
    assert.ok(undone(attempt), JSON.stringify(attempt));
  const me = await call(ctx.t.app, 'GET', '/api/me', { headers: bearer(apiKey) });
  assert.is(me.status, 200);
  assert.is(me.body.organization.balance, 50);
  const pool = ctx.t.db.pool;
  await eventually('the read models show one account', async () => {
    const users = await pool.query('SELECT count(*)::int AS n FROM users WHERE email = $1', [email]);
    const orgs = await pool.query(
      'SELECT count(*)::int AS n FROM organizations WHERE organization_id = ANY($1)',
      [attempts.map((a) => a.organizationId)],
    );
    return users.rows[0].n === 1 && orgs.rows[0].n === 1;
  });
}

test.before(async (ctx) => {
  ctx.later = 0;
  ctx.t = await startTestApp({
    ...accounts,
    env: { BOOTSTRAP_RATE_LIMIT: '1000' },
    clock: () => new Date(Date.now() + ctx.later),
  });
  ctx.store = ctx.t.deps.store;
});
test.after.each((ctx) => {
  ctx.t.deps.store = ctx.store;
});
test.after(async (ctx) => {
  await ctx.t.close();
});

STEPS.forEach((step, i) => {
  test(`the ${step} fails: answered 500, undone, and a retry of the address succeeds`, async (ctx) => {
    const email = `fails-at-${step}@example.com`;
    failAppends(ctx, i + 1);
    const failed = await bootstrap(ctx.t, email);
    assert.is(failed.status, 500, JSON.stringify(failed.body));
    ctx.t.deps.store = ctx.store;

    const attempts = await bootstrapAttempts(ctx.store, email);
    assert.is(attempts.length, i === 0 ? 0 : 1);
    assert.ok(attempts.every(undone), JSON.stringify(attempts));
    const retry = await bootstrap(ctx.t, email);
    assert.is(retry.status, 201, JSON.stringify(retry.body));
    await exactlyOneAccount(ctx, email, retry.body.apiKey);
  });
});

test('when the undoing fails too, the owner retrying takes the unfinished attempt over at once', async (ctx) => {
  const email = 'undo-fails@example.com';
  failAppends(ctx, 3, { until: Number.POSITIVE_INFINITY }); // the user step, and everything after it
  assert.is((await bootstrap(ctx.t, email)).status, 500);
  ctx.t.deps.store = ctx.store;
  const [left] = await bootstrapAttempts(ctx.store, email);
  assert.ok(
    left && left.organization.balance === 50 && !left.organization.abandoned,
    'left with its credits',
  );

  const stranger = await bootstrap(ctx.t, email, 'another password entirely');
  assert.is(stranger.status, 409);
  assert.is(stranger.body.code, 'email_taken');
  assert.match(stranger.body.detail, 'not finished');
  const owner = await bootstrap(ctx.t, email);
  assert.is(owner.status, 201, JSON.stringify(owner.body));
  await exactlyOneAccount(ctx, email, owner.body.apiKey);
  const abandoned = (await ctx.store.readStream(`organization-${left.organizationId}`)).at(-1);
  assert.equal(abandoned?.data, {
    organizationId: left.organizationId,
    reason: 'taken_over',
    creditsWithdrawn: 50,
  });
});

test('another password takes an unfinished attempt over only after the grace period', async (ctx) => {
  const email = 'grace@example.com';
  failAppends(ctx, 2, { until: Number.POSITIVE_INFINITY });
  assert.is((await bootstrap(ctx.t, email)).status, 500);
  ctx.t.deps.store = ctx.store;
  ctx.later = TAKEOVER_GRACE_MS - 60_000;
  assert.is((await bootstrap(ctx.t, email, 'a stranger password')).status, 409);
  ctx.later = TAKEOVER_GRACE_MS;
  try {
    const stranger = await bootstrap(ctx.t, email, 'a stranger password');
    assert.is(stranger.status, 201, JSON.stringify(stranger.body));
    await exactlyOneAccount(ctx, email, stranger.body.apiKey);
  } finally {
    ctx.later = 0;
  }
});

test('a finished account is never taken over, nor undone by a failure after its completion landed', async (ctx) => {
  const email = 'finished@example.com';
  failAppends(ctx, 5, { committed: true });
  assert.is((await bootstrap(ctx.t, email)).status, 500);
  ctx.t.deps.store = ctx.store;
  const [attempt] = await bootstrapAttempts(ctx.store, email);
  assert.ok(attempt && usable(attempt), JSON.stringify(attempt));

  ctx.later = 24 * 3_600_000;
  try {
    for (const password of [PASSWORD, 'a stranger password']) {
      const res = await bootstrap(ctx.t, email, password);
      assert.is(res.status, 409);
      assert.match(res.body.detail, 'exists already');
    }
  } finally {
    ctx.later = 0;
  }
  // Its owner gets a key by logging in.
  const login = await call(ctx.t.app, 'POST', '/api/auth/login', {
    headers: { 'x-forwarded-for': someClientAddress() },
    body: { email, password: PASSWORD, key_name: 'after the lost answer' },
  });
  assert.is(login.status, 201, JSON.stringify(login.body));
  await exactlyOneAccount(ctx, email, login.body.apiKey);
});

test('a bootstrap still at work is not taken over: the same address is refused until it ends', async (ctx) => {
  const email = 'at-work@example.com';
  const input = bootstrapBody.parse({ email, password: PASSWORD, organization_name: 'Slow' });
  let resume!: () => void;
  let paused!: () => void;
  const reachedUser = new Promise<void>((r) => {
    paused = r;
  });
  const slow = runBootstrap(ctx.t.deps, input, 'slow-request', async (step) => {
    if (step !== 'user') return;
    paused();
    await new Promise<void>((r) => {
      resume = r;
    });
  });
  await reachedUser;
  const retry = await bootstrap(ctx.t, email);
  assert.is(retry.status, 409);
  assert.match(retry.body.detail, 'in progress');
  resume();
  const { answer } = await slow;
  await exactlyOneAccount(ctx, email, answer.apiKey);
});

test.run();
