import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TABLES } from '../../../projections/tables/tables.ts';
import { type EmbeddedDatabase, freePort, startEmbeddedPostgres } from '../../../src/db/embedded.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { emailOf, mailer, scheduledEmail } from '../../support/fault-workload.ts';
import { Services } from '../../support/process-faults.ts';
import { Load, REQUEST_BOUND_MS, send } from '../../support/request-load.ts';
import { insertRows } from '../../support/rows.ts';
import { type CountingTarget, httpColumnTable, runEnded, startTarget } from '../../support/runs.ts';
import type { ServiceProcess } from '../../support/service-process.ts';
import { startSmtp } from '../../support/smtp.ts';
import { createTable } from '../../support/tables.ts';
import { Receiver, subscribe } from '../../support/webhooks.ts';

/**
 * The service against its database going away, and against a pool exhausted by slow statements: it
 * answers 503 problems within its bounds (never a 500, never a hang), /readyz says why, and when the
 * database is back everything resumes by itself: the read models, a column run, webhook deliveries and
 * a scheduled email; nothing acknowledged is lost.
 */
interface Ctx {
  dir: string;
  port: number;
  database?: EmbeddedDatabase;
  services: Services;
  service: ServiceProcess;
  key: string;
  smtp: Awaited<ReturnType<typeof startSmtp>>;
  target: CountingTarget;
  receiver: Receiver;
}

const test = suite<Ctx>('reliability: database faults');

/** A column run across the outage: its calls answer slowly, so that it is still going when the database stops. */
const RUN_ROWS = 30;
/** Row-created messages to deliver across the outage (the run's rows are some of them). */
const MORE_ROWS = 200;

test.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'stk-db-faults-'));
  // Its own server, data directory and port: stopping it leaves the suite's database alone.
  ctx.port = await freePort();
  ctx.database = await startEmbeddedPostgres(join(ctx.dir, 'db'), { port: ctx.port });
  ctx.smtp = await startSmtp();
  ctx.target = await startTarget({ delayMs: 300 });
  ctx.receiver = await Receiver.start();
  ctx.receiver.delayMs = 20;
  ctx.services = new Services({
    DATABASE_URL: ctx.database.url,
    DATA_DIR: join(ctx.dir, 'service'),
    EVENTSTORE_URL: '',
    DB_CONNECT_TIMEOUT_MS: '1000',
    DB_STATEMENT_TIMEOUT_MS: '5000',
    SMTP_URL: ctx.smtp.url,
    WEBHOOK_RETRY_SCHEDULE: '0,1,2',
    // The target and the receiver are on loopback, which the SSRF guard refuses unless told.
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    OUTBOUND_RATE_PER_HOST: '100000',
  });
  ctx.service = await ctx.services.start();
  ctx.key = (await bootstrapAccount(ctx.service.url)).apiKey;
});
test.after(async (ctx) => {
  await ctx.services.close();
  await ctx.database?.stop();
  await ctx.smtp.close();
  await ctx.target.close();
  await ctx.receiver.close();
  await rm(ctx.dir, { recursive: true, force: true });
});

const readiness = async (url: string) => {
  const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
  return { status: res.status, body: await res.json() };
};

/** A column run, webhook deliveries and a scheduled email, all under way or due during the outage. */
async function backgroundWork(ctx: Ctx) {
  const { url } = ctx.service;
  await subscribe(url, ctx.key, { url: ctx.receiver.url, eventTypes: ['row.created'] });
  const { tableId, columns } = await httpColumnTable(url, ctx.key, ctx.target.url, 2);
  const rows = [
    ...(await insertRows(
      url,
      ctx.key,
      tableId,
      Array.from({ length: RUN_ROWS }, (_, i) => ({ n: String(i) })),
    )),
    // On a table of their own: the run covers its table's rows, within the starter credits.
    ...(await insertRows(
      url,
      ctx.key,
      await createTable(url, ctx.key),
      Array.from({ length: MORE_ROWS }, () => ({})),
    )),
  ];
  const run = await call(url, 'POST', `/api/tables/${tableId}/columns/${columns.result.id}/run`, {
    headers: bearer(ctx.key),
    body: { scope: 'all' },
  });
  assert.is(run.status, 202, JSON.stringify(run.body));
  const member = await mailer(url, ctx.key, 'faults@ours.example');
  const taskId = await scheduledEmail(
    url,
    ctx.key,
    member,
    'ada@faults.example',
    new Date(Date.now() + 2000),
  );
  return { rowIds: rows.map((r) => r.id as string), runId: run.body.id as string, taskId };
}

test('PostgreSQL stopped and started under load: 503s meanwhile, then everything back by itself', async (ctx) => {
  const { url } = ctx.service;
  const load = new Load(url, ctx.key);
  try {
    load.start(6);
    await eventually('a few writes to land', () => load.created.length >= 10);
    const work = await backgroundWork(ctx);
    assert.equal([...load.statuses('up').keys()].sort(), ['200', '201'], 'before the outage');

    load.phase = 'down';
    await ctx.database!.stop();
    ctx.database = undefined;
    // Every write answers a 503 problem now, within its bound; none a 500, none hangs.
    await eventually('writes to answer 503', () =>
      load.answers.some((a) => a.phase === 'down' && a.answer.status === 503),
    );
    const down = await eventually('/readyz to say why it is not ready', async () => {
      const r = await readiness(url);
      return r.status === 503 && /retrying/.test(r.body.checks.projections.detail ?? '') ? r : undefined;
    });
    assert.is(down.body.status, 'not_ready');
    assert.is(down.body.checks.database.ok, false);
    const during = load.answers.length;
    await eventually('more answers during the outage', () => load.answers.length >= during + 20);
    assert.is((await fetch(`${url}/healthz`)).status, 200, 'liveness during the outage');
    assert.is(ctx.service.child.exitCode, null, ctx.service.output());
    // Due while the database is down: sent once it is back.
    assert.not.ok(
      ctx.smtp.received.some((m) => m.to.includes('ada@faults.example')),
      'sent while down',
    );

    load.phase = 'back';
    ctx.database = await startEmbeddedPostgres(join(ctx.dir, 'db'), { port: ctx.port });
    await eventually(
      'writes to succeed again',
      () => load.answers.some((a) => a.phase === 'back' && a.answer.status === 201),
      60_000,
    );
    await eventually('/readyz to be ready again', async () => (await readiness(url)).status === 200, 60_000);
    load.phase = 'after';
    const after = load.answers.length;
    await eventually('writes after recovery', () => load.answers.length >= after + 30, 60_000);
    await load.stop();
    load.report(['up', 'down', 'back', 'after']);

    for (const phase of ['down', 'back'])
      for (const { what, answer } of load.answers.filter((a) => a.phase === phase)) {
        assert.ok(
          [200, 201, 503].includes(answer.status as number),
          `${phase}: ${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`,
        );
        if (answer.status === 503) {
          assert.is(answer.body.code, 'unavailable');
          assert.ok(answer.retryAfter, 'Retry-After');
        }
      }
    assert.ok((load.statuses('down').get('503') ?? 0) > 0, 'no 503 during the outage');
    assert.equal([...load.statuses('after').keys()].sort(), ['200', '201'], 'after recovery');

    // The read models follow again: a rename shows at once on the next read (read-your-writes).
    const id = load.created[0]!;
    const renamed = await send(url, ctx.key, 'PATCH', `/api/tables/${id}`, { name: 'after the outage' });
    assert.is(renamed.status, 200);
    assert.is((await send(url, ctx.key, 'GET', `/api/tables/${id}`)).body.name, 'after the outage');
    load.names.acked(id, 'after the outage');

    // Nothing acknowledged is lost: every acknowledged create is there, with its last acknowledged
    // name or one tried after it (a write cut off by the outage may or may not have landed).
    for (const table of load.names.ids()) {
      const res = await send(url, ctx.key, 'GET', `/api/tables/${table}`);
      assert.is(res.status, 200, `table ${table} acknowledged but missing`);
      const possible = load.names.possible(table)!;
      assert.ok(possible.includes(res.body.name), `table ${table}: ${res.body.name}, acked ${possible[0]}`);
    }

    // The background work resumed by itself: the run finished every row, every row-created message
    // arrived, the scheduled email went out once.
    const run = await runEnded(url, ctx.key, work.runId, 120_000);
    assert.is(run.status, 'succeeded', JSON.stringify(run));
    assert.is(run.counts.succeeded, RUN_ROWS, JSON.stringify(run.counts));
    await eventually(
      'every row-created message',
      () => {
        const delivered = new Set(ctx.receiver.received.map((r) => JSON.parse(r.body).data.rowId));
        return work.rowIds.every((id) => delivered.has(id));
      },
      120_000,
    );
    const sent = await eventually(
      'the scheduled email sent',
      async () => {
        const email = await emailOf(url, ctx.key, work.taskId);
        return email.status === 'sent' ? email : undefined;
      },
      120_000,
    );
    assert.ok(sent.messageId);
    assert.is(ctx.smtp.received.filter((m) => m.to.includes('ada@faults.example')).length, 1);
    assert.is(ctx.service.child.exitCode, null);
  } catch (error) {
    // The service's side of a failure: its last log lines.
    console.error(ctx.service.output().slice(-8000));
    throw error;
  } finally {
    await load.stop();
  }
});

test('a pool exhausted by statements stuck on a lock: a bounded wait, then 503, then back', async (ctx) => {
  const { url } = ctx.service;
  const id = (await send(url, ctx.key, 'POST', '/api/tables', { name: 'Pooled' })).body.id;
  // More requests than the pool's 20 connections: those holding one wait on the lock until the
  // statement bound, the others wait for a connection until the connect bound.
  const holder = new pg.Client(ctx.database!.url);
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE ${TABLES} IN ACCESS EXCLUSIVE MODE`);
    // Answered while the lock is still held: unbounded, they would wait for the ROLLBACK for ever.
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => send(url, ctx.key, 'GET', `/api/tables/${id}`)),
    );
    for (const answer of answers) {
      assert.is(answer.status, 503, JSON.stringify(answer.body));
      assert.is(answer.body.code, 'unavailable');
      assert.ok(answer.retryAfter, 'Retry-After');
    }
    assert.is((await fetch(`${url}/healthz`)).status, 200, 'liveness while the pool is exhausted');
  } finally {
    await holder.query('ROLLBACK');
    await holder.end();
  }
  const after = await send(url, ctx.key, 'GET', `/api/tables/${id}`);
  assert.is(after.status, 200);
  assert.is(after.body.name, 'Pooled');
  // After both faults it still shuts down cleanly.
  assert.is(await ctx.service.stop('SIGTERM'), 0, ctx.service.output());
});

test.run();
