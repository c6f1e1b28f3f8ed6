import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TABLES } from '../../../projections/tables/tables.ts';
import { createAuthenticator } from '../../../src/auth/authenticator.ts';
import { createPool } from '../../../src/db/pool.ts';
import { service } from '../../../src/modules.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { type ServedApp, serveApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { createTable } from '../../support/tables.ts';

interface Context {
  db: TestDatabase;
  served: ServedApp;
  key: string;
}

const test = suite<Context>('a table locked past the statement bound: 503, then back when released');

/** Far below the default, so that the test waits little; the lock is held until every answer came. */
const STATEMENT_TIMEOUT_MS = 300;

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  const pool = createPool(ctx.db.url, { statementTimeoutMs: STATEMENT_TIMEOUT_MS, connectTimeoutMs: 5000 });
  ctx.served = await serveApp(
    { url: ctx.db.url, pool },
    { projections: service.projections, routes: service.routes, authenticator: createAuthenticator },
  );
  ctx.key = (await bootstrapAccount(ctx.served.url)).apiKey;
});

test.after(async (ctx) => {
  await ctx.served.close();
  await ctx.served.deps.pool.end();
  await ctx.db.drop();
});

/** Holds `LOCK TABLE <table> IN ACCESS EXCLUSIVE MODE` from a connection of its own while `fn` runs. */
async function whileLocked<T>(db: TestDatabase, table: string, fn: () => Promise<T>): Promise<T> {
  const holder = await db.pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    return await fn();
  } finally {
    await holder.query('ROLLBACK');
    holder.release();
  }
}

const readyz = async (url: string) => (await fetch(`${url}/readyz`)).status;

test('reads of a locked read model answer 503 while the lock is held, and succeed after', async (ctx) => {
  const { url } = ctx.served;
  const id = await createTable(url, ctx.key, 'Locked');
  const answers = await whileLocked(ctx.db, TABLES, () =>
    // Answered while the lock is still held: unbounded, they would wait for the ROLLBACK for ever.
    Promise.all(
      Array.from({ length: 8 }, () => call(url, 'GET', `/api/tables/${id}`, { headers: bearer(ctx.key) })),
    ),
  );
  for (const res of answers) {
    assert.is(res.status, 503, JSON.stringify(res.body));
    assert.is(res.body.code, 'unavailable');
    assert.is(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.ok(res.headers['retry-after']);
  }
  const after = await call(url, 'GET', `/api/tables/${id}`, { headers: bearer(ctx.key) });
  assert.is(after.status, 200);
  assert.is(after.body.name, 'Locked');
});

test('writes over a locked log answer 503 and change nothing; the runners come back after', async (ctx) => {
  const { url } = ctx.served;
  const id = await createTable(url, ctx.key, 'Before');
  const answers = await whileLocked(ctx.db, 'events', () =>
    Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(url, 'PATCH', `/api/tables/${id}`, { headers: bearer(ctx.key), body: { name: `During ${i}` } }),
      ),
    ),
  );
  for (const res of answers) {
    assert.is(res.status, 503, JSON.stringify(res.body));
    assert.is(res.body.code, 'unavailable');
  }
  // Their live tails timed out too: the runners retry, and are back once the log can be read.
  await eventually('/readyz to be ready again', async () => (await readyz(url)) === 200);
  const unchanged = await call(url, 'GET', `/api/tables/${id}`, { headers: bearer(ctx.key) });
  assert.is(unchanged.body.name, 'Before');
  const renamed = await call(url, 'PATCH', `/api/tables/${id}`, {
    headers: bearer(ctx.key),
    body: { name: 'After' },
  });
  assert.is(renamed.status, 200);
  assert.is((await call(url, 'GET', `/api/tables/${id}`, { headers: bearer(ctx.key) })).body.name, 'After');
});

test.run();
