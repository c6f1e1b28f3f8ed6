import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type CliRun, runStk } from '../../support/cli.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { type ServiceProcess, startServiceProcess } from '../../support/service-process.ts';

interface Ctx {
  db: TestDatabase;
  service: ServiceProcess;
  dir: string;
  config: string;
  rootKey: string;
  secrets: string[];
}

const test = suite<Ctx>('e2e: the stk client against the running service');

/** Runs `stk` with this suite's config file, as a user would (no key or base URL of ours leaks in). */
function stk(
  ctx: Ctx,
  args: string[],
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<CliRun> {
  return runStk(args, { env: { STK_CONFIG: ctx.config, ...options.env }, input: options.input ?? '' });
}

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.service = await startServiceProcess({ DATABASE_URL: ctx.db.url, LOG_LEVEL: 'trace' });
  ctx.dir = await mkdtemp(join(tmpdir(), 'stk-cli-'));
  ctx.config = join(ctx.dir, 'nested', 'config.json');
  ctx.secrets = [];
});
test.after(async (ctx) => {
  await ctx.service.stop();
  await rm(ctx.dir, { recursive: true, force: true });
  await ctx.db.drop();
});

test('stk bootstrap creates the account, prints the key once and saves it in a 0600 file', async (ctx) => {
  const password = 'a long enough password';
  ctx.secrets.push(password);
  const res = await stk(ctx, [
    '--base-url',
    ctx.service.url,
    'bootstrap',
    '--email',
    'Cli@Example.com',
    '--password',
    password,
    '--organization-name',
    'CLI Org',
    '--first-name',
    'Cli',
  ]);
  assert.is(res.code, 0, res.stderr);
  const key = /stk_[0-9a-f]{20}\.[A-Za-z0-9_-]+/.exec(res.stdout)?.[0];
  assert.ok(key, res.stdout);
  ctx.rootKey = key!;
  ctx.secrets.push(key!);
  assert.match(res.stdout, '50 credits');
  const saved = JSON.parse(await readFile(ctx.config, 'utf8'));
  assert.equal(saved, { baseUrl: ctx.service.url, apiKey: key });
  assert.is((await stat(ctx.config)).mode & 0o777, 0o600);
});

test('stk whoami uses the saved login; --json prints the API answer', async (ctx) => {
  const human = await stk(ctx, ['whoami']);
  assert.is(human.code, 0, human.stderr);
  assert.match(human.stdout, 'cli@example.com');
  assert.match(human.stdout, 'CLI Org');
  const json = await stk(ctx, ['--json', 'whoami']);
  assert.is(json.code, 0, json.stderr);
  const me = JSON.parse(json.stdout);
  assert.is(me.organization.balance, 50);
  assert.is(me.userData.email, 'cli@example.com');
});

test('stk keys create / list / revoke; the revoked key is refused at once', async (ctx) => {
  const created = await stk(ctx, [
    '--json',
    'keys',
    'create',
    '--name',
    'ci',
    '--scope',
    'tables:read',
    '--scope',
    'keys:read',
  ]);
  assert.is(created.code, 0, created.stderr);
  const { apiKey, keyMetadata } = JSON.parse(created.stdout);
  ctx.secrets.push(apiKey);
  assert.equal(keyMetadata.scopes, ['tables:read', 'keys:read']);

  const list = await stk(ctx, ['keys', 'list']);
  assert.is(list.code, 0, list.stderr);
  assert.match(list.stdout, /^ID\s+NAME\s+STATUS/);
  assert.match(list.stdout, new RegExp(`${keyMetadata.id}\\s+ci\\s+active`));
  assert.not.match(list.stdout, apiKey.split('.')[1]);

  // The flag beats the environment, which beats the saved config.
  const viaEnv = await stk(ctx, ['--json', 'whoami'], { env: { STK_API_KEY: apiKey } });
  assert.is(JSON.parse(viaEnv.stdout).keyMetadata.id, keyMetadata.id);
  const viaFlag = await stk(ctx, ['--json', '--api-key', ctx.rootKey, 'whoami'], {
    env: { STK_API_KEY: apiKey },
  });
  assert.is.not(JSON.parse(viaFlag.stdout).keyMetadata.id, keyMetadata.id);

  // The narrow key may not grant what it lacks: the problem detail is printed, exit 1.
  const escalate = await stk(ctx, ['keys', 'create', '--name', 'x', '--scope', 'secrets:read'], {
    env: { STK_API_KEY: apiKey },
  });
  assert.is(escalate.code, 1);
  assert.match(escalate.stderr, 'missing_scope');
  assert.match(escalate.stderr, 'keys:write');

  const revoked = await stk(ctx, ['keys', 'revoke', keyMetadata.id]);
  assert.is(revoked.code, 0, revoked.stderr);
  const refused = await stk(ctx, ['whoami'], { env: { STK_API_KEY: apiKey } });
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /unknown or revoked.*401 unauthorized/);
  const listed = await stk(ctx, ['keys', 'list']);
  assert.match(listed.stdout, new RegExp(`${keyMetadata.id}\\s+ci\\s+revoked`));
});

test('an API error prints its problem detail and exits 1', async (ctx) => {
  const taken = await stk(ctx, [
    'bootstrap',
    '--email',
    'CLI@example.com',
    '--password',
    'another long password',
    '--organization-name',
    'Other',
    '--no-save',
  ]);
  assert.is(taken.code, 1);
  assert.match(taken.stderr, 'exists already');
  assert.match(taken.stderr, '409 email_taken');
  const invalid = await stk(ctx, [
    'bootstrap',
    '--email',
    'nope',
    '--password',
    'short',
    '--organization-name',
    'X',
    '--no-save',
  ]);
  assert.is(invalid.code, 1);
  assert.match(invalid.stderr, 'password:');
});

test('usage errors exit 2: an unknown command, a missing flag, an unknown scope, no key at all', async (ctx) => {
  assert.is((await stk(ctx, ['frobnicate'])).code, 2);
  assert.is((await stk(ctx, ['whoami', 'stray-argument'])).code, 2);
  assert.is((await stk(ctx, ['keys', 'create', '--scope', 'tables:read'])).code, 2);
  assert.is((await stk(ctx, ['keys', 'create', '--name', 'n', '--scope', 'bogus:scope'])).code, 2);
  const noKey = await stk({ ...ctx, config: join(ctx.dir, 'empty.json') }, ['whoami']);
  assert.is(noKey.code, 2);
  assert.match(noKey.stderr, 'stk login');
  const noPassword = await stk(ctx, [
    'bootstrap',
    '--email',
    'x@example.com',
    '--organization-name',
    'X',
    '--no-save',
  ]);
  assert.is(noPassword.code, 2);
  assert.match(noPassword.stderr, '--password-stdin');
});

test('stk login checks the key and saves it; bootstrap reads a password from stdin', async (ctx) => {
  const other = { ...ctx, config: join(ctx.dir, 'other', 'config.json') };
  const password = 'password from standard input';
  ctx.secrets.push(password);
  const boot = await stk(
    other,
    [
      '--base-url',
      ctx.service.url,
      '--json',
      'bootstrap',
      '--email',
      'stdin@example.com',
      '--organization-name',
      'Stdin',
      '--password-stdin',
      '--no-save',
    ],
    { input: `${password}\n` },
  );
  assert.is(boot.code, 0, boot.stderr);
  const { apiKey } = JSON.parse(boot.stdout);
  ctx.secrets.push(apiKey);
  assert.is(await readFile(other.config, 'utf8').catch(() => 'absent'), 'absent');

  const bad = await stk(other, ['--base-url', ctx.service.url, '--api-key', `${apiKey}x`, 'login']);
  assert.is(bad.code, 1);
  const login = await stk(other, ['--base-url', ctx.service.url, '--api-key', apiKey, 'login']);
  assert.is(login.code, 0, login.stderr);
  assert.equal(JSON.parse(await readFile(other.config, 'utf8')), { baseUrl: ctx.service.url, apiKey });
  const me = await stk(other, ['--json', 'whoami']);
  assert.is(JSON.parse(me.stdout).userData.email, 'stdin@example.com');
});

test('the service logged every request and none of the keys or passwords', async (ctx) => {
  const log = ctx.service.output();
  assert.match(log, '"msg":"request"');
  for (const secret of ctx.secrets) assert.not.ok(log.includes(secret), 'a credential was logged');
  assert.not.match(log, /stk_[0-9a-f]{20}\./);
});

test.run();
