import type { Browser } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { launchChromium } from '../../support/browser.ts';
import { type ContentApp, startContentApp } from '../../support/content-app.ts';
import { sampleArticles } from '../../support/content-samples.ts';

const browser = await launchChromium();
const test = suite<{ ctx: ContentApp; browser: Browser }>('blog in a real browser');

if (typeof browser === 'string') {
  console.log(`skipped: blog in a real browser (${browser})`);
  test.skip(
    'a stored article renders, its TOC links resolve, its JSON-LD parses, upstream scripts never run',
  );
} else {
  test.before(async (context) => {
    context.browser = browser;
    context.ctx = await startContentApp();
    // Images on the fake's loopback address, so the page loads every resource without a network.
    context.ctx.fake.setArticles(sampleArticles(context.ctx.fake.url));
    const res = await context.ctx.app.inject({
      method: 'POST',
      url: context.ctx.syncPath,
      payload: { slugs: sampleArticles().map((a) => a.slug) },
    });
    assert.is(res.json().synced, sampleArticles().length);
  });
  test.after(async ({ ctx, browser }) => {
    await browser.close();
    await ctx?.close();
  });

  const open = async (browser: Browser, url: string) => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    const response = await page.goto(url, { waitUntil: 'load' });
    return { page, errors, status: response?.status() };
  };

  test('a stored article: title, TOC targets, JSON-LD, no console errors', async ({ ctx, browser }) => {
    const { page, errors, status } = await open(browser, `${ctx.url}/blog/getting-started`);
    try {
      assert.is(status, 200);
      assert.is(await page.title(), 'Getting started with the blog');
      const missing = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLAnchorElement>('nav.toc a[href^="#"]')]
          .map((a) => decodeURIComponent(a.getAttribute('href')!.slice(1)))
          .filter((id) => document.getElementById(id) === null),
      );
      const links = await page.locator('nav.toc a').count();
      assert.is(links, 3);
      assert.equal(missing, []);
      const jsonLd = await page.evaluate(() =>
        [...document.querySelectorAll('script[type="application/ld+json"]')].map((s) =>
          JSON.parse(s.textContent!),
        ),
      );
      assert.is(jsonLd.length, 1);
      assert.is(jsonLd[0]['@type'], 'BlogPosting');
      const imageLoaded = await page.evaluate(() =>
        [...document.images].every((img) => img.complete && img.naturalWidth > 0),
      );
      assert.ok(imageLoaded, 'article images load');
      await page.click('nav.toc a[href="#how-full"]');
      assert.is(new URL(page.url()).hash, '#how-full');
      assert.equal(errors, []);
    } finally {
      await page.close();
    }
  });

  test('a <script> in the upstream HTML does not run', async ({ ctx, browser }) => {
    const { page, errors, status } = await open(browser, `${ctx.url}/blog/hostile-html`);
    try {
      assert.is(status, 200);
      // Give anything that might run (handlers of failed loads included) time to do so.
      await page.waitForTimeout(200);
      assert.is(await page.evaluate(() => (window as { __pwned?: boolean }).__pwned), undefined);
      assert.is(await page.title(), 'An article whose HTML tries to run code');
      await page.click('#safe');
      await page.click('text=a link');
      assert.is(await page.evaluate(() => (window as { __pwned?: boolean }).__pwned), undefined);
      const ld = await page.evaluate(() =>
        JSON.parse(document.querySelector('script[type="application/ld+json"]')!.textContent!),
      );
      assert.is(ld.name, '</script><script>window.__pwned=true</script>');
      assert.equal(errors, []);
    } finally {
      await page.close();
    }
  });
}

test.run();
