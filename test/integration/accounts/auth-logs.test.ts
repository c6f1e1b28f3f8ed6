import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hashSecret, parseKey } from '../../../src/auth/keys.ts';
import {
  accounts,
  bearer,
  bootstrapAccount,
  call,
  issueKey,
  someClientAddress,
} from '../../support/accounts.ts';
import { startTestApp } from '../../support/app.ts';

const test = suite('auth: no key, secret, password or hash is ever logged');

test('a session of bootstraps, keys, good and bad requests leaves no credential in the log', async () => {
  const lines: string[] = [];
  const t = await startTestApp({
    ...accounts,
    env: { LOG_LEVEL: 'trace' },
    logTo: { write: (line: string) => void lines.push(line) },
  });
  const { url, db } = t;
  try {
    const secrets: string[] = [];
    const account = await bootstrapAccount(url);
    secrets.push(account.password);
    // A refused bootstrap (short password) and a duplicate one carry passwords too.
    const short = 'short-pw-1';
    await call(url, 'POST', '/api/auth/agent-bootstrap', {
      headers: { 'x-forwarded-for': someClientAddress() },
      body: { email: 'x@example.com', password: short, organization_name: 'X' },
    });
    const dupPassword = 'duplicate password 42';
    await call(url, 'POST', '/api/auth/agent-bootstrap', {
      headers: { 'x-forwarded-for': someClientAddress() },
      body: { email: account.email, password: dupPassword, organization_name: 'X', extra: true },
    });
    secrets.push(short, dupPassword);

    const issued = await issueKey(url, account.apiKey, ['tables:read', 'keys:read']);
    const keys = [account.apiKey, issued.apiKey];
    await call(url, 'GET', '/api/me', { headers: { 'x-api-key': issued.apiKey } });
    await call(url, 'GET', '/api/keys', { headers: bearer(issued.apiKey) });
    await call(url, 'POST', '/api/keys', {
      headers: bearer(issued.apiKey),
      body: { name: 'n', scopes: ['keys:read'] },
    });
    const wrong = `${account.apiKey.split('.')[0]}.${'A'.repeat(43)}`;
    keys.push(wrong, 'Bearer-garbage-key-value');
    await call(url, 'GET', '/api/me', { headers: bearer(wrong) });
    await call(url, 'GET', '/api/me', { headers: { 'x-api-key': 'Bearer-garbage-key-value' } });
    await call(url, 'DELETE', `/api/keys/${issued.keyId}`, { headers: bearer(account.apiKey) });
    await call(url, 'GET', '/api/me', { headers: bearer(issued.apiKey) });

    for (const key of keys) {
      secrets.push(key);
      const parsed = parseKey(key);
      if (parsed) secrets.push(parsed.secret, hashSecret(parsed.secret));
    }
    const { rows } = await db.pool.query(
      "SELECT data->>'passwordHash' AS h FROM events WHERE type = 'UserRegistered'",
    );
    for (const row of rows) secrets.push(row.h, row.h.split('$').at(-1));

    const log = lines.join('');
    // The capture works: every request above left its line.
    assert.ok(lines.filter((l) => l.includes('"msg":"request"')).length >= 10, log);
    assert.match(log, '"status":401');
    for (const secret of secrets) assert.not.ok(log.includes(secret), `logged: ${secret.slice(0, 6)}...`);
    assert.not.match(log, /stk_[0-9a-f]{20}\.[A-Za-z0-9_-]/);
    assert.not.match(log, /scrypt\$/);
  } finally {
    await t.close();
  }
});

test.run();
