import type { RouteOptions } from 'fastify';
import { service } from '../../../app/modules.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import type { RouteModule } from '../../../src/http/routes.ts';
import { bearer, bootstrapAccount, call, issueKey } from '../accounts.ts';
import { startTestApp, type TestApp } from '../app.ts';
import { sampleArticles } from '../content-samples.ts';
import { type FakeContentApi, startFakeContentApi } from '../fake-content-api.ts';
import { pdlCompany, pdlPerson, startFakePeopleData } from '../fake-people-data.ts';
import { startFakeSearxng } from '../fake-searxng.ts';
import { someProfile, startFakeUnipile } from '../fake-unipile.ts';
import { createColumn, createTable } from '../tables.ts';

const CONTENT_KEY = 'fuzz-content-key';
const CRON_SECRET = 'fuzz-cron-secret';
const METRICS_TOKEN = 'fuzz-metrics-token';
const PROVIDER_KEY = 'fuzz-provider-key';

/**
 * The kernel's own hidden routes (src/http/app.ts): registered before any feature's, so the route
 * collector below never sees them.
 */
const KERNEL_ROUTES = [
  { method: 'GET', url: '/openapi.json' },
  { method: 'GET', url: '/docs' },
  { method: 'GET', url: '/docs/*' },
];

export interface FuzzedService {
  t: TestApp;
  port: number;
  /** Every route the app registered (method and fastify URL), hidden ones included. */
  routes: { method: string; url: string }[];
  /** Path parameter and header name -> values naming things that exist. */
  real: Record<string, string[]>;
  /** A key holding every scope, and the service's other secrets. */
  secrets: { apiKey: string; cronSecret: string; metricsToken: string };
  close(): Promise<void>;
}

/**
 * Every feature of app/modules.ts over a fresh database, with the outside content API faked on
 * loopback (so a named sync is a sync, not a 503 for a missing configuration) and a metrics token
 * (so /metrics takes input). Two organizations each hold a table with a column; a spare key and
 * the synced sample articles are there to be named.
 */
export async function startFuzzedService(): Promise<FuzzedService> {
  const routes = [...KERNEL_ROUTES];
  const collector: RouteModule = (app) => {
    app.addHook('onRoute', (route: RouteOptions) => {
      for (const method of [route.method].flat()) routes.push({ method, url: route.url });
    });
  };
  const fake: FakeContentApi = await startFakeContentApi({ apiKey: CONTENT_KEY, articles: sampleArticles() });
  // The search and LinkedIn data providers too: a valid search is answered, not a 503 for a missing one.
  const providers = [
    await startFakeSearxng({ general: [{ url: 'https://acme.test/', title: 'Acme' }] }),
    await startFakePeopleData(PROVIDER_KEY, {
      companies: [pdlCompany('Acme', 'acme.test')],
      people: [pdlPerson('Jane Doe', 'Acme', 'acme.test')],
    }),
    await startFakeUnipile(PROVIDER_KEY, { profiles: [someProfile('janedoe')] }),
  ];
  const [searxng, pdl, unipile] = providers.map((p) => p.url);
  const t = await startTestApp({
    projections: service.projections,
    routes: [collector, ...service.routes],
    authenticator: createAuthenticator,
    env: {
      CONTENT_API_URL: fake.url,
      CONTENT_API_KEY: CONTENT_KEY,
      CONTENT_API_TIMEOUT_MS: '2000',
      CRON_SECRET,
      METRICS_TOKEN,
      SEARXNG_URL: searxng!,
      PEOPLE_DATA_URL: pdl!,
      PEOPLE_DATA_API_KEY: PROVIDER_KEY,
      LINKEDIN_DATA_URL: unipile!,
      LINKEDIN_DATA_API_KEY: PROVIDER_KEY,
      ...(process.env.STK_TEST_LOG_LEVEL ? { LOG_LEVEL: process.env.STK_TEST_LOG_LEVEL } : {}),
    },
  });
  const mine = await bootstrapAccount(t.app);
  const theirs = await bootstrapAccount(t.app);
  const spare = await issueKey(t.app, mine.apiKey, ['tables:read'], 'spare');
  const input = { label: 'Company', kind: 'input', dataType: 'text' };
  const tables: string[] = [];
  const columns: string[] = [];
  for (const owner of [mine, theirs]) {
    const tableId = await createTable(t.app, owner.apiKey);
    tables.push(tableId);
    columns.push((await createColumn(t.app, owner.apiKey, tableId, input)).id);
  }
  // A second table, so that the first page of one has a next cursor to name.
  await createTable(t.app, mine.apiKey, 'Second');
  const page = await call(t.app, 'GET', '/api/tables?limit=1', { headers: bearer(mine.apiKey) });
  const column = await call(t.app, 'GET', `/api/tables/${tables[0]}/columns/${columns[0]}`, {
    headers: bearer(mine.apiKey),
  });
  const synced = await call(t.app, 'GET', '/api/content/sync', { headers: bearer(CRON_SECRET) });
  if (synced.status !== 200)
    throw new Error(`the full sync failed: ${synced.status} ${JSON.stringify(synced.body)}`);
  return {
    t,
    port: Number(new URL(t.url).port),
    routes,
    real: {
      tableId: tables,
      columnId: columns,
      keyId: [spare.keyId, theirs.keyId],
      cursor: [page.body.nextCursor],
      slug: sampleArticles().map((a) => a.slug),
      '*': ['', 'json', 'yaml', 'static/index.html', 'static/swagger-initializer.js'],
      'if-match': [column.headers.etag ?? '"none"'],
    },
    secrets: { apiKey: mine.apiKey, cronSecret: CRON_SECRET, metricsToken: METRICS_TOKEN },
    close: async () => {
      await t.close();
      await fake.close();
      await Promise.all(providers.map((p) => p.close()));
    },
  };
}
