import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bootstrapAccount } from '../../support/accounts.ts';
import { type CliRun, runStk } from '../../support/cli.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { type ServiceProcess, startServiceProcess } from '../../support/service-process.ts';

interface Ctx {
  db: TestDatabase;
  service: ServiceProcess;
  dir: string;
  email: string;
  password: string;
}

const test = suite<Ctx>(
  'e2e: stk login with a password, a saved login kept, names that cannot drive the terminal',
);

/** `stk` with the config file `config` (in the suite's folder) and the service's base URL. */
function stk(ctx: Ctx, config: string, args: string[], input = ''): Promise<CliRun> {
  return runStk(['--base-url', ctx.service.url, ...args], {
    env: { STK_CONFIG: join(ctx.dir, config) },
    input,
  });
}

const saved = async (ctx: Ctx, config: string) => JSON.parse(await readFile(join(ctx.dir, config), 'utf8'));

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.service = await startServiceProcess({ DATABASE_URL: ctx.db.url, LOG_LEVEL: 'warn' });
  ctx.dir = await mkdtemp(join(tmpdir(), 'stk-login-'));
  const account = await bootstrapAccount(ctx.service.url);
  ctx.email = account.email;
  ctx.password = account.password;
});
test.after(async (ctx) => {
  await ctx.service.stop();
  await rm(ctx.dir, { recursive: true, force: true });
  await ctx.db.drop();
});

test('stk login --email --password-stdin issues a key and saves it; --scope and --key-name shape it', async (ctx) => {
  const login = await stk(
    ctx,
    'a.json',
    ['login', '--email', ctx.email, '--password-stdin'],
    `${ctx.password}\n`,
  );
  assert.is(login.code, 0, login.stderr);
  const { apiKey } = await saved(ctx, 'a.json');
  assert.match(apiKey, /^stk_[0-9a-f]{20}\./);
  assert.not.ok(login.stdout.includes(apiKey), 'the key is saved, not printed');
  const me = await stk(ctx, 'a.json', ['--json', 'whoami']);
  assert.is(me.code, 0, me.stderr);
  assert.is(JSON.parse(me.stdout).userData.email, ctx.email);
  assert.ok(JSON.parse(me.stdout).keyMetadata.scopes.includes('keys:write'));

  const narrow = await stk(
    ctx,
    'b.json',
    [
      '--json',
      'login',
      '--email',
      ctx.email,
      '--password-stdin',
      '--key-name',
      'ci',
      '--scope',
      'tables:read',
    ],
    ctx.password,
  );
  assert.is(narrow.code, 0, narrow.stderr);
  const answer = JSON.parse(narrow.stdout);
  assert.equal(answer.keyMetadata.scopes, ['tables:read']);
  assert.is(answer.keyMetadata.name, 'ci');
  assert.is((await saved(ctx, 'b.json')).apiKey, answer.apiKey);
});

test('a wrong password exits 1 with the problem; no terminal and no --password-stdin exits 2 naming it', async (ctx) => {
  const wrong = await stk(
    ctx,
    'c.json',
    ['login', '--email', ctx.email, '--password-stdin'],
    'not the password',
  );
  assert.is(wrong.code, 1);
  assert.match(wrong.stderr, '401 invalid_credentials');
  assert.is(await readFile(join(ctx.dir, 'c.json'), 'utf8').catch(() => 'absent'), 'absent');
  const noTerminal = await stk(ctx, 'c.json', ['login', '--email', ctx.email]);
  assert.is(noTerminal.code, 2);
  assert.match(noTerminal.stderr, '--password-stdin');
});

test('stk login --help lists every option the docs give it', async () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const docs = ['docs/api-keys.md', 'README.md'].map((f) => readFile(join(root, f), 'utf8'));
  // `stk [global options] login [options]`, up to a comment or the end of the line or code span.
  const invocation = /\bstk((?:\s+--[a-z-]+(?:\s+[^-\s`]\S*)?)*\s+login\b[^#`\n]*)/g;
  const text = (await Promise.all(docs)).join('\n');
  const commands = [...text.matchAll(invocation)].map((m) => m[1]!);
  const options = new Set(commands.flatMap((c) => c.match(/--[a-z][a-z-]*/g) ?? []));
  assert.ok(options.has('--email') && options.has('--api-key'), [...options].join(' '));
  const help = await runStk(['login', '--help']);
  assert.is(help.code, 0);
  for (const option of options) assert.match(help.stdout, option, `stk login --help lacks ${option}`);
});

test('stk bootstrap keeps a saved login unless --force; it checks before creating anything', async (ctx) => {
  const config = join(ctx.dir, 'kept.json');
  const before = { baseUrl: ctx.service.url, apiKey: 'stk_00000000000000000000.saved-before' };
  await writeFile(config, JSON.stringify(before));
  const args = [
    'bootstrap',
    '--email',
    'second@example.com',
    '--organization-name',
    'Second',
    '--password-stdin',
  ];
  const refused = await stk(ctx, 'kept.json', args, 'a long enough password');
  assert.is(refused.code, 2);
  assert.match(refused.stderr, '--force');
  assert.equal(await saved(ctx, 'kept.json'), before);

  const forced = await stk(ctx, 'kept.json', [...args, '--force'], 'a long enough password');
  assert.is(forced.code, 0, forced.stderr); // the address was not taken by the refused run
  assert.is.not((await saved(ctx, 'kept.json')).apiKey, before.apiKey);
});

/** ESC sequences (clear screen, window title), BEL, DEL, a C1 CSI, a right-to-left override. */
const HOSTILE = '\u001b[2J\u001b]0;owned\u0007Leads\u007f\u009b31m\u202eevil';
// biome-ignore lint/suspicious/noControlCharactersInRegex: what must never reach the terminal raw
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

test('names from the service are printed with their control characters escaped, in tables, records and JSON', async (ctx) => {
  const config = 'hostile.json';
  const login = await stk(ctx, config, ['login', '--email', ctx.email, '--password-stdin'], ctx.password);
  assert.is(login.code, 0, login.stderr);
  const created = await stk(ctx, config, ['tables', 'create', HOSTILE]);
  assert.is(created.code, 0, created.stderr);
  const id = /ID:\s+(\S+)/.exec(created.stdout)?.[1];
  assert.ok(id, created.stdout);
  const key = await stk(ctx, config, ['keys', 'create', '--name', HOSTILE, '--scope', 'tables:read']);
  assert.is(key.code, 0, key.stderr);

  const runs = [
    created,
    key,
    await stk(ctx, config, ['tables', 'list']),
    await stk(ctx, config, ['tables', 'get', id!]),
    await stk(ctx, config, ['keys', 'list']),
  ];
  for (const run of runs) {
    assert.is(run.code, 0, run.stderr);
    assert.not.match(run.stdout, RAW, JSON.stringify(run.stdout));
    assert.match(run.stdout, '\\u001b[2J\\u001b]0;owned\\u0007Leads\\u007f\\u009b31m\\u202eevil');
  }
  const json = await stk(ctx, config, ['--json', 'tables', 'get', id!]);
  assert.not.match(json.stdout, RAW);
  assert.is(JSON.parse(json.stdout).name, HOSTILE, 'the JSON still says what the name is');
});

test.run();
