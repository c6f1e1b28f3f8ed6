import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import { DATA_KEYS, type DataKeyRow, unwrapDataKey } from '../../../services/secrets/data-keys.ts';
import { KEY_FILE, MasterKeySource, masterKeyOf, readKeyFile } from '../../../services/secrets/master-key.ts';
import { rotateMasterKey } from '../../../services/secrets/rotation.ts';
import { loadConfig } from '../../../src/config.ts';
import { createPool } from '../../../src/db/pool.ts';
import { serveApp } from '../../support/app.ts';
import {
  newMasterKeyText,
  putSecret,
  runSecretsSuite,
  type SecretsContext,
  secretsSuite,
} from '../../support/secrets.ts';

// No SECRETS_MASTER_KEY: the app reads (and makes) the key file under its DATA_DIR.
const test = secretsSuite('secrets: rotating the master key while the service reads and writes', {
  SECRETS_MASTER_KEY: '',
});

const masterIds = async (ctx: SecretsContext) =>
  (
    await ctx.t.db.pool.query<{ id: string }>(`SELECT DISTINCT master_key_id AS id FROM ${DATA_KEYS}`)
  ).rows.map((r) => r.id);

/** Another process of the service on the same database, with its own pool and settings. */
async function anotherProcess(ctx: SecretsContext, env: Record<string, string>) {
  const pool = createPool(ctx.t.db.url, 5);
  const served = await serveApp(
    { url: ctx.t.db.url, pool },
    {
      projections: service.projections,
      routes: service.routes,
      authenticator: createAuthenticator,
      env: { DATA_DIR: ctx.dataDir, SECRETS_MASTER_KEY: '', ...env },
    },
  );
  return {
    ...served,
    close: async () => {
      await served.close();
      await pool.end();
    },
  };
}

test('key file: rotate under a stream of writes and reads; every key moves, the file keeps the new key only', async (ctx) => {
  const { t, key, account } = ctx;
  const vault = t.deps.parts.vault;
  const values = new Map<string, string>();
  for (let i = 0; i < 30; i++) {
    const value = ctx.value(`-${i}`);
    values.set(`BEFORE_${i}`, value);
    assert.is((await putSecret(t.app, key, `BEFORE_${i}`, value)).status, 201);
  }
  const path = join(ctx.dataDir, KEY_FILE);
  const [oldKey] = (await readKeyFile(path))!;
  assert.equal(await masterIds(ctx), [oldKey!.id]);

  // The service keeps writing and resolving while the operator rotates.
  let running = true;
  let round = 0;
  const failures: string[] = [];
  const traffic = (async () => {
    while (running) {
      const name = `DURING_${round++}`;
      const value = ctx.value(`-d${round}`);
      const put = await putSecret(t.app, key, name, value);
      if (put.status !== 201) failures.push(`PUT ${name}: ${put.status}`);
      else values.set(name, value);
      const read = `BEFORE_${round % 30}`;
      const got = await vault.resolveSecret(account.organizationId, read).catch((e: Error) => e.message);
      if (got !== values.get(read)) failures.push(`resolve ${read}: ${got}`);
    }
  })();
  const report = await rotateMasterKey(t.db.pool, new MasterKeySource(loadConfig({ DATA_DIR: ctx.dataDir })));
  running = false;
  await traffic;
  assert.equal(failures, []);
  assert.ok(round > 0);

  assert.is(report.source, 'file');
  assert.is.not(report.masterKeyId, oldKey!.id);
  assert.ok(report.rewrapped >= 30, String(report.rewrapped));
  assert.equal(report.unknown, {});
  const fileKeys = (await readKeyFile(path))!;
  assert.equal(
    fileKeys.map((k) => k.id),
    [report.masterKeyId],
  );
  assert.equal(await masterIds(ctx), [report.masterKeyId]);
  // The old key opens no data key any more; the running service reads every secret, old and new.
  const { rows } = await t.db.pool.query<DataKeyRow>(
    `SELECT key_id, master_key_id, wrapped_key FROM ${DATA_KEYS}`,
  );
  for (const row of rows) assert.throws(() => unwrapDataKey({ ...oldKey!, id: row.master_key_id }, row));
  for (const [name, value] of values)
    assert.is(await vault.resolveSecret(account.organizationId, name), value);
  const after = ctx.value('-after');
  assert.is((await putSecret(t.app, key, 'AFTER', after)).status, 201);
  assert.equal(await masterIds(ctx), [report.masterKeyId]);
  assert.not.ok((await readFile(path, 'utf8')).includes(oldKey!.key.toString('base64')));
});

test('environment: roll onto the new key with the old as previous, rotate, then drop the old', async (ctx) => {
  const { account } = ctx;
  const first = newMasterKeyText();
  const second = newMasterKeyText();
  const before = await anotherProcess(ctx, { SECRETS_MASTER_KEY: first });
  const rolled = await anotherProcess(ctx, {
    SECRETS_MASTER_KEY: second,
    SECRETS_PREVIOUS_MASTER_KEYS: first,
  });
  const last = await anotherProcess(ctx, { SECRETS_MASTER_KEY: second });
  try {
    const old = ctx.value('-old');
    const fresh = ctx.value('-new');
    assert.is((await putSecret(before.app, ctx.key, 'ENV_OLD', old)).status, 201);
    assert.is((await putSecret(rolled.app, ctx.key, 'ENV_NEW', fresh)).status, 201);
    const resolve = (p: typeof before, name: string) =>
      p.deps.parts.vault.resolveSecret(account.organizationId, name);
    // Rolled: the old key still reads what it wrapped.
    assert.is(await resolve(rolled, 'ENV_OLD'), old);
    // Without the old key, a process cannot read it yet: 503, never a wrong value.
    const refused = await resolve(last, 'ENV_OLD').catch((e: { code?: string }) => e.code);
    assert.is(refused, 'unavailable');

    const config = loadConfig({
      DATA_DIR: ctx.dataDir,
      SECRETS_MASTER_KEY: second,
      SECRETS_PREVIOUS_MASTER_KEYS: first,
    });
    const report = await rotateMasterKey(ctx.t.db.pool, new MasterKeySource(config));
    assert.is(report.source, 'environment');
    assert.is(report.masterKeyId, masterKeyOf(second).id);
    assert.ok(report.rewrapped >= 1);
    assert.equal(report.unknown, {});
    assert.is(await resolve(last, 'ENV_OLD'), old);
    assert.is(await resolve(last, 'ENV_NEW'), fresh);

    // A rotation not given the key some data keys are under reports them, and changes nothing of theirs.
    const third = newMasterKeyText();
    const blind = await rotateMasterKey(
      ctx.t.db.pool,
      new MasterKeySource(loadConfig({ DATA_DIR: ctx.dataDir, SECRETS_MASTER_KEY: third })),
    );
    assert.is(blind.rewrapped, 0);
    assert.ok((blind.unknown[masterKeyOf(second).id] ?? 0) > 0);
    assert.is(await resolve(last, 'ENV_NEW'), fresh);
  } finally {
    for (const p of [before, rolled, last]) await p.close();
  }
});

runSecretsSuite(test);
