import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ensureKeyFile,
  KEY_FILE,
  MasterKeySource,
  masterKeyOf,
} from '../../../services/secrets/master-key.ts';
import { loadConfig } from '../../../src/config.ts';
import { newDataKey, open, seal } from '../../../src/domain/secrets/envelope.ts';
import { looksLikeMask, maskValue } from '../../../src/domain/secrets/schemas.ts';

const keyText = () => randomBytes(32).toString('base64');

test('masking: bullets alone below 12 characters, else the last 4 (characters, not bytes)', () => {
  assert.is(maskValue('a'), '••••••••');
  assert.is(maskValue('12345678901'), '••••••••');
  assert.is(maskValue('123456789012'), '••••••••9012');
  assert.is(maskValue('😀😀😀😀😀😀😀😀😀😀😀'), '••••••••', '11 characters, 44 bytes');
  assert.is(maskValue('sk-😀😀😀😀😀😀😀😀😀'), '••••••••😀😀😀😀');
  for (const value of ['x', 'a-longer-value-1234', '€€€€€€€€€€€€€€'])
    assert.ok(looksLikeMask(maskValue(value)));
  assert.not.ok(looksLikeMask('•••••••'));
  assert.not.ok(looksLikeMask('••••••••abcde'));
  assert.not.ok(looksLikeMask('x••••••••abcd'));
});

test('a sealed text opens with its key and context only; any change fails to open', () => {
  const key = newDataKey();
  const sealed = seal(key, Buffer.from('the value'), 'context a');
  assert.is(open(key, sealed, 'context a').toString(), 'the value');
  assert.not.ok(sealed.includes('the value'));
  assert.is.not(seal(key, Buffer.from('the value'), 'context a'), sealed, 'a fresh IV each time');
  assert.throws(() => open(newDataKey(), sealed, 'context a'));
  assert.throws(() => open(key, sealed, 'context b'));
  const bytes = Buffer.from(sealed, 'base64url');
  bytes[bytes.length - 1]! ^= 1;
  assert.throws(() => open(key, bytes.toString('base64url'), 'context a'));
  assert.throws(() => open(key, 'c2hvcnQ', 'context a'));
});

test('SECRETS_MASTER_KEY must be 32 bytes of base64; the config error never shows it', () => {
  const good = keyText();
  assert.is(loadConfig({ SECRETS_MASTER_KEY: good }).SECRETS_MASTER_KEY, good);
  for (const bad of ['short', randomBytes(16).toString('base64'), `${good}x`]) {
    try {
      loadConfig({ SECRETS_MASTER_KEY: bad });
      assert.unreachable(bad);
    } catch (error) {
      assert.match((error as Error).message, /SECRETS_MASTER_KEY/);
      assert.not.ok((error as Error).message.includes(bad));
    }
  }
  const previous = [keyText(), keyText()];
  assert.equal(
    loadConfig({ SECRETS_PREVIOUS_MASTER_KEYS: previous.join(', ') }).SECRETS_PREVIOUS_MASTER_KEYS,
    previous,
  );
  assert.throws(
    () => loadConfig({ SECRETS_PREVIOUS_MASTER_KEYS: `${previous[0]},nope` }),
    /SECRETS_PREVIOUS_MASTER_KEYS/,
  );
});

test('no SECRETS_MASTER_KEY: a key file is generated once under DATA_DIR, mode 0600, and kept', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'stk-key-'));
  try {
    const config = loadConfig({ DATA_DIR: join(dir, 'data') });
    // Several processes starting at once make one file between them.
    const rings = await Promise.all([1, 2, 3].map(() => new MasterKeySource(config).keyring()));
    const path = join(dir, 'data', KEY_FILE);
    assert.is((await stat(path)).mode & 0o777, 0o600);
    assert.equal(new Set(rings.map((r) => r.current.id)).size, 1);
    const again = await new MasterKeySource(config).keyring();
    assert.is(again.current.id, rings[0]!.current.id);
    assert.not.ok(
      (await readFile(path, 'utf8')).includes(rings[0]!.current.id),
      'the file holds keys, not ids',
    );
    await writeFile(path, 'not a key\n');
    const refused = await new MasterKeySource(config).keyring().then(
      () => undefined,
      (error: Error) => error.message,
    );
    assert.match(refused ?? '', /not a secrets master key file/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('SECRETS_MASTER_KEY wraps; previous keys and a key file left behind are still read', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'stk-key-'));
  try {
    const [fileKey] = await ensureKeyFile(join(dir, KEY_FILE));
    const current = keyText();
    const previous = keyText();
    const source = new MasterKeySource(
      loadConfig({ DATA_DIR: dir, SECRETS_MASTER_KEY: current, SECRETS_PREVIOUS_MASTER_KEYS: previous }),
    );
    assert.is(source.kind, 'environment');
    const ring = await source.keyring();
    assert.is(ring.current.id, masterKeyOf(current).id);
    assert.equal(
      ring.all.map((k) => k.id),
      [masterKeyOf(current).id, masterKeyOf(previous).id, fileKey!.id],
    );
    assert.is((await source.find(fileKey!.id))?.id, fileKey!.id);
    assert.is(await source.find('0000000000000000'), undefined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
