import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { TABLES } from '../../../projections/tables/tables.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import { createPool, type PoolLimits } from '../../../src/db/pool.ts';
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

/** The whole service over a fresh database, its pool bounded by `limits`, with an account. */
function serving(limits: PoolLimits) {
  return {
    before: async (ctx: Context) => {
      ctx.db = await freshDatabase();
      const pool = createPool(ctx.db.url, limits);
      ctx.served = await serveApp(
        { url: ctx.db.url, pool },
        { projections: service.projections, routes: service.routes, authenticator: createAuthenticator },
      );
      ctx.key = (await bootstrapAccount(ctx.served.url)).apiKey;
    },
    after: async (ctx: Context) => {
      await ctx.served.close();
      await ctx.served.deps.pool.end();
      await ctx.db.drop();
    },
  };
}

const bounded = serving({ statementTimeoutMs: STATEMENT_TIMEOUT_MS, connectTimeoutMs: 5000 });
test.before(bounded.before);
test.after(bounded.after);

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

const exhausted = suite<Context>('a pool exhausted behind a lock: the wait for a connection is bounded too');
// A long statement bound and a small pool: the requests that find no free connection are the ones
// answered first, by the bound on the wait for one.
const small = serving({ max: 3, connectTimeoutMs: 500, statementTimeoutMs: 60_000 });
exhausted.before(small.before);
exhausted.after(small.after);

exhausted('requests waiting for a connection answer 503 while the lock holds the others', async (ctx) => {
  const { url } = ctx.served;
  const id = await createTable(url, ctx.key, 'Pooled');
  const answers: Awaited<ReturnType<typeof call>>[] = [];
  const all = await whileLocked(ctx.db, TABLES, async () => {
    const requests = Array.from({ length: 10 }, () =>
      call(url, 'GET', `/api/tables/${id}`, { headers: bearer(ctx.key) }).then((res) => {
        answers.push(res);
        return res;
      }),
    );
    // Unbounded, none would answer before the lock is released.
    await eventually('a 503 while the lock is held', () => answers.some((a) => a.status === 503));
    return requests;
  });
  for (const res of await Promise.all(all)) {
    assert.ok([200, 503].includes(res.status), `${res.status} ${JSON.stringify(res.body)}`);
    if (res.status === 503) assert.is(res.body.code, 'unavailable');
  }
  await eventually('a read to succeed after the lock', async () => {
    const res = await call(url, 'GET', `/api/tables/${id}`, { headers: bearer(ctx.key) });
    return res.status === 200 && res.body.name === 'Pooled';
  });
});

exhausted.run();
