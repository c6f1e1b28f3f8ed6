import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SEARCH_CACHE, SearchCache } from '../../../services/search/cache.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';

/*
 * The search cache's expiry: an organization's expired answers go with its next put, and every
 * organization's now and then (hourly), so that one which stopped asking keeps none for ever.
 */
const test = suite<{ db: TestDatabase }>('search cache: expired answers are swept');

test.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
});
test.after.each(async (ctx) => {
  await ctx.db.drop();
});

const HOUR = 3_600_000;
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

const keysOf = async (db: TestDatabase) =>
  (
    await db.pool.query<{ organization_id: string; key: string }>(
      `SELECT organization_id, key FROM ${SEARCH_CACHE} ORDER BY organization_id, key`,
    )
  ).rows.map((r) => `${r.organization_id}/${r.key}`);

test("another organization's expired answers go hourly, live ones stay", async ({ db }) => {
  const cache = new SearchCache(db.pool, 60); // answers live a minute
  await cache.put('org_a', 'old', 'searxng', { n: 1 }, at(0)); // the first put sweeps too: nothing yet
  await cache.put('org_b', 'b1', 'searxng', { n: 2 }, at(10 * 60_000));
  // Within the hour: org_a's expired answer is org_a's to sweep; org_b's put leaves it.
  assert.equal(await keysOf(db), ['org_a/old', 'org_b/b1']);
  await cache.put('org_c', 'c1', 'searxng', { n: 3 }, at(HOUR + 1));
  // An hour on, a put by anyone sweeps every organization's expired answers; its own is live.
  assert.equal(await keysOf(db), ['org_c/c1']);
  assert.equal(await cache.get('org_c', 'c1', at(HOUR + 2)), { value: { n: 3 } });
});

test("an organization's own expired answers go with its next put, whatever the hour", async ({ db }) => {
  const cache = new SearchCache(db.pool, 60);
  await cache.put('org_a', 'a1', 'searxng', { n: 1 }, at(0));
  await cache.put('org_a', 'a2', 'searxng', { n: 2 }, at(2 * 60_000));
  assert.equal(await keysOf(db), ['org_a/a2']);
});

test.run();
