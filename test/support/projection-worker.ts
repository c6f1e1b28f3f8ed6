/**
 * One projection runner in a process of its own, for tests that kill it with real signals: runs the
 * counter projection (test-projections.ts) over DATABASE_URL until SIGTERM, and prints a JSON line
 * {"state": ...} whenever the runner's state changes.
 *
 * Environment: DATABASE_URL, PROJECTION (name), BATCH_SIZE, DELAY_MS (per batch, inside its
 * transaction), STANDBY_RETRY_MS.
 */
import { createPool } from '../../src/db/pool.ts';
import { PostgresEventStore } from '../../src/event-store/postgres.ts';
import { ProjectionRunner } from '../../src/projection/runner.ts';
import { counterProjection } from './test-projections.ts';
import { testRegistry } from './test-streams.ts';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

const pool = createPool(env('DATABASE_URL'));
const store = new PostgresEventStore(pool, testRegistry);
const projection = counterProjection(env('PROJECTION', 'counter'), { delayMs: Number(env('DELAY_MS', '0')) });
const runner = new ProjectionRunner(projection, store, pool, {
  batchSize: Number(env('BATCH_SIZE', '500')),
  standbyRetryMs: Number(env('STANDBY_RETRY_MS', '1000')),
  onError: (error, context) => console.error(JSON.stringify({ error: String(error), context })),
});

let reported = '';
const report = () => {
  if (runner.currentState === reported) return;
  reported = runner.currentState;
  console.log(JSON.stringify({ state: reported }));
};

await runner.start();
report();
const watch = setInterval(report, 5);

process.once('SIGTERM', async () => {
  clearInterval(watch);
  await runner.stop();
  await store.close();
  await pool.end();
  process.exit(0);
});
