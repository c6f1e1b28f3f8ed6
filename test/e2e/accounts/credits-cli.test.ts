import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { organizationStream } from '../../../src/domain/accounts/streams.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { runAdmin } from '../../support/cli.ts';
import { eventually } from '../../support/eventually.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { type ServiceProcess, startServiceProcess } from '../../support/service-process.ts';

interface Ctx {
  db: TestDatabase;
  service: ServiceProcess;
}

const test = suite<Ctx>('e2e: stk admin credits grant, seen in GET /api/me and in the organization history');

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.service = await startServiceProcess({ DATABASE_URL: ctx.db.url, LOG_LEVEL: 'warn' });
});
test.after(async (ctx) => {
  await ctx.service.stop();
  await ctx.db.drop();
});

test('a grant lands on the balance GET /api/me shows, with the operator and reason in the history', async (ctx) => {
  const account = await bootstrapAccount(ctx.service.url);
  const granted = await runAdmin(ctx.db.url, [
    '--json',
    'credits',
    'grant',
    account.organizationId,
    '1200',
    '--reason',
    'pilot for Q3',
  ]);
  assert.is(granted.code, 0, granted.stderr);
  assert.equal(JSON.parse(granted.stdout), {
    organizationId: account.organizationId,
    amount: 1200,
    reason: 'pilot for Q3',
    balance: 1250,
  });
  await eventually('GET /api/me shows the grant', async () => {
    const me = await call(ctx.service.url, 'GET', '/api/me', { headers: bearer(account.apiKey) });
    return me.body.organization.balance === 1250;
  });
  const history = await runAdmin(ctx.db.url, [
    '--json',
    'events',
    'read',
    organizationStream.name(account.organizationId),
  ]);
  assert.is(history.code, 0, history.stderr);
  const grant = JSON.parse(history.stdout).at(-1);
  assert.equal(
    { type: grant.type, data: grant.data, actor: grant.metadata.actor },
    {
      type: 'CreditsGranted',
      data: { organizationId: account.organizationId, amount: 1200, reason: 'pilot for Q3' },
      actor: 'admin:test-operator',
    },
  );
});

test('refused with a message: an unknown organization or an amount out of range (1), a bad command line (2)', async (ctx) => {
  const account = await bootstrapAccount(ctx.service.url);
  const org = account.organizationId;
  const cases: [string[], number, RegExp][] = [
    [['credits', 'grant', 'org_nope', '10', '--reason', 'x'], 1, /No organization org_nope/],
    [['credits', 'grant', org, '0', '--reason', 'x'], 1, /amount: a whole number from 1/],
    [['credits', 'grant', org, '5000000', '--reason', 'x'], 1, /amount: a whole number from 1/],
    [['credits', 'grant', org, '10', '--reason', ' '], 1, /reason/],
    [['credits', 'grant', org, '2.5', '--reason', 'x'], 2, /whole number/],
    [['credits', 'grant', org, '-5', '--reason', 'x'], 2, /unknown option/],
    [['credits', 'grant', org, '10'], 2, /--reason/],
  ];
  for (const [args, code, message] of cases) {
    const run = await runAdmin(ctx.db.url, args);
    assert.is(run.code, code, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
  const me = await call(ctx.service.url, 'GET', '/api/me', { headers: bearer(account.apiKey) });
  assert.is(me.body.organization.balance, 50, 'nothing was granted');
});

test.run();
