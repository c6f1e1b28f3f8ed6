import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createAuthenticator } from '../../src/auth/authenticator.ts';
import { hashSecret, parseKey } from '../../src/auth/keys.ts';
import { loadConfig } from '../../src/config.ts';
import { PostgresEventStore } from '../../src/event-store/postgres.ts';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/logger.ts';
import { Projections } from '../../src/projection/projections.ts';
import {
  accounts,
  bearer,
  bootstrapAccount,
  call,
  issueKey,
  someClientAddress,
} from '../support/accounts.ts';
import { freshDatabase } from '../support/postgres.ts';

const test = suite('auth: no key, secret, password or hash is ever logged');

test('a session of bootstraps, keys, good and bad requests leaves no credential in the log', async () => {
  const lines: string[] = [];
  const logger = createLogger('trace', { write: (line: string) => void lines.push(line) });
  const db = await freshDatabase();
  const store = new PostgresEventStore(db.pool);
  const projections = new Projections(store, db.pool, accounts.projections, {
    onError: (error, context) => logger.error({ err: error, projection: context }, 'projection error'),
  });
  await projections.start();
  const app = await buildApp(
    {
      config: loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'trace', TRUST_PROXY: 'true' }),
      store,
      pool: db.pool,
      projections,
      logger,
      clock: () => new Date(),
      authenticate: createAuthenticator(db.pool),
    },
    accounts.routes,
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
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
    await app.close();
    await projections.stop();
    await store.close();
    await db.drop();
  }
});

test.run();
