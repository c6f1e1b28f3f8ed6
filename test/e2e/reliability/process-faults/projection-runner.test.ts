import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { comparePositions } from '../../../../src/event-store/port.ts';
import type { PostgresEventStore } from '../../../../src/event-store/postgres.ts';
import { eventually } from '../../../support/eventually.ts';
import type { TestDatabase } from '../../../support/postgres.ts';
import { closeStore, openStore, type StoreContext } from '../../../support/store.ts';
import {
  appendMany,
  buildFromScratch,
  checkpointOf,
  countsFromLog,
  handledCount,
  readModel,
} from '../../../support/test-projections.ts';

/** How long a worker may take to get somewhere: generous, for a machine busy with other suites. */
const LIVENESS_MS = 120_000;

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

interface Worker {
  child: ChildProcess;
  states: string[];
  output(): string;
  exited: Promise<number | null>;
}

/** test/support/projection-worker.ts as a child process: a runner that a test can kill. */
function startWorker(db: TestDatabase, env: Record<string, string>): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/projection-worker.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: db.url, STANDBY_RETRY_MS: '50', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const states: string[] = [];
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
    for (const line of String(chunk).split('\n')) {
      const state = /^\{"state":"(\w+)"\}$/.exec(line.trim())?.[1];
      if (state) states.push(state);
    }
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, states, output: () => output, exited };
}

const current = (w: Worker) => w.states[w.states.length - 1];

async function caughtUp(db: TestDatabase, store: PostgresEventStore, name: string): Promise<boolean> {
  const [row, head] = await Promise.all([checkpointOf(db.pool, name), store.head()]);
  if (!row) return false;
  const at = { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) };
  return comparePositions(at, head) >= 0;
}

/** Everything the log holds is in the read model once, and it equals a rebuild from scratch. */
async function assertExactlyOnce(db: TestDatabase, store: PostgresEventStore, name: string): Promise<void> {
  const model = await readModel(db.pool, name);
  const handled = await handledCount(db.pool);
  assert.is(model.applied.length, handled, 'events missing from the read model');
  const twice = model.applied.filter((r) => r.times !== 1);
  assert.is(twice.length, 0, `${twice.length} events applied more than once`);
  assert.is((await checkpointOf(db.pool, name))?.events_applied, handled);
  assert.equal(model.counts, await countsFromLog(db.pool));
  assert.equal(model, await buildFromScratch(store, db.pool, `${name}_scratch`));
}

const test = suite<StoreContext & { workers: Worker[] }>('projection crash');

test.before.each(async (ctx) => {
  await openStore(ctx);
  ctx.workers = [];
});
test.after.each(async (ctx) => {
  for (const w of ctx.workers)
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  await Promise.all(ctx.workers.map((w) => w.exited));
  await closeStore(ctx);
});

test('SIGKILL mid-stream, restart: the read model equals a rebuild, nothing applied twice', async (ctx) => {
  const { db, store } = ctx;
  await appendMany(store, 20_000, { perAppend: 200 });
  const handled = await handledCount(db.pool);

  // A short pause inside each batch's transaction: the kill most likely lands in an open one.
  const first = startWorker(db, { PROJECTION: 'crash', BATCH_SIZE: '200', DELAY_MS: '5' });
  ctx.workers.push(first);
  await eventually(
    'a fifth of the log to be applied',
    async () => {
      if (first.child.exitCode !== null) throw new Error(`worker exited:\n${first.output()}`);
      return ((await checkpointOf(db.pool, 'crash'))?.events_applied ?? 0) >= handled / 5;
    },
    LIVENESS_MS,
  );
  first.child.kill('SIGKILL');
  assert.is(await first.exited, null, 'killed by the signal');

  const killedAt = await checkpointOf(db.pool, 'crash');
  assert.ok(killedAt && killedAt.events_applied < handled, 'the worker finished before it was killed');
  const rows = await readModel(db.pool, 'crash');
  assert.is(rows.applied.length, killedAt.events_applied, 'rows without their checkpoint survived the kill');

  const second = startWorker(db, { PROJECTION: 'crash', BATCH_SIZE: '500' });
  ctx.workers.push(second);
  await eventually(
    'the restarted runner to catch up',
    async () => {
      if (second.child.exitCode !== null) throw new Error(`worker exited:\n${second.output()}`);
      return caughtUp(db, store, 'crash');
    },
    LIVENESS_MS,
  );
  second.child.kill('SIGTERM');
  assert.is(await second.exited, 0, second.output());
  await assertExactlyOnce(db, store, 'crash');
});

test('two processes started at once: one runs, the other takes over when it dies; each event once', async (ctx) => {
  const { db, store } = ctx;
  await appendMany(store, 5000, { perAppend: 100 });
  const env = { PROJECTION: 'pair', BATCH_SIZE: '100', DELAY_MS: '5' };
  const a = startWorker(db, env);
  const b = startWorker(db, env);
  ctx.workers.push(a, b);
  // Writers keep appending while the two contend.
  const writing = appendMany(store, 3000, { perAppend: 10, prefix: 'during' });

  await eventually('both workers to report', () => a.states.length > 0 && b.states.length > 0, LIVENESS_MS);
  const [active, standby] = current(a) === 'standby' ? [b, a] : [a, b];
  assert.is(current(standby), 'standby', `states: ${a.states} / ${b.states}`);
  assert.is.not(current(active), 'standby');

  await eventually(
    'the active worker to be under way',
    async () => {
      const applied = (await checkpointOf(db.pool, 'pair'))?.events_applied ?? 0;
      return applied >= 1000;
    },
    LIVENESS_MS,
  );
  active.child.kill('SIGKILL');
  await active.exited;
  await writing;
  await eventually(
    'the standby to take over and catch up',
    async () => {
      if (standby.child.exitCode !== null) throw new Error(`worker exited:\n${standby.output()}`);
      return current(standby) !== 'standby' && caughtUp(db, store, 'pair');
    },
    LIVENESS_MS,
  );
  assert.ok(standby.states.indexOf('standby') < standby.states.lastIndexOf(current(standby)!));
  standby.child.kill('SIGTERM');
  assert.is(await standby.exited, 0, standby.output());
  await assertExactlyOnce(db, store, 'pair');
});

test.run();
