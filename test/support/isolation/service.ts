import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { service } from '../../../app/modules.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import { type Answer, bearer, call } from '../accounts.ts';
import { startTestApp, type TestApp } from '../app.ts';
import { eventually } from '../eventually.ts';
import { pdlPerson, startFakePeopleData } from '../fake-people-data.ts';
import type { FakeProvider } from '../fake-provider.ts';
import { startFakeSearxng } from '../fake-searxng.ts';
import { type OpenApiDoc, type Operation, operationsOf } from '../fuzz/operations.ts';
import { storedState } from '../fuzz/stored-state.ts';
import { type CountingTarget, startTarget } from '../runs.ts';
import { deliveries, Receiver } from '../webhooks.ts';
import { normalized, PER_REQUEST } from './answers.ts';
import { buildOrganization, type Organization } from './fixtures.ts';

const PDL_KEY = `pdl-${randomBytes(8).toString('hex')}`;

export interface IsolatedService {
  t: TestApp;
  /** A, whose objects B aims at, and B, the caller. */
  a: Organization;
  b: Organization;
  /** Each organization's webhook receiver (loopback). */
  hooks: { a: Receiver; b: Receiver };
  /** The loopback target of their http_request columns. */
  target: CountingTarget;
  /**
   * The search providers, loopback fakes of SearXNG and People Data Labs, configured for the search
   * cache case (the LinkedIn provider is not: its status would be a read that calls out).
   */
  providers: { searxng: FakeProvider; pdl: FakeProvider };
  /** The documented operations of /openapi.json. */
  operations: Operation[];
  state: Awaited<ReturnType<typeof storedState>>;
  close(): Promise<void>;
}

/**
 * The whole service with its workers (runs, webhook deliveries), allowed to call loopback, and two
 * organizations built alike. B is built first, so that its subscription exists while A acts: an
 * event of A would reach it if deliveries crossed organizations.
 */
export async function startIsolatedService(): Promise<IsolatedService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'stk-isolation-'));
  const hooks = { a: await Receiver.start(), b: await Receiver.start() };
  const target = await startTarget();
  const providers = {
    searxng: await startFakeSearxng({
      general: [{ url: 'https://acme.test/', title: 'Acme', content: 'Acme makes anvils' }],
    }),
    pdl: await startFakePeopleData(PDL_KEY, { people: [pdlPerson('Jane Doe', 'Acme', 'acme.test')] }),
  };
  const t = await startTestApp({
    projections: service.projections,
    routes: service.routes,
    workers: service.workers,
    authenticator: createAuthenticator,
    env: {
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      OUTBOUND_RATE_PER_HOST: '100000',
      WEBHOOK_RETRY_SCHEDULE: '0,1,2',
      SECRETS_MASTER_KEY: randomBytes(32).toString('base64'),
      DATA_DIR: dataDir,
      SEARXNG_URL: providers.searxng.url,
      PEOPLE_DATA_URL: providers.pdl.url,
      PEOPLE_DATA_API_KEY: PDL_KEY,
      ...(process.env.STK_TEST_LOG_LEVEL ? { LOG_LEVEL: process.env.STK_TEST_LOG_LEVEL } : {}),
    },
  });
  const b = await buildOrganization(t.app, 'orgb', { targetUrl: target.url, hookUrl: hooks.b.url });
  const a = await buildOrganization(t.app, 'orga', { targetUrl: target.url, hookUrl: hooks.a.url });
  // Every delivery made and answered, so that nothing moves while the matrix compares what is stored.
  await settled(t, a, hooks.a);
  await settled(t, b, hooks.b);
  const doc = (await call(t.url, 'GET', '/openapi.json')).body as OpenApiDoc;
  const operations = operationsOf(doc, []);
  const state = await storedState(t.db.pool, t.deps.store, t.deps.projections);
  return {
    t,
    a,
    b,
    hooks,
    target,
    providers,
    operations,
    state,
    close: async () => {
      await t.close();
      await Promise.all([
        hooks.a.close(),
        hooks.b.close(),
        target.close(),
        providers.searxng.close(),
        providers.pdl.close(),
      ]);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits for every webhook delivery of `org` to be made and answered: the worker's writes would
 * otherwise land in the middle of a comparison of what is stored.
 */
export function settled(t: TestApp, org: Organization, hook: Receiver): Promise<boolean> {
  return eventually(`${org.marker}'s deliveries to be done`, async () => {
    const list = await deliveries(t.app, org.key, org.ids.id as string);
    if (list.length !== hook.received.length || list.some((d) => d.status !== 'succeeded')) return false;
    // The worker writes the delivery's outcome after the receiver has answered: wait for the item too.
    const { rows } = await t.db.pool.query<{ due: number }>(
      `SELECT count(*)::int AS due FROM work_items WHERE status IN ('pending', 'leased') AND run_at <= now()`,
    );
    return rows[0]?.due === 0;
  });
}

/** Fields that change on their own between two reads of the same object. */
const VOLATILE = /lastUsed/i;

/**
 * Documented GETs that are not reads of the organization's state, with the reason: `readsOf` leaves
 * them out.
 */
export const NOT_READS: Record<string, string> = {
  '/api/content/sync': 'the cron trigger of the content sync, not a read',
  '/api/linkedin/posts':
    "a person's public posts at the LinkedIn data provider, not the organization's state; and asking " +
    'changes it (the first answer is charged and cached, the next one says cached): the search cache case',
};

/**
 * What `org` reads through every documented GET of the API, its own ids in the path, by the
 * document's path (those of NOT_READS left out).
 */
export async function readsOf(s: IsolatedService, org: Organization): Promise<Record<string, Answer>> {
  const out: Record<string, Answer> = {};
  for (const op of s.operations) {
    if (op.method !== 'GET' || !op.path.startsWith('/api/') || NOT_READS[op.path]) continue;
    const names = op.params.filter((p) => p.in === 'path').map((p) => p.name);
    if (names.some((n) => org.ids[n] === undefined)) continue;
    const path = op.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(org.ids[n] as string));
    const answer = await call(s.t.url, 'GET', path, { headers: bearer(org.key) });
    out[op.path] = {
      ...answer,
      body: JSON.parse(JSON.stringify(answer.body, (k, v) => (VOLATILE.test(k) ? undefined : v))),
    };
  }
  return out;
}

/** What differs between two organizations built alike: how long a request took, the tail of a secret. */
const OWN_MEASURES = /^(durationMs|maskedValue)$/;

const PER_REQUEST_FIELD = new RegExp(`^(${[...PER_REQUEST].join('|')})$`);

const strip = (answer: Answer, fields: RegExp): Answer => ({
  ...answer,
  body: JSON.parse(JSON.stringify(answer.body, (k, v) => (fields.test(k) ? undefined : v)) ?? 'null'),
});

/**
 * A normalized answer with its lists in a fixed order of their own: two things made in the same
 * millisecond (a table and its webhook message) come in either order, which is not what the mirror
 * compares.
 */
function unordered(text: string): string {
  const [status, type, ...rest] = text.split(' ');
  try {
    return `${status} ${type} ${JSON.stringify(sortedLists(JSON.parse(rest.join(' '))))}`;
  } catch {
    return text;
  }
}
function sortedLists(value: unknown): unknown {
  if (Array.isArray(value))
    return value.map(sortedLists).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sortedLists(v)]));
}

/**
 * Reads as comparable texts: as they are (`exact`, but for the per-request fields of an error body:
 * its request id), or with the organization's own names and ids put back to what they name.
 */
export function readTexts(reads: Record<string, Answer>, org?: Organization): Record<string, string> {
  const names = new Map<string, string>();
  if (org) {
    for (const [name, value] of Object.entries(org.ids)) names.set(value, name);
    for (const [i, value] of org.more.entries()) names.set(value, `more${i}`);
    names.set(org.marker, 'marker');
  }
  return Object.fromEntries(
    Object.entries(reads).map(([path, answer]) => [
      path,
      org
        ? unordered(normalized(strip(answer, OWN_MEASURES), names))
        : `${answer.status} ${JSON.stringify(strip(answer, PER_REQUEST_FIELD).body)}`,
    ]),
  );
}
