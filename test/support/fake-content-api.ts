/**
 * A fake content API: a real HTTP server on loopback (node:http) serving GET /posts and
 * GET /posts/<slug> the way a provider might, and misbehaving on request: slow answers, 5xx and 429
 * with Retry-After, answers that never come, odd pagination and every alias shape of the mapping.
 *
 * Run on its own for the local walkthrough: `npm run demo:content-api` (see docs/content-sync.md).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { type RawArticle, sampleArticles } from './content-samples.ts';

export type ListShape = 'bare' | 'posts' | 'data' | 'items' | 'articles' | 'results';
export type ArticleShape = 'bare' | 'post' | 'article' | 'data';
/** normal: offset/limit honoured; repeat: every offset answers the first page; endless: never a short page. */
export type Pagination = 'normal' | 'repeat' | 'endless';
/** Which requests a scripted failure applies to: list pages (or one offset's), any detail, or one slug's. */
export type Target = 'list' | 'detail' | { slug: string } | { listOffset: number };

export interface FakeBehaviour {
  delayMs: number;
  listShape: ListShape;
  articleShape: ArticleShape;
  /** List items carry the whole article (HTML included) rather than a summary. */
  listIncludesHtml: boolean;
  pagination: Pagination;
}

export interface RecordedRequest {
  path: string;
  query: Record<string, string>;
  authorized: boolean;
}

interface Scripted {
  target: Target;
  times: number;
  kind: 'fail' | 'hang';
  status?: number;
  retryAfter?: string;
}

const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

export class FakeContentApi {
  readonly behaviour: FakeBehaviour = {
    delayMs: 0,
    listShape: 'posts',
    articleShape: 'bare',
    listIncludesHtml: false,
    pagination: 'normal',
  };
  readonly requests: RecordedRequest[] = [];
  private readonly articles = new Map<string, RawArticle>();
  private readonly overrides = new Map<string, unknown>();
  private readonly json = new Map<string, { detail: string; summary: string }>();
  private scripted: Scripted[] = [];
  private inFlight = 0;
  /** The most detail requests seen in flight at once. */
  maxConcurrentDetails = 0;

  constructor(
    private readonly server: Server,
    readonly url: string,
    readonly apiKey: string | undefined,
  ) {}

  setArticles(articles: readonly RawArticle[]): void {
    this.articles.clear();
    this.json.clear();
    for (const a of articles) this.upsert(a);
  }

  upsert(article: RawArticle): void {
    this.articles.set(article.slug, article);
    this.json.delete(article.slug);
  }

  /** Serializes every article now, so that the first requests measured do not pay for it. */
  warm(): void {
    for (const slug of this.articles.keys()) this.cached(slug);
  }

  remove(slug: string): void {
    this.articles.delete(slug);
    this.json.delete(slug);
  }

  /** Answer GET /posts/<slug> with exactly this payload (e.g. another slug, or no HTML). */
  overrideDetail(slug: string, payload: unknown): void {
    this.overrides.set(slug, payload);
  }

  failNext(target: Target, options: { status: number; times?: number; retryAfter?: string }): void {
    this.scripted.push({ target, kind: 'fail', times: options.times ?? 1, ...options });
  }

  /** The next matching requests get no answer at all, until the client gives up. */
  hangNext(target: Target, times = 1): void {
    this.scripted.push({ target, kind: 'hang', times });
  }

  reset(): void {
    this.requests.length = 0;
    this.scripted = [];
    this.overrides.clear();
    this.maxConcurrentDetails = 0;
    Object.assign(this.behaviour, {
      delayMs: 0,
      listShape: 'posts',
      articleShape: 'bare',
      listIncludesHtml: false,
      pagination: 'normal',
    } satisfies FakeBehaviour);
  }

  detailRequests(slug?: string): RecordedRequest[] {
    return this.requests.filter(
      (r) => r.path.startsWith('/posts/') && (!slug || r.path === `/posts/${slug}`),
    );
  }

  /** The article paths asked for, sorted: which slugs a sync fetched, whatever the order. */
  detailPaths(): string[] {
    return this.detailRequests()
      .map((r) => r.path)
      .sort();
  }

  listRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.path === '/posts');
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private cached(slug: string): { detail: string; summary: string } {
    let entry = this.json.get(slug);
    if (!entry) {
      const article = this.articles.get(slug)!;
      entry = {
        detail: JSON.stringify(article),
        summary: JSON.stringify({ slug: article.slug, title: article.title ?? article.headline ?? slug }),
      };
      this.json.set(slug, entry);
    }
    return entry;
  }

  private takeScripted(target: 'list' | 'detail', slug?: string, offset?: number): Scripted | undefined {
    const matches = (t: Target) =>
      t === target ||
      (typeof t === 'object' && 'slug' in t && target === 'detail' && t.slug === slug) ||
      (typeof t === 'object' && 'listOffset' in t && target === 'list' && t.listOffset === offset);
    const found = this.scripted.find((s) => matches(s.target));
    if (!found) return undefined;
    if (--found.times <= 0) this.scripted = this.scripted.filter((s) => s !== found);
    return found;
  }

  /** The whole request handler; answers are JSON strings assembled from cached per-article JSON. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname.startsWith('/images/')) {
      res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'max-age=3600' }).end(PNG_1X1);
      return;
    }
    const authorized = !this.apiKey || req.headers.authorization === `Bearer ${this.apiKey}`;
    this.requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams), authorized });
    if (!authorized) return send(res, 401, '{"error":"unauthorized"}');
    const detail = /^\/posts\/([^/]+)$/.exec(url.pathname);
    if (url.pathname !== '/posts' && !detail) return send(res, 404, '{"error":"not found"}');
    const slug = detail ? decodeURIComponent(detail[1]!) : undefined;
    if (detail) this.maxConcurrentDetails = Math.max(this.maxConcurrentDetails, ++this.inFlight);
    try {
      const offset = Number(url.searchParams.get('offset') ?? 0) || 0;
      const scripted = this.takeScripted(detail ? 'detail' : 'list', slug, offset);
      if (scripted?.kind === 'hang') return await new Promise<void>((resolve) => res.once('close', resolve));
      if (this.behaviour.delayMs > 0) await new Promise((r) => setTimeout(r, this.behaviour.delayMs));
      if (scripted) {
        const headers: Record<string, string> = scripted.retryAfter
          ? { 'retry-after': scripted.retryAfter }
          : {};
        return send(res, scripted.status ?? 500, '{"error":"scripted failure"}', headers);
      }
      if (slug !== undefined) return this.sendArticle(res, slug);
      return this.sendList(res, url.searchParams);
    } finally {
      if (detail) this.inFlight--;
    }
  }

  private sendArticle(res: ServerResponse, slug: string): void {
    if (this.overrides.has(slug)) send(res, 200, JSON.stringify(this.overrides.get(slug)));
    else if (!this.articles.has(slug)) send(res, 404, '{"error":"no such post"}');
    else {
      const body = this.cached(slug).detail;
      const shape = this.behaviour.articleShape;
      send(res, 200, shape === 'bare' ? body : `{"${shape}":${body}}`);
    }
  }

  private sendList(res: ServerResponse, query: URLSearchParams): void {
    const limit = Math.min(Number(query.get('limit') ?? 100) || 100, 1000);
    const offset = Number(query.get('offset') ?? 0) || 0;
    let items: string[];
    if (this.behaviour.pagination === 'endless') {
      // Always a full page of fresh slugs, each carrying its HTML: a provider that never ends.
      items = Array.from({ length: limit }, (_, i) =>
        JSON.stringify({
          slug: `endless-${offset + i}`,
          title: `Endless ${offset + i}`,
          html: '<p>again</p>',
        }),
      );
    } else {
      const slugs = [...this.articles.keys()];
      const from = this.behaviour.pagination === 'repeat' ? 0 : offset;
      items = slugs
        .slice(from, from + limit)
        .map((s) => (this.behaviour.listIncludesHtml ? this.cached(s).detail : this.cached(s).summary));
    }
    const list = `[${items.join(',')}]`;
    const shape = this.behaviour.listShape;
    send(res, 200, shape === 'bare' ? list : `{"${shape}":${list},"total":${this.articles.size}}`);
  }
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
}

/** Starts the fake on a free loopback port (or `port`), checking `Authorization: Bearer <apiKey>`. */
export async function startFakeContentApi(
  options: { apiKey?: string; articles?: readonly RawArticle[]; port?: number } = {},
): Promise<FakeContentApi> {
  let api: FakeContentApi | undefined;
  const server = createServer((req, res) => {
    api?.handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  // Keep-alive connections must not outlive a test that stops the fake.
  server.keepAliveTimeout = 5_000;
  // A port already taken rejects (EADDRINUSE) rather than crashing the process from an 'error' event.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  api = new FakeContentApi(server, `http://127.0.0.1:${port}`, options.apiKey);
  api.setArticles(options.articles ?? []);
  return api;
}

/**
 * Why the demo cannot listen on `port`, in one line saying what to do; undefined for an error it does
 * not know (thrown as it is).
 */
export function demoListenProblem(error: unknown, port: number): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const other = port === 4011 ? 4012 : 4011;
  if (code === 'EADDRINUSE')
    return (
      `port ${port} on 127.0.0.1 is taken (by another program, or a fake content API still running): stop ` +
      `it, or choose another port: FAKE_CONTENT_API_PORT=${other} npm run demo:content-api, and start the ` +
      `service with CONTENT_API_URL=http://127.0.0.1:${other}`
    );
  if (code === 'EACCES')
    return `port ${port} may not be used by this user: choose another with FAKE_CONTENT_API_PORT`;
  return undefined;
}

// `npm run demo:content-api`: the sample articles on a fixed port, for the local walkthrough.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.env.FAKE_CONTENT_API_PORT ?? 4010);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    console.error(
      `FAKE_CONTENT_API_PORT must be a port number (1-65535), not ${process.env.FAKE_CONTENT_API_PORT}`,
    );
    process.exit(1);
  }
  const apiKey = process.env.CONTENT_API_KEY ?? 'demo-content-key';
  const base = `http://127.0.0.1:${port}`;
  const api = await startFakeContentApi({ apiKey, port, articles: sampleArticles(base) }).catch(
    (error: unknown) => {
      const problem = demoListenProblem(error, port);
      if (problem === undefined) throw error;
      console.error(problem);
      process.exit(1);
    },
  );
  console.log(`fake content API on ${api.url} (key: ${apiKey}), ${sampleArticles().length} articles`);
  console.log(
    `try: curl -H "Authorization: Bearer ${apiKey}" "${api.url}/posts?kind=blog&limit=100&offset=0"`,
  );
  const stop = () => void api.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
