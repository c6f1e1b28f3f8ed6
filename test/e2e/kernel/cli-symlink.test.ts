import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { accounts, bootstrapAccount } from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { runStk } from '../../support/cli.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

interface Ctx {
  t: TestApp;
  dir: string;
  /** `<tmp>/bin/stk`, laid out as `npm link` lays it out: a link to a link to the checkout. */
  stk: string;
}

/*
 * `npm link`, `npm install -g` and `npx stk` start the CLI through a symbolic link to bin/stk.js. It
 * once printed nothing and exited 0 that way (main.ts ran only when it recognised its own path in
 * process.argv[1], which is the link's path).
 */
const test = suite<Ctx>('e2e: stk started through a symbolic link, as npm installs it');

test.before(async (ctx) => {
  ctx.t = await startTestApp({
    projections: accounts.projections,
    routes: accounts.routes,
    authenticator: accounts.authenticator,
  });
  ctx.dir = await mkdtemp(join(tmpdir(), 'stk-link-'));
  const packageDir = join(ctx.dir, 'lib', 'node_modules', 'stk-service');
  await mkdir(join(ctx.dir, 'lib', 'node_modules'), { recursive: true });
  await mkdir(join(ctx.dir, 'bin'));
  await symlink(ROOT, packageDir, 'dir');
  ctx.stk = join(ctx.dir, 'bin', 'stk');
  await symlink(join(packageDir, 'bin', 'stk.js'), ctx.stk);
});

test.after(async (ctx) => {
  await ctx.t.close();
  await rm(ctx.dir, { recursive: true, force: true });
});

/** The linked stk, with no saved login of the user's to pick up. */
const linked = (ctx: Ctx, args: string[], env: Record<string, string> = {}) =>
  runStk(args, { executable: ctx.stk, env: { STK_CONFIG: join(ctx.dir, 'config.json'), ...env } });

test('stk --help prints the usage and exits 0', async (ctx) => {
  const res = await linked(ctx, ['--help']);
  assert.is(res.code, 0, res.stderr);
  assert.match(res.stdout, /^Usage: stk /);
  assert.match(res.stdout, 'whoami');
});

test('stk whoami without a key is a usage error: exit 2, saying so', async (ctx) => {
  const res = await linked(ctx, ['whoami']);
  assert.is(res.code, 2);
  assert.match(res.stderr, 'no API key');
});

test('stk whoami against the running service shows the account of the key', async (ctx) => {
  const account = await bootstrapAccount(ctx.t.url, { organization_name: 'Linked' });
  const res = await linked(ctx, ['whoami'], { STK_BASE_URL: ctx.t.url, STK_API_KEY: account.apiKey });
  assert.is(res.code, 0, res.stderr);
  assert.match(res.stdout, account.email);
  assert.match(res.stdout, 'Linked');
});

test.run();
