import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate } from '../../../src/db/migrate.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';

/*
 * The upgrade to one driver per run (migration 0025): runs under way with a work item per row (kind
 * 'run-row', grouped by run) are driven again by their run's item, and their row items are cancelled.
 */
const test = suite<{ db: TestDatabase }>('upgrade: runs under way with row items');
const MIGRATIONS = fileURLToPath(new URL('../../../src/migrations', import.meta.url));

/**
 * Back to the schema before migration 0025: every migration from 0025 on undone, newest first (so every
 * later migration needs a down step that really undoes it, or this test stops here).
 */
async function downTo0024(db: TestDatabase): Promise<void> {
  const { rows } = await db.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pgmigrations WHERE name >= '1700000000025'",
  );
  await runner({
    databaseUrl: db.url,
    dir: MIGRATIONS,
    direction: 'down',
    count: rows[0]!.n,
    migrationsTable: 'pgmigrations',
    log: () => {},
  });
  const { rows: left } = await db.pool.query("SELECT 1 FROM pgmigrations WHERE name >= '1700000000025'");
  assert.is(left.length, 0, 'migrated down to 0024');
}

test.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
  await downTo0024(ctx.db);
});
test.after.each(async ({ db }) => db.drop());

const rowItem = (runId: string, n: number, status: string, org = 'org-1') => ({
  id: `run-row:${runId}:${n}`,
  kind: 'run-row',
  org,
  group: runId,
  status,
});

async function insertItems(
  db: TestDatabase,
  items: { id: string; kind: string; org: string; group?: string; status: string }[],
): Promise<void> {
  for (const i of items) {
    await db.pool.query(
      `INSERT INTO work_items (id, kind, organization_id, group_key, payload, status, attempts, run_at,
         lease_owner, lease_expires_at)
       VALUES ($1, $2, $3, $4, '{}', $5, 2, now() + interval '1 hour',
         CASE WHEN $5 = 'leased' THEN 'old-process' END,
         CASE WHEN $5 = 'leased' THEN now() + interval '1 minute' END)`,
      [i.id, i.kind, i.org, i.group ?? null, i.status],
    );
  }
}

const items = async (db: TestDatabase) =>
  new Map(
    (
      await db.pool.query(
        `SELECT id, kind, organization_id, status, attempts, payload, lease_owner, run_at <= now() AS due
         FROM work_items ORDER BY id`,
      )
    ).rows.map((r) => [r.id, r]),
  );

test('a run under way is due again on its run item; its waiting and held row items are cancelled', async ({
  db,
}) => {
  await insertItems(db, [
    // Held by a process of the version before (its lease still running): made due again all the same.
    { id: 'run-queue:run-a', kind: 'run-queue', org: 'org-1', status: 'leased' },
    rowItem('run-a', 1, 'done'),
    rowItem('run-a', 2, 'leased'),
    rowItem('run-a', 3, 'pending'),
  ]);
  await migrate(db.url);
  const after = await items(db);
  const runItem = after.get('run-queue:run-a');
  assert.is(runItem.status, 'pending');
  assert.is(runItem.attempts, 0);
  assert.is(runItem.lease_owner, null);
  assert.ok(runItem.due, 'the run item is due now');
  assert.is(after.get('run-row:run-a:1').status, 'done', 'a settled row item stays as it was');
  assert.is(after.get('run-row:run-a:2').status, 'cancelled');
  assert.is(after.get('run-row:run-a:2').lease_owner, null);
  assert.is(after.get('run-row:run-a:3').status, 'cancelled');
});

test('a run whose item was swept gets a new one, naming the run and its organization', async ({ db }) => {
  await insertItems(db, [rowItem('run-b', 1, 'pending', 'org-2'), rowItem('run-b', 2, 'pending', 'org-2')]);
  await migrate(db.url);
  const runItem = (await items(db)).get('run-queue:run-b');
  assert.ok(runItem, 'one run item made again');
  assert.is(runItem.kind, 'run-queue');
  assert.is(runItem.organization_id, 'org-2');
  assert.equal(runItem.payload, { runId: 'run-b' });
  assert.is(runItem.status, 'pending');
});

test('finished runs and other kinds of work are left alone', async ({ db }) => {
  await insertItems(db, [
    { id: 'run-queue:run-c', kind: 'run-queue', org: 'org-1', status: 'done' },
    rowItem('run-c', 1, 'done'),
    rowItem('run-c', 2, 'dead'),
    { id: 'delivery:1', kind: 'webhook-delivery', org: 'org-1', group: 'sub-1', status: 'pending' },
  ]);
  const before = await items(db);
  await migrate(db.url);
  const after = await items(db);
  assert.equal([...after.keys()], [...before.keys()], 'no item made');
  for (const [id, item] of before) assert.is(after.get(id).status, item.status, id);
});

test.run();
