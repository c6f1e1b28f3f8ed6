import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ContentApp, startContentApp } from '../../support/content-app.ts';
import { cmsNotifications } from '../../support/content-notifications.ts';
import { sampleArticles } from '../../support/content-samples.ts';

const test = suite<{ ctx: ContentApp }>('content sync: publish notifications of common CMSs');

test.before(async (context) => {
  context.ctx = await startContentApp({ articles: sampleArticles() });
});
test.after(async ({ ctx }) => ctx.close());
test.before.each(({ ctx }) => ctx.fake.reset());

for (const { cms, body, slugs } of cmsNotifications) {
  test(`${cms}: its notification names the slugs it carries, and only those`, async ({ ctx }) => {
    const res = await ctx.app.inject({ method: 'POST', url: ctx.syncPath, payload: body });
    assert.is(res.statusCode, 200, res.body);
    const synced = res.json();
    assert.equal(synced.errors, []);
    assert.equal(
      synced.items.map((i: { slug: string }) => i.slug),
      slugs,
    );
    // Refetched from the content API, whatever the notification carried.
    assert.equal(ctx.fake.detailPaths(), slugs.map((s) => `/posts/${s}`).sort());
  });
}

test('a Prismic api-update names document ids, not slugs: a 400, nothing fetched', async ({ ctx }) => {
  const res = await ctx.app.inject({
    method: 'POST',
    url: ctx.syncPath,
    payload: {
      type: 'api-update',
      masterRef: 'ZmFzdA',
      releases: {},
      masks: {},
      tags: {},
      documents: ['XoRhYhIAACIAqsYH'],
      domain: 'my-repo',
      apiUrl: 'https://my-repo.prismic.io/api',
      secret: null,
    },
  });
  assert.is(res.statusCode, 400);
  assert.match(res.json().detail, 'slug');
  assert.is(ctx.fake.requests.length, 0);
});

test.run();
