import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ContentApiClient, ContentApiError } from '../../../src/content-api/client.ts';
import { parseRetryAfter, retryDelay } from '../../../src/content-api/retry.ts';
import { generatedArticle } from '../../support/content-samples.ts';
import { type FakeContentApi, startFakeContentApi } from '../../support/fake-content-api.ts';

const KEY = 'client-test-key';
const test = suite<{ fake: FakeContentApi; sleeps: number[]; client: ContentApiClient }>(
  'content API client',
);

test.before(async (context) => {
  context.fake = await startFakeContentApi({
    apiKey: KEY,
    articles: Array.from({ length: 30 }, (_, i) => generatedArticle(i, 300)),
  });
});
test.after(async ({ fake }) => fake.close());
test.before.each((context) => {
  context.fake.reset();
  context.sleeps = [];
  // Waits are recorded, not slept: the backoff schedule itself is what these tests check.
  context.client = new ContentApiClient({
    baseUrl: `${context.fake.url}/`,
    apiKey: KEY,
    timeoutMs: 200,
    retry: {
      random: () => 0.5,
      sleep: async (ms) => {
        context.sleeps.push(ms);
      },
    },
  });
});

const rejection = async (promise: Promise<unknown>): Promise<ContentApiError> => {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, ContentApiError);
    return error as ContentApiError;
  }
  throw new Error('expected a rejection');
};

test('lists a page with kind, limit and offset, sending the key as a bearer', async ({ fake, client }) => {
  const page = await client.listPage(10);
  assert.is(page.items.length, 20);
  assert.equal(fake.requests[0]!.query, { kind: 'blog', limit: '100', offset: '10' });
  assert.ok(fake.requests[0]!.authorized);
  assert.ok(
    typeof page.raw === 'object' && page.raw !== null && 'posts' in page.raw,
    'the raw payload is kept',
  );
});

test('the slug is URL-encoded in the detail path', async ({ fake, client }) => {
  await rejection(client.getArticle('a b/c'));
  assert.is(fake.requests[0]!.path, '/posts/a%20b%2Fc');
});

test('a wrong key is a 401, not retried', async ({ fake }) => {
  const client = new ContentApiClient({
    baseUrl: fake.url,
    apiKey: 'wrong',
    retry: { sleep: async () => {} },
  });
  const error = await rejection(client.listPage(0));
  assert.is(error.status, 401);
  assert.is(fake.requests.length, 1);
  assert.not.match(error.message, 'wrong');
});

test('5xx and 429 are retried up to 3 attempts with growing backoff', async ({ fake, client, sleeps }) => {
  fake.failNext({ slug: 'article-00001' }, { status: 500 });
  fake.failNext({ slug: 'article-00001' }, { status: 429 });
  const fetched = await client.getArticle('article-00001');
  assert.ok(fetched.raw);
  assert.is(fake.detailRequests().length, 3);
  assert.is(sleeps.length, 2);
  assert.ok(sleeps[1]! > sleeps[0]!, `exponential: ${sleeps.join(', ')}`);
  fake.failNext('detail', { status: 503, times: 3 });
  const error = await rejection(client.getArticle('article-00002'));
  assert.is(error.code, 'upstream_status');
  assert.is(error.status, 503);
  assert.is(fake.detailRequests('article-00002').length, 3);
});

test('Retry-After is honoured; one longer than the cap fails at once', async ({ fake, client, sleeps }) => {
  fake.failNext('list', { status: 429, retryAfter: '2' });
  await client.listPage(0);
  assert.is(sleeps[0], 2000);
  fake.failNext('list', { status: 503, retryAfter: '3600' });
  const error = await rejection(client.listPage(0));
  assert.is(error.status, 503);
  assert.is(sleeps.length, 1);
});

test('a 404 is not_found, not retried', async ({ fake, client }) => {
  const error = await rejection(client.getArticle('nope'));
  assert.is(error.code, 'not_found');
  assert.is(fake.detailRequests().length, 1);
});

test('an answer that never comes times out, each attempt', async ({ fake, client }) => {
  fake.hangNext('detail', 3);
  const error = await rejection(client.getArticle('article-00003'));
  assert.is(error.code, 'upstream_timeout');
  assert.is(fake.detailRequests().length, 3);
});

test('a slow answer within the timeout is fine; an unreachable API is upstream_unreachable', async ({
  fake,
  client,
}) => {
  fake.behaviour.delayMs = 50;
  assert.ok((await client.getArticle('article-00004')).raw);
  const dead = new ContentApiClient({ baseUrl: 'http://127.0.0.1:9', retry: { sleep: async () => {} } });
  const error = await rejection(dead.listPage(0));
  assert.is(error.code, 'upstream_unreachable');
});

test('at most 8 detail requests in flight', async ({ fake, client }) => {
  fake.behaviour.delayMs = 20;
  await Promise.all(Array.from({ length: 30 }, (_, i) => client.getArticle(generatedArticle(i, 10).slug)));
  assert.ok(fake.maxConcurrentDetails <= 8, String(fake.maxConcurrentDetails));
  assert.ok(fake.maxConcurrentDetails > 1, 'requests do overlap');
});

test('Retry-After as seconds or an HTTP date; backoff with jitter stays within its bounds', () => {
  assert.is(parseRetryAfter('5'), 5000);
  assert.is(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6_000);
  assert.is(parseRetryAfter('soon'), undefined);
  const policy = {
    attempts: 3,
    baseDelayMs: 100,
    maxDelayMs: 1000,
    maxRetryAfterMs: 5000,
    sleep: async () => {},
  };
  assert.is(retryDelay(1, undefined, { ...policy, random: () => 0 }), 50);
  assert.is(retryDelay(1, undefined, { ...policy, random: () => 1 }), 100);
  assert.is(retryDelay(2, undefined, { ...policy, random: () => 1 }), 200);
  assert.is(retryDelay(3, undefined, { ...policy, random: () => 1 }), undefined);
  assert.is(retryDelay(1, 3000, { ...policy, random: () => 1 }), 3000);
  assert.is(retryDelay(1, 6000, { ...policy, random: () => 1 }), undefined);
});

test.run();
