import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { type CliRun, runStk } from '../../support/cli.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { type ServiceProcess, startServiceProcess } from '../../support/service-process.ts';

interface Ctx {
  db: TestDatabase;
  service: ServiceProcess;
  dir: string;
  key: string;
}

const test = suite<Ctx>('e2e: stk leads and stk sequences against the running service');

function stk(ctx: Ctx, args: string[]): Promise<CliRun> {
  return runStk(args, {
    env: { STK_CONFIG: join(ctx.dir, 'config.json'), STK_BASE_URL: ctx.service.url, STK_API_KEY: ctx.key },
  });
}

async function json(ctx: Ctx, args: string[]) {
  const run = await stk(ctx, ['--json', ...args]);
  assert.is(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.service = await startServiceProcess({ DATABASE_URL: ctx.db.url, LOG_LEVEL: 'warn' });
  ctx.dir = await mkdtemp(join(tmpdir(), 'stk-sequences-cli-'));
  ctx.key = (await bootstrapAccount(ctx.service.url)).apiKey;
});
test.after(async (ctx) => {
  await ctx.service.stop();
  await rm(ctx.dir, { recursive: true, force: true });
  await ctx.db.drop();
});

test('leads list | get; sequences create | activate | pause | archive | clone | list | get | enroll | enrollments', async (ctx) => {
  const made = await call(ctx.service.url, 'POST', '/api/leads', {
    headers: bearer(ctx.key),
    body: { fullName: 'Annie Easley', emailAddresses: ['annie@nasa.gov'], companyDomain: 'nasa.gov' },
  });
  assert.is(made.status, 201);
  const listed = await json(ctx, ['leads', 'list', '--q', 'annie']);
  assert.equal(
    listed.data.map((l: { id: string }) => l.id),
    [made.body.id],
  );
  assert.is((await json(ctx, ['leads', 'get', made.body.id])).fullName, 'Annie Easley');
  const human = await stk(ctx, ['leads', 'get', made.body.id]);
  assert.match(human.stdout, /annie@nasa.gov \[manual\]/);

  const created = await json(ctx, [
    'sequences',
    'create',
    '--name',
    'Welcome',
    '--steps',
    '[{"type":"email","waitDays":0}]',
  ]);
  assert.is(created.status, 'DRAFT');
  assert.is((await json(ctx, ['sequences', 'activate', created.id])).status, 'ACTIVE');
  const enrolled = await json(ctx, [
    'sequences',
    'enroll',
    created.id,
    '--lead',
    made.body.id,
    '--lead',
    'led_nope',
  ]);
  assert.equal(
    enrolled.data.map((o: { outcome: string }) => o.outcome),
    ['enrolled', 'failed'],
  );
  const enrollments = await json(ctx, ['sequences', 'enrollments', created.id]);
  assert.equal(
    enrollments.data.map((e: { leadId: string }) => e.leadId),
    [made.body.id],
  );
  assert.is((await json(ctx, ['sequences', 'get', created.id])).stats.active, 1);
  assert.is((await json(ctx, ['sequences', 'pause', created.id])).status, 'PAUSED');
  const clone = await json(ctx, ['sequences', 'clone', created.id]);
  assert.is(clone.status, 'DRAFT');
  assert.is((await json(ctx, ['sequences', 'archive', created.id])).status, 'ARCHIVED');
  const drafts = await json(ctx, ['sequences', 'list', '--status', 'DRAFT']);
  assert.equal(
    drafts.data.map((s: { id: string }) => s.id),
    [clone.id],
  );
  const refused = await stk(ctx, ['sequences', 'activate', created.id]);
  assert.is.not(refused.code, 0);
  assert.match(refused.stderr, /invalid_transition|ARCHIVED/);
  const table = await stk(ctx, ['sequences', 'list']);
  assert.match(table.stdout, /ARCHIVED\s+1\s+Welcome/);
});

test.run();
