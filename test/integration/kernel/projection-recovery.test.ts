import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { advisoryLockHeld, lockKeys } from '../../../src/projection/locks.ts';
import { ProjectionRunner } from '../../../src/projection/runner.ts';
import { eventually } from '../../support/eventually.ts';
import type { TestDatabase } from '../../support/postgres.ts';
import { closeStore, openStore, type StoreContext } from '../../support/store.ts';
import { COUNTED, counterProjection, readModel } from '../../support/test-projections.ts';

const test = suite<StoreContext>('projection runner: recovers from lost connections by itself');

test.before.each(openStore);
test.after.each(closeStore);

/** What an operator's pg_terminate_backend (or a database restart) does: every other session of the database goes. */
async function terminateOtherSessions(db: TestDatabase): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );
  return rows[0]!.n;
}

const listening = async (db: TestDatabase) => {
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND query LIKE 'LISTEN %'`,
  );
  return rows[0]!.n;
};

test('lock, live tail and LISTEN come back after their sessions are terminated', async ({ db, store }) => {
  const states: string[] = [];
  const runner = new ProjectionRunner(counterProjection('phoenix'), store, db.pool, { standbyRetryMs: 50 });
  await runner.start();
  try {
    const first = await store.append('phoenix-1', [{ type: COUNTED, data: { by: 1 } }]);
    await runner.waitFor(first.position, 10_000);
    await eventually('the LISTEN connection', async () => (await listening(db)) === 1);

    const watch = setInterval(() => {
      if (states.at(-1) !== runner.currentState) states.push(runner.currentState);
    }, 1);
    try {
      assert.ok((await terminateOtherSessions(db)) >= 2, 'expected the lock and LISTEN sessions');
      await eventually('the runner to notice and retry', () => states.includes('retrying'));
      await eventually('the runner to run again', () => runner.currentState === 'running');
    } finally {
      clearInterval(watch);
    }
    assert.ok(await advisoryLockHeld(db.pool, lockKeys.runner('phoenix')), 'the lock is taken again');
    await eventually('LISTEN again', async () => (await listening(db)) === 1);
    assert.is(runner.lastError, undefined);

    // Following live again: what is appended now is applied.
    const second = await store.append('phoenix-2', [{ type: COUNTED, data: { by: 2 } }]);
    await runner.waitFor(second.position, 10_000);
    const model = await readModel(db.pool, 'phoenix');
    assert.equal(
      model.counts.map((c) => [c.stream, Number(c.total)]),
      [
        ['phoenix-1', 1],
        ['phoenix-2', 2],
      ],
    );
    assert.is(model.applied.length, 2, 'each event applied once');
  } finally {
    await runner.stop();
  }
});

test.run();
