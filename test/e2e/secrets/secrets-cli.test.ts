import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DATA_KEYS } from '../../../services/secrets/data-keys.ts';
import { KEY_FILE, readKeyFile } from '../../../services/secrets/master-key.ts';
import { bootstrapAccount } from '../../support/accounts.ts';
import { type CliRun, runAdmin, runStk } from '../../support/cli.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { type ServiceProcess, startServiceProcess } from '../../support/service-process.ts';

interface Ctx {
  db: TestDatabase;
  service: ServiceProcess;
  dir: string;
  key: string;
  /** Every value given to stk, and every line stk printed. */
  values: string[];
  printed: string[];
}

const test = suite<Ctx>('e2e: stk secrets and stk admin secrets against the running service');

function stk(ctx: Ctx, args: string[], input?: string): Promise<CliRun> {
  return runStk(args, {
    input,
    env: { STK_CONFIG: join(ctx.dir, 'config.json'), STK_BASE_URL: ctx.service.url, STK_API_KEY: ctx.key },
  }).then((run) => {
    ctx.printed.push(run.stdout, run.stderr);
    return run;
  });
}

const masterKeyIds = async (ctx: Ctx) =>
  (await ctx.db.pool.query<{ id: string }>(`SELECT DISTINCT master_key_id AS id FROM ${DATA_KEYS}`)).rows.map(
    (r) => r.id,
  );

test.before(async (ctx) => {
  ctx.values = [];
  ctx.printed = [];
  ctx.db = await freshDatabase();
  ctx.dir = await mkdtemp(join(tmpdir(), 'stk-secrets-cli-'));
  // No SECRETS_MASTER_KEY: the service generates the key file under its DATA_DIR.
  ctx.service = await startServiceProcess({
    DATABASE_URL: ctx.db.url,
    DATA_DIR: join(ctx.dir, 'data'),
    SECRETS_MASTER_KEY: '',
    LOG_LEVEL: 'trace',
  });
  ctx.key = (await bootstrapAccount(ctx.service.url)).apiKey;
});
test.after(async (ctx) => {
  await ctx.service.stop();
  await rm(ctx.dir, { recursive: true, force: true });
  await ctx.db.drop();
});

test('set reads the value from stdin; list, set --json and delete never print it', async (ctx) => {
  const value = `sk-${randomBytes(12).toString('hex')}-WXYZ`;
  ctx.values.push(value);
  const set = await stk(ctx, ['secrets', 'set', 'API_TOKEN'], `${value}\n`);
  assert.is(set.code, 0, set.stderr);
  assert.match(set.stdout, /Version:\s+1/);
  assert.match(set.stdout, /••••••••WXYZ/);
  const list = await stk(ctx, ['secrets', 'list']);
  assert.is(list.code, 0, list.stderr);
  assert.match(list.stdout, /API_TOKEN\s+1\s+••••••••WXYZ/);
  const json = JSON.parse((await stk(ctx, ['--json', 'secrets', 'list', '--all', '--limit', '1'])).stdout);
  assert.equal(
    json.data.map((s: { name: string; maskedValue: string }) => [s.name, s.maskedValue]),
    [['API_TOKEN', '••••••••WXYZ']],
  );
  const again = `${value}-2`;
  ctx.values.push(again);
  const replaced = JSON.parse((await stk(ctx, ['--json', 'secrets', 'set', 'API_TOKEN'], again)).stdout);
  assert.is(replaced.version, 2);
  assert.is((await stk(ctx, ['secrets', 'delete', 'API_TOKEN'])).code, 0);
  const gone = await stk(ctx, ['secrets', 'delete', 'API_TOKEN']);
  assert.is(gone.code, 1);
  assert.match(gone.stderr, /No secret API_TOKEN\. \(404 not_found\)/);
});

test('a value is never taken as an argument, nor empty', async (ctx) => {
  const asArgument = await stk(ctx, ['secrets', 'set', 'ARG', 'the-value-typed-in-the-shell']);
  assert.is(asArgument.code, 2);
  const empty = await stk(ctx, ['secrets', 'set', 'EMPTY']);
  assert.is(empty.code, 2);
  assert.match(empty.stderr, /the value is empty/);
  const list = JSON.parse((await stk(ctx, ['--json', 'secrets', 'list'])).stdout);
  assert.equal(list.data, []);
});

test('stk admin secrets rotate-master-key: a new key file; the running service wraps under it at once', async (ctx) => {
  const before = `before-${randomBytes(10).toString('hex')}`;
  ctx.values.push(before);
  assert.is((await stk(ctx, ['secrets', 'set', 'ROTATED'], before)).code, 0);
  const path = join(ctx.dir, 'data', KEY_FILE);
  const [oldKey] = (await readKeyFile(path))!;
  assert.equal(await masterKeyIds(ctx), [oldKey!.id]);

  const rotated = await runAdmin(ctx.db.url, ['secrets', 'rotate-master-key'], {
    DATA_DIR: join(ctx.dir, 'data'),
  });
  ctx.printed.push(rotated.stdout, rotated.stderr);
  assert.is(rotated.code, 0, rotated.stderr);
  const [newKey, ...others] = (await readKeyFile(path))!;
  assert.equal(others, []);
  assert.is.not(newKey!.id, oldKey!.id);
  assert.match(
    rotated.stdout,
    new RegExp(`master key ${newKey!.id} \\(the key file .*\\): 1 data key\\(s\\) re-wrapped`),
  );
  assert.equal(await masterKeyIds(ctx), [newKey!.id]);

  // The service process never restarted: its next secret is wrapped under the new key.
  const after = `after-${randomBytes(10).toString('hex')}`;
  ctx.values.push(after);
  assert.is((await stk(ctx, ['secrets', 'set', 'AFTER_ROTATION'], after)).code, 0);
  assert.equal(await masterKeyIds(ctx), [newKey!.id]);
  // And it still reads the rotated one's mask from its key row.
  const list = JSON.parse((await stk(ctx, ['--json', 'secrets', 'list'])).stdout);
  assert.equal(
    list.data.map((s: { name: string }) => s.name),
    ['AFTER_ROTATION', 'ROTATED'],
  );
});

test('no value in anything stk printed, nor in the service log at trace level', (ctx) => {
  const log = ctx.service.output();
  assert.ok(log.includes('"msg":"request"'), 'the service logged its requests');
  const printed = ctx.printed.join('\n');
  for (const value of ctx.values) {
    assert.not.ok(printed.includes(value), `stk printed ${value.slice(0, 8)}…`);
    assert.not.ok(log.includes(value), `the service logged ${value.slice(0, 8)}…`);
  }
});

test.run();
