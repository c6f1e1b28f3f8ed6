import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { leaks, ok } from '../../support/isolation/answers.ts';
import { BODY_CASES, LIST_BODIES } from '../../support/isolation/bodies.ts';
import { type Organization, tellTales } from '../../support/isolation/fixtures.ts';
import { bodyPlan, fill, key, nameOf, pathParams, pathPlan } from '../../support/isolation/matrix.ts';
import { asB, probe } from '../../support/isolation/probe.ts';
import {
  type IsolatedService,
  readsOf,
  readTexts,
  startIsolatedService,
} from '../../support/isolation/service.ts';
import { sendJson, startLoopbackServer } from '../../support/loopback-http.ts';
import { runEnded } from '../../support/runs.ts';
import { createColumn } from '../../support/tables.ts';

/**
 * Issue 20, item 4: two organizations, every operation of /openapi.json, every id of the other
 * organization. B calls each operation with A's ids and with unknown ids of the same form: the two
 * answers must read the same (no read, no write, no "exists elsewhere" in a message; the contract's
 * 403 for another organization's object reads as the 404 of an unknown one), hold nothing of A, and
 * store nothing. Operations come from the document, so a new route joins the matrix by being
 * documented; a path parameter or a body the matrix has no value for fails it. ISOLATION_VERBOSE=1
 * prints every pair of answers.
 */
const test = suite<{ s: IsolatedService; before: Record<string, string> }>(
  'isolation matrix: every operation, every id of the other organization',
);

test.before(async (ctx) => {
  ctx.s = await startIsolatedService();
  ctx.before = readTexts(await readsOf(ctx.s, ctx.s.a));
});
test.after(async (ctx) => {
  await ctx.s?.close();
});

test('every operation with path parameters, called by B with A ids, answers as for unknown ids and stores nothing', async ({
  s,
}) => {
  const plan = pathPlan(s);
  for (const p of plan.probes) plan.problems.push(...(await probe(s, p)));
  console.log(`  isolation matrix: ${plan.probes.length} path probes (each sent twice)`);
  for (const line of plan.left) console.log(`  not organization-owned, left out: ${line}`);
  assert.ok(plan.probes.length > 40, `only ${plan.probes.length} probes`);
  assert.is(plan.problems.length, 0, `${plan.problems.length} problems:\n${plan.problems.join('\n')}`);
});

test('every list, count and query answers B with nothing of A', async ({ s }) => {
  const problems: string[] = [];
  let listed = 0;
  for (const op of s.operations) {
    if (pathParams(op).length > 0) continue;
    const body = LIST_BODIES[key(op)];
    if (op.method !== 'GET' && body === undefined) continue;
    listed++;
    const answer = await asB(s, op.method, op.path, body);
    const found = leaks(answer, tellTales(s.a), '');
    if (found.length) problems.push(`${key(op)} shows A's ${found.join(', ')}`);
  }
  // The check can fail: the same lists answer A with A's own.
  const own = await call(s.t.url, 'GET', '/api/tables', { headers: bearer(s.a.key) });
  assert.ok(leaks(own, tellTales(s.a), '').length > 0, 'A sees its own tables');
  assert.ok(listed >= 15, `only ${listed} lists`);
  assert.is(problems.length, 0, problems.join('\n'));
});

test("B's reads of its own hold nothing of A, and mirror A's: no count, list entry or delivery crosses over", async ({
  s,
}) => {
  const [a, b] = [await readsOf(s, s.a), await readsOf(s, s.b)];
  const problems: string[] = [];
  for (const [path, answer] of Object.entries(b)) {
    const found = leaks(answer, tellTales(s.a), '');
    if (found.length) problems.push(`${path} shows B A's ${found.join(', ')}`);
  }
  // Both were built alike: with each one's names and ids put back to what they name, every read reads
  // the same, so a count (a sequence's enrollments, a balance, a delivery history) taking in the
  // other organization's shows as a difference.
  const [mirrorA, mirrorB] = [readTexts(a, s.a), readTexts(b, s.b)];
  for (const path of Object.keys(mirrorA))
    if (mirrorA[path] !== mirrorB[path]) {
      if (process.env.ISOLATION_VERBOSE) console.log(`MIRROR-A ${mirrorA[path]}\nMIRROR-B ${mirrorB[path]}`);
      problems.push(`${path} reads differently:\n    A: ${mirrorA[path]}\n    B: ${mirrorB[path]}`);
    }
  assert.ok(Object.keys(b).length > 20, `only ${Object.keys(b).length} reads`);
  assert.is(problems.length, 0, problems.join('\n'));
});

test('ids of A inside bodies and queries (taskIds, leadIds, rowIds, assignees, senders, tables, prompts, searches) reach nothing', async ({
  s,
}) => {
  const plan = bodyPlan(s);
  for (const p of plan.probes) {
    plan.problems.push(...(await probe(s, p)));
    const c = BODY_CASES.find((x) => x.label === p.label);
    if (c?.expect !== 'read') continue;
    // The control: the same search by A finds A's own, so an empty answer to B means something.
    const query = c.query ? `?${new URLSearchParams(c.query((n) => nameOf(s.a, n)))}` : '';
    const mine = await call(s.t.url, c.method, `${fill(c.path, s.a.ids)}${query}`, {
      headers: bearer(s.a.key),
      body: c.body?.(s.a, (n) => nameOf(s.a, n)),
    });
    if (leaks(mine, Object.values(s.a.ids), '').length === 0)
      plan.problems.push(
        `${c.label}: the control failed, A's own search finds nothing: ${JSON.stringify(mine.body)}`,
      );
  }
  console.log(
    `  isolation matrix: ${plan.probes.length} body cases: ${plan.probes.map((p) => p.label).join('; ')}`,
  );
  assert.is(plan.problems.length, 0, `${plan.problems.length} problems:\n${plan.problems.join('\n')}`);
});

const mentions = (text: string, org: Organization) => tellTales(org).filter((t) => text.includes(t));

test("a column of B naming A's secret never sends A's value; B's own secret is sent", async ({ s }) => {
  const server = await startLoopbackServer((_, res) => sendJson(res, 200, { ok: true }));
  try {
    const ownValue = `value-b-${s.b.marker}-own`;
    ok(await asB(s, 'PUT', '/api/secrets/b_own', { value: ownValue }), 201, "B's secret");
    const tableId = s.b.ids.tableId as string;
    for (const [path, name] of [
      ['own', 'b_own'],
      ['theirs', s.a.ids.name],
    ]) {
      const column = await createColumn(s.t.url, s.b.key, tableId, {
        label: `Token ${path}`,
        kind: 'enrichment',
        dataType: 'json',
        config: {
          provider: 'http_request',
          method: 'GET',
          url: `${server.url}/${path}`,
          headers: { 'x-token': `{{secrets.${name}}}` },
        },
      });
      const run = ok(
        await asB(s, 'POST', `/api/tables/${tableId}/columns/${column.id}/run`, { scope: 'all' }),
        202,
        'a run',
      );
      await runEnded(s.t.url, s.b.key, run.body.runId ?? run.body.id);
    }
    const sent = (path: string) => server.received.filter((r) => r.url.startsWith(`/${path}`));
    assert.ok(sent('own').length > 0, "B's own column called out");
    for (const r of sent('own')) assert.is(r.headers['x-token'], ownValue);
    for (const r of server.received)
      assert.not.ok(JSON.stringify(r).includes(s.a.secretValue), `A's secret went out: ${r.url}`);
  } finally {
    await server.close();
  }
});

test("A's own reads are what they were before B's requests", async ({ s, before }) => {
  const after = readTexts(await readsOf(s, s.a));
  assert.ok(Object.keys(before).length > 20, `only ${Object.keys(before).length} reads`);
  assert.equal(after, before);
});

test("B's webhook subscription never received anything of A, A's test-fire and replay included", async ({
  s,
}) => {
  const heard = s.hooks.a.received.length;
  const headers = bearer(s.a.key);
  const hook = `/api/webhooks/${s.a.ids.id}`;
  ok(
    await call(s.t.url, 'POST', `${hook}/test`, { headers, body: { eventType: 'table.created' } }),
    200,
    'a test-fire',
  );
  const since = new Date(Date.now() - 3_600_000).toISOString();
  const replay = ok(
    await call(s.t.url, 'POST', `${hook}/replay`, {
      headers,
      body: { since, until: new Date().toISOString() },
    }),
    202,
    'a replay',
  );
  // A's receiver gets the test message and every replayed one; B's, subscribed to everything, none.
  await eventually(
    "A's test-fire and replay",
    () => s.hooks.a.received.length >= heard + 1 + replay.body.requeued,
  );
  const b = s.hooks.b.received.map((r) => r.body);
  const a = s.hooks.a.received.map((r) => r.body);
  assert.ok(b.length > 0, "B's receiver got B's own events");
  assert.ok(
    a.some((body) => mentions(body, s.a).length > 0),
    "A's receiver got A's events",
  );
  for (const body of b) assert.equal(mentions(body, s.a), [], `B received: ${body.slice(0, 300)}`);
});

/** A question to a search provider, the fake's path it reaches there, and its price (docs/search-and-linkedin.md). */
const SEARCHES = [
  { path: '/api/search/web', body: { query: 'Acme anvils' }, upstream: 'searxng', at: '/search', price: 1 },
  {
    path: '/api/search/people',
    body: { name: 'Jane Doe', company: 'Acme' },
    upstream: 'pdl',
    at: '/v5/person',
    price: 2,
  },
] as const;

/** An organization's credit ledger, newest first. */
const ledgerOf = async (s: IsolatedService, org: Organization) =>
  ok(await call(s.t.url, 'GET', '/api/credits/ledger', { headers: bearer(org.key) }), 200, 'a ledger').body
    .data as { kind: string; amount: number; balanceAfter: number; runId: string | null }[];

/** The ledger once it shows the charge of a search of `price` on top of `before` (the projection is async). */
const charged = (s: IsolatedService, org: Organization, before: { balanceAfter: number }[], price: number) =>
  eventually(`${org.marker}'s search charged`, async () => {
    const now = await ledgerOf(s, org);
    const fresh = now.slice(0, now.length - before.length);
    const charge = fresh.find(
      (e) => e.kind === 'charge' && e.amount === price && e.runId?.startsWith('srch_'),
    );
    return charge && now[0]?.balanceAfter === (before[0]?.balanceAfter ?? 0) - price ? now : undefined;
  });

test('search results cached for A are never served to B', async ({ s }) => {
  const search = s.operations.filter((op) => op.path.startsWith('/api/search'));
  if (search.length === 0) {
    console.log(
      '  skipped: the document has no /api/search operation (issue 19), so no search cache to cross',
    );
    return;
  }
  for (const q of SEARCHES) {
    const asked = () => s.providers[q.upstream].requests(q.at).length;
    const send = (org: Organization) =>
      call(s.t.url, 'POST', q.path, { headers: bearer(org.key), body: q.body });
    // A asks, then asks again: the second answer is A's cached one (the control: the cache works).
    const aBefore = await ledgerOf(s, s.a);
    // Counted in requests to the fake, as many as the search takes (SearXNG's pages).
    let upstream = asked();
    const first = ok(await send(s.a), 200, `A's ${q.path}`);
    assert.is(first.body.cached, false, `A's first ${q.path}`);
    assert.ok(first.body.results.length > 0, `A's ${q.path} found something: ${JSON.stringify(first.body)}`);
    assert.ok(asked() > upstream, `A's ${q.path} asked the provider`);
    upstream = asked();
    const aCharged = await charged(s, s.a, aBefore, q.price);
    const again = ok(await send(s.a), 200, `A's second ${q.path}`);
    assert.is(again.body.cached, true, `A's second ${q.path} comes from A's cache`);
    assert.is(asked(), upstream, `A's second ${q.path} did not ask the provider`);
    // B asks the same: not from A's cache, but its own call to the provider, paid by B alone.
    const bBefore = await ledgerOf(s, s.b);
    upstream = asked();
    const theirs = ok(await send(s.b), 200, `B's ${q.path}`);
    assert.is(theirs.body.cached, false, `B's ${q.path} was served A's cached answer`);
    assert.ok(asked() > upstream, `B's ${q.path} asked the provider itself`);
    assert.equal(theirs.body.results, first.body.results, 'the same question, the same public answer');
    upstream = asked();
    assert.equal(leaks(theirs, tellTales(s.a), ''), [], `B's ${q.path} shows something of A`);
    await charged(s, s.b, bBefore, q.price);
    assert.equal(await ledgerOf(s, s.a), aCharged, `B's ${q.path} moved A's ledger`);
    // And B's next one is B's own cached answer, still nothing of A's ledger.
    const bAgain = ok(await send(s.b), 200, `B's second ${q.path}`);
    assert.is(bAgain.body.cached, true, `B's second ${q.path} comes from B's cache`);
    assert.is(asked(), upstream, `B's second ${q.path} did not ask the provider`);
    assert.equal(await ledgerOf(s, s.a), aCharged, `B's cached ${q.path} moved A's ledger`);
  }
});

test.run();
