import * as assert from 'uvu/assert';
import { secretsProjection } from '../../../projections/secrets/secrets.ts';
import { DATA_KEYS, type DataKeyRow, unwrapDataKey } from '../../../services/secrets/data-keys.ts';
import { type MasterKey, masterKeyOf } from '../../../services/secrets/master-key.ts';
import type { Pool } from '../../../src/db/pool.ts';
import { open, valueContext } from '../../../src/domain/secrets/envelope.ts';
import type { SecretValueSet } from '../../../src/domain/secrets/events.ts';
import { secretStream } from '../../../src/domain/secrets/secret-state.ts';
import { rebuildProjection } from '../../../src/projection/rebuild.ts';
import { bearer, call } from '../../support/accounts.ts';
import { putSecret, runSecretsSuite, secretPath, secretsSuite } from '../../support/secrets.ts';

/*
 * Crypto-shredding, proven the way an attacker holding a dump of the database and the master key
 * would try: every table as text (the events' raw data included), and every ciphertext of the log
 * against every data key left in the database. Before the delete, the same method recovers the value
 * (so the method works); after it, nothing does, and a rebuild of the read model brings nothing back.
 */

const test = secretsSuite('secrets: deleting or replacing a value shreds it (log, rebuild, dump)');

/** Every table of the database's schema, each row as text. */
async function everyTableAsText(pool: Pool): Promise<Map<string, string>> {
  const { rows: tables } = await pool.query<{ name: string }>(
    `SELECT quote_ident(table_name) AS name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  const out = new Map<string, string>();
  for (const { name } of tables) {
    const { rows } = await pool.query<{ row: string }>(`SELECT t::text AS row FROM ${name} t`);
    out.set(name, rows.map((r) => r.row).join('\n'));
  }
  return out;
}

/** The tables holding any of `needles`, by needle. */
async function foundIn(pool: Pool, needles: string[]): Promise<string[]> {
  const tables = await everyTableAsText(pool);
  assert.ok(
    tables.has('events') && tables.has(DATA_KEYS) && tables.has('workspace_secrets'),
    [...tables.keys()].join(),
  );
  return needles.flatMap((needle) =>
    [...tables]
      .filter(([, text]) => text.includes(needle))
      .map(([table]) => `${needle.slice(0, 12)}… in ${table}`),
  );
}

/** Whatever the log's ciphertexts of this secret decrypt to with any data key left in the database. */
async function recoverable(pool: Pool, master: MasterKey, events: SecretValueSet[]): Promise<string[]> {
  const { rows } = await pool.query<DataKeyRow>(
    `SELECT key_id, master_key_id, wrapped_key FROM ${DATA_KEYS}`,
  );
  const keys = rows.map((row) => ({ keyId: row.key_id, key: unwrapDataKey(master, row) }));
  const found: string[] = [];
  for (const event of events) {
    for (const { keyId, key } of keys) {
      // The context names the key the event was sealed under; any other key is tried under it too.
      const contexts = new Set([
        valueContext(event.organizationId, event.name, event.keyId),
        valueContext(event.organizationId, event.name, keyId),
      ]);
      for (const context of contexts) {
        try {
          found.push(open(key, event.ciphertext, context).toString('utf8'));
        } catch {
          // not this key
        }
      }
    }
  }
  return found;
}

test('replace, then delete, then rebuild: each destroyed value is found nowhere and decrypts with nothing', async (ctx) => {
  const { t, key, account } = ctx;
  const pool = t.db.pool;
  const master = masterKeyOf(ctx.masterKey);
  const stream = secretStream.name(account.organizationId, 'SHREDDED');
  const setEvents = async () =>
    (await t.deps.store.readStream(stream))
      .filter((e) => e.type === 'SecretValueSet')
      .map((e) => e.data as SecretValueSet);
  const dataKeyOf = async (keyId: string) => {
    const { rows } = await pool.query<DataKeyRow>(
      `SELECT key_id, master_key_id, wrapped_key FROM ${DATA_KEYS} WHERE key_id = $1`,
      [keyId],
    );
    return { row: rows[0]!, key: unwrapDataKey(master, rows[0]!) };
  };
  // What an attacker could look for: the value, its tail, its data key, the wrapped key's text.
  const tracesOf = async (value: string, keyId: string) => {
    const { row, key: dataKey } = await dataKeyOf(keyId);
    return [value, value.slice(-8), dataKey.toString('base64'), dataKey.toString('hex'), row.wrapped_key];
  };

  const first = ctx.value('-first-TAIL');
  await putSecret(t.app, key, 'SHREDDED', first);
  const [v1] = await setEvents();
  const firstTraces = await tracesOf(first, v1!.keyId);
  // Before: the method recovers the value, and the table holds the data key (wrapped) and the mask.
  assert.equal(await recoverable(pool, master, [v1!]), [first]);
  assert.equal(await foundIn(pool, [first]), []);
  assert.ok((await foundIn(pool, [firstTraces.at(-1)!])).length > 0);

  const second = ctx.value('-second-TAIL');
  assert.is((await putSecret(t.app, key, 'SHREDDED', second)).status, 200);
  const [, v2] = await setEvents();
  const secondTraces = await tracesOf(second, v2!.keyId);
  assert.equal(await recoverable(pool, master, [v1!, v2!]), [second]);
  assert.equal(await foundIn(pool, firstTraces), []);

  assert.is((await call(t.app, 'DELETE', secretPath('SHREDDED'), { headers: bearer(key) })).status, 204);
  const afterDelete = async () => {
    assert.equal(await recoverable(pool, master, await setEvents()), []);
    assert.equal(
      await foundIn(pool, [...firstTraces, ...secondTraces, '•'.repeat(8) + second.slice(-4)]),
      [],
    );
    const { rows } = await pool.query(
      `SELECT 1 FROM ${DATA_KEYS} WHERE organization_id = $1 AND secret_name = $2`,
      [account.organizationId, 'SHREDDED'],
    );
    assert.is(rows.length, 0);
  };
  await afterDelete();
  // The log still holds both ciphertexts: they are what is left, and they are noise.
  assert.is((await setEvents()).length, 2);

  await rebuildProjection(t.deps.store, pool, secretsProjection, { actor: 'test' });
  await afterDelete();
  assert.is((await call(t.app, 'GET', secretPath('SHREDDED'), { headers: bearer(key) })).status, 404);
});

test('other secrets keep their keys: a rebuild shows them with their masks and they still resolve', async (ctx) => {
  const { t, key, account } = ctx;
  const kept = ctx.value('KEPT');
  await putSecret(t.app, key, 'KEPT', kept);
  await rebuildProjection(t.deps.store, t.db.pool, secretsProjection, { actor: 'test' });
  const got = await call(t.app, 'GET', secretPath('KEPT'), { headers: bearer(key) });
  assert.is(got.body.maskedValue, '••••••••KEPT');
  assert.is(await t.deps.parts.vault.resolveSecret(account.organizationId, 'KEPT'), kept);
});

runSecretsSuite(test);
