import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { startService } from '../../../app/service.ts';
import { loadConfig } from '../../../src/config.ts';
import { startEmbeddedPostgres } from '../../../src/db/embedded.ts';
import { alive } from '../../../src/db/embedded-leftover.ts';
import { createPool } from '../../../src/db/pool.ts';
import { newTableId } from '../../../src/domain/tables/ids.ts';
import { tableStream } from '../../../src/domain/tables/table-state.ts';
import { PostgresEventStore } from '../../../src/event-store/postgres.ts';
import type { RouteModule } from '../../../src/http/routes.ts';
import { createLogger } from '../../../src/logger.ts';
import { eventually } from '../../support/eventually.ts';
import { freshDatabase } from '../../support/postgres.ts';
import { startServiceProcess } from '../../support/service-process.ts';
import { testRegistry } from '../../support/test-streams.ts';

const test = suite('service lifecycle');

/** The embedded server's pid and port, from the postmaster.pid PostgreSQL keeps in its data directory. */
async function postmaster(dataDir: string): Promise<{ pid: number; port: number } | undefined> {
  const content = await readFile(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').catch(() => undefined);
  if (!content) return undefined;
  const lines = content.split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

/**
 * Opens the running embedded server's event store (the service's own database), with the service's
 * registry: an event of a type the service does not know would stop its read models at it (they
 * retry, and /readyz rightly says so).
 */
async function withStore<T>(dataDir: string, fn: (store: PostgresEventStore) => Promise<T>): Promise<T> {
  const server = await postmaster(dataDir);
  assert.ok(server, 'the embedded server wrote no postmaster.pid');
  const pool = createPool(`postgres://postgres:postgres@127.0.0.1:${server.port}/postgres`);
  const store = new PostgresEventStore(pool, service.registry);
  try {
    return await fn(store);
  } finally {
    await store.close();
    await pool.end();
  }
}

const MARKER_TABLE = newTableId();
const markerIds = (store: PostgresEventStore) =>
  store.readStream(tableStream.name(MARKER_TABLE)).then((events) => events.map((e) => e.id));

test('embedded defaults: serves, stops cleanly on SIGTERM, survives a SIGKILL, keeps its data', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'stk-lifecycle-'));
  // Blank values count as unset: whatever the test run's environment holds, this is the embedded default.
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', EVENTSTORE_URL: '' };
  const pids = new Set<number>();
  try {
    const first = await startServiceProcess(env);
    const health = await fetch(`${first.url}/healthz`);
    assert.is(health.status, 200);
    assert.equal(await health.json(), { status: 'ok' });
    const ready = await fetch(`${first.url}/readyz`);
    assert.is(ready.status, 200);
    assert.is((await ready.json()).status, 'ready');

    const server1 = (await postmaster(dataDir))!;
    pids.add(server1.pid);
    const marker = randomUUID();
    await withStore(dataDir, (store) =>
      store.append(tableStream.name(MARKER_TABLE), [
        {
          id: marker,
          type: 'TableCreated',
          data: {
            tableId: MARKER_TABLE,
            organizationId: 'org-lifecycle',
            name: 'marker',
            at: new Date().toISOString(),
          },
        },
      ]),
    );

    assert.is(await first.stop('SIGTERM'), 0, first.output());
    assert.not.ok(alive(server1.pid), 'the embedded PostgreSQL outlived the service');
    assert.is(await postmaster(dataDir), undefined, 'postmaster.pid left behind');
    assert.match(first.output(), '"msg":"stopped"');

    // Same data directory: the same data.
    const second = await startServiceProcess(env);
    const server2 = (await postmaster(dataDir))!;
    pids.add(server2.pid);
    assert.equal(await withStore(dataDir, markerIds), [marker]);

    // Killed outright, the service cannot stop its PostgreSQL: it is left running on the data directory.
    assert.is(await second.stop('SIGKILL'), null);
    assert.ok(alive(server2.pid), 'expected the embedded PostgreSQL to be orphaned by a SIGKILL');

    const third = await startServiceProcess(env);
    const server3 = (await postmaster(dataDir))!;
    pids.add(server3.pid);
    assert.not.ok(alive(server2.pid), 'the orphaned PostgreSQL is still running');
    assert.is.not(server3.pid, server2.pid);
    assert.is((await fetch(`${third.url}/readyz`)).status, 200);
    assert.equal(await withStore(dataDir, markerIds), [marker]);
    assert.is(await third.stop('SIGTERM'), 0, third.output());
    assert.not.ok(alive(server3.pid));
  } finally {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGINT');
    await eventually('test servers to stop', () => [...pids].every((pid) => !alive(pid)));
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('a stale postmaster.pid does not stop the embedded server; a server in use is left alone', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'stk-stale-pid-'));
  try {
    const first = await startEmbeddedPostgres(dataDir);
    const pidFile = join(dataDir, 'pg', 'postmaster.pid');
    const content = await readFile(pidFile, 'utf8');
    // A server whose process is alive (this one) is in use, not left over: it is not touched.
    const second = await startEmbeddedPostgres(dataDir).then(
      () => undefined,
      (e: Error) => e,
    );
    assert.match(String(second?.message), /in use by a running PostgreSQL/);
    const pool = createPool(first.url);
    assert.is((await pool.query('SELECT 1 AS one')).rows[0].one, 1);
    await pool.end();
    await first.stop();

    const gone = spawn(process.execPath, ['-e', '']);
    const gonePid = gone.pid!;
    await new Promise((r) => gone.once('exit', r));
    // The pid of a process that has exited, then of a live process that is not PostgreSQL.
    for (const pid of [gonePid, process.pid]) {
      await writeFile(pidFile, content.replace(/^\d+/, String(pid)));
      const again = await startEmbeddedPostgres(dataDir);
      const pool = createPool(again.url);
      try {
        const { rows } = await pool.query('SELECT 1 AS one');
        assert.is(rows[0].one, 1);
      } finally {
        await pool.end();
        await again.stop();
      }
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('closing the service lets an in-flight request finish, with its database, and refuses new ones', async () => {
  const db = await freshDatabase();
  let entered!: () => void;
  const inside = new Promise<void>((r) => {
    entered = r;
  });
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  const slow: RouteModule = (app, deps) => {
    app.get('/test/slow', { config: { access: 'public' } }, async () => {
      entered();
      await released;
      const { rows } = await deps.pool.query('SELECT count(*)::int AS n FROM events');
      return { done: true, events: rows[0].n };
    });
  };
  const config = loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' });
  const service = await startService(config, createLogger('silent'), {
    composition: { features: [], registry: testRegistry, projections: [], routes: [slow], workers: [] },
  });
  try {
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
    const pending = fetch(`${url}/test/slow`);
    await inside;
    let closed = false;
    const closing = service.close().then(() => {
      closed = true;
    });
    await eventually('the server to stop listening', () => !service.app.server.listening);
    const late = await fetch(`${url}/healthz`).then(
      (res) => res.status,
      () => 'refused',
    );
    assert.ok(late === 'refused' || late === 503, `a new request got ${late}`);
    assert.not.ok(closed, 'close finished while a request was in flight');
    release();
    const res = await pending;
    assert.is(res.status, 200);
    assert.equal(await res.json(), { done: true, events: 0 });
    await closing;
  } finally {
    release();
    await service.close().catch(() => {});
    await db.drop();
  }
});

test.run();
