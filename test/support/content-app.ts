import * as assert from 'uvu/assert';
import { syncRoutes } from '../../commands/content/sync-articles.ts';
import { siteContentProjection } from '../../projections/content/site-content.ts';
import { blogIndexRoutes } from '../../queries/content/blog-index.ts';
import { blogPageRoutes } from '../../queries/content/blog-page.ts';
import { rssRoutes } from '../../queries/content/rss.ts';
import { sitemapRoutes } from '../../queries/content/sitemap.ts';
import { ContentApiClient, type ContentApiOptions } from '../../src/content-api/client.ts';
import { startTestApp, type TestApp } from './app.ts';
import type { RawArticle } from './content-samples.ts';
import { type FakeContentApi, startFakeContentApi } from './fake-content-api.ts';

export const TEST_CONTENT_KEY = 'test-content-key';
export const TEST_CRON_SECRET = 'test-cron-secret';
export const PROVIDER = 'content';

export interface ContentApp extends TestApp {
  fake: FakeContentApi;
  syncPath: string;
  /** Every event of the article streams, oldest first. */
  articleEvents(): Promise<
    { stream: string; type: string; data: Record<string, unknown>; metadata: Record<string, unknown> }[]
  >;
}

/**
 * The content feature over a fresh database, talking to a fake content API on loopback. The client
 * retries fast and times out in a fraction of a second, so failure tests stay quick.
 */
export async function startContentApp(
  options: {
    articles?: readonly RawArticle[];
    env?: Record<string, string>;
    client?: Partial<ContentApiOptions>;
    maxPages?: number;
  } = {},
): Promise<ContentApp> {
  const fake = await startFakeContentApi({ apiKey: TEST_CONTENT_KEY, articles: options.articles ?? [] });
  const client = new ContentApiClient({
    baseUrl: fake.url,
    apiKey: TEST_CONTENT_KEY,
    // Long enough that a starved machine does not time out (and retry) answers the tests count exactly;
    // the client's own timeout is tested in content-api-client.test.ts.
    timeoutMs: 5_000,
    retry: { baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 3_000 },
    ...options.client,
  });
  const app = await startTestApp({
    projections: [siteContentProjection],
    routes: [
      syncRoutes({ client, maxPages: options.maxPages }),
      blogPageRoutes,
      blogIndexRoutes,
      rssRoutes,
      sitemapRoutes,
    ],
    env: {
      CONTENT_API_URL: fake.url,
      CONTENT_API_KEY: TEST_CONTENT_KEY,
      CRON_SECRET: TEST_CRON_SECRET,
      SITE_URL: 'https://site.test',
      ...options.env,
    },
  });
  return {
    ...app,
    fake,
    syncPath: `/api/${PROVIDER}/sync`,
    articleEvents: async () =>
      (
        await app.db.pool.query(
          "SELECT stream_name AS stream, type, data, metadata FROM events WHERE stream_name LIKE 'article-%' ORDER BY position",
        )
      ).rows,
    close: async () => {
      await app.close();
      await fake.close();
    },
  };
}

export const cronHeaders = { authorization: `Bearer ${TEST_CRON_SECRET}` };

/** A 429 of the sync endpoint: a rate_limited problem telling when to retry. */
export function assertRateLimited(res: {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): { code?: string };
}) {
  assert.is(res.statusCode, 429);
  assert.match(String(res.headers['content-type']), 'application/problem+json');
  assert.is(res.json().code, 'rate_limited');
  assert.ok(Number(res.headers['retry-after']) > 0, 'Retry-After in seconds');
}
