import { type FakeProvider, startFakeProvider } from './fake-provider.ts';
import { sendJson } from './loopback-http.ts';

export interface SearxngHit {
  url: string;
  title: string;
  content?: string;
  publishedDate?: string | null;
}

/**
 * A SearXNG instance's search API on loopback: `GET /search?q=…&format=json`, results per category
 * (`general`, `news`) paged 10 at a time as its JSON answers them; a format other than json is
 * refused with 403, as an instance without that format enabled refuses it.
 */
export async function startFakeSearxng(
  hits: { general?: SearxngHit[]; news?: SearxngHit[] } = {},
): Promise<FakeProvider> {
  return startFakeProvider(
    () => true,
    (_req, res, url) => {
      if (url.pathname !== '/search') return sendJson(res, 404, { error: 'not found' });
      const params = url.searchParams;
      if (params.get('format') !== 'json') {
        res.writeHead(403, { 'content-type': 'text/html' });
        res.end('<html><body>403 Forbidden</body></html>');
        return;
      }
      const category = params.get('categories') === 'news' ? 'news' : 'general';
      const page = Number(params.get('pageno') ?? '1');
      const all = hits[category] ?? [];
      const results = all.slice((page - 1) * 10, page * 10).map((h, i) => ({
        url: h.url,
        title: h.title,
        content: h.content ?? '',
        engine: 'duckduckgo',
        engines: ['duckduckgo'],
        positions: [i + 1],
        score: 1,
        category,
        ...(h.publishedDate !== undefined ? { publishedDate: h.publishedDate } : {}),
      }));
      sendJson(res, 200, {
        query: params.get('q'),
        number_of_results: all.length,
        results,
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      });
    },
  );
}

/** `n` distinct hits of a query, for paging. */
export const someHits = (n: number, prefix = 'result'): SearxngHit[] =>
  Array.from({ length: n }, (_, i) => ({
    url: `https://example${i}.test/${prefix}`,
    title: `${prefix} ${i}`,
    content: `about ${prefix} ${i}`,
  }));
