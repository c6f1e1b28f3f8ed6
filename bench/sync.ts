/**
 * `npm run bench:sync`: the content sync and the public page.
 *
 * 1. A full sync of 5,000 articles of about 20 KB from the fake content API (in its own process, on
 *    loopback), against only fetching the same pages and articles with the same client (target: the sync
 *    takes at most 1.5x the fetching).
 * 2. The same full sync again, nothing changed: it must append no event.
 * 3. GET /blog/:slug requests per second (autocannon, in its own process) against Fastify sending the
 *    same HTML from memory (target: at least 0.5x).
 *
 * The file plays three parts: the benchmark (no argument), the fake content API (`fake`) and the load
 * generator (`load`), so that each runs in a process of its own. Knobs: BENCH_SYNC_ARTICLES,
 * BENCH_SYNC_LOAD_SECONDS; BENCH_SMOKE=1 runs it on tiny sizes (bench/lib/smoke.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { service } from '../app/modules.ts';
import { syncRoutes } from '../commands/content/sync-articles.ts';
import { blogPageRoutes } from '../queries/content/blog-page.ts';
import { ContentApiClient } from '../src/content-api/client.ts';
import { generatedArticle } from '../test/support/content-samples.ts';
import { startFakeContentApi } from '../test/support/fake-content-api.ts';
import { type HttpLoad, httpLoad, listenOnLoopback, openBenchApp } from './lib/bench-app.ts';
import { startBenchServer } from './lib/postgres.ts';
import { describeMachine, markdownTable, textTable, writeBenchmarkSection } from './lib/report.ts';
import { sized } from './lib/smoke.ts';
import { CPU_HEADERS, cpuRow, fetchAll, fetchAndInsertRaw, measured } from './lib/sync-passes.ts';
import { formatRatio, numberFromEnv } from './lib/timing.ts';

const ARTICLES = numberFromEnv('BENCH_SYNC_ARTICLES', 5000, 20);
const ARTICLE_BYTES = 20_000;
const LOAD_SECONDS = numberFromEnv('BENCH_SYNC_LOAD_SECONDS', 10, 0.3);
const WARMUP_SECONDS = sized(2, 0.1);
/** Rounds of the page load on each side (each a process of its own). */
const LOAD_ROUNDS = sized(2, 1);
const CONNECTIONS = sized(32, 4);
const KEY = 'bench-content-key';
const CRON = 'bench-cron-secret';
const SELF = fileURLToPath(import.meta.url);

function child(role: string, args: string[] = []): { process: ChildProcess; firstLine: Promise<string> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', SELF, role, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const firstLine = new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const newline = out.indexOf('\n');
      if (newline >= 0) resolve(out.slice(0, newline));
    });
    proc.once('exit', (code) => reject(new Error(`${role} exited (${code}) before answering`)));
  });
  return { process: proc, firstLine };
}

async function load(url: string): Promise<HttpLoad> {
  const runner = child('load', [url, String(LOAD_SECONDS)]);
  return JSON.parse(await runner.firstLine);
}

async function main(): Promise<void> {
  const server = await startBenchServer();
  const fake = child('fake');
  const fakeUrl = await fake.firstLine;
  const client = () => new ContentApiClient({ baseUrl: fakeUrl, apiKey: KEY });
  const bench = await openBenchApp(server, 'sync', {
    projections: service.projections,
    routes: [syncRoutes({ client: client() }), blogPageRoutes],
    env: { LOG_LEVEL: 'warn', CRON_SECRET: CRON, SITE_URL: 'https://site.test' },
  });
  const { app, deps } = bench;
  const { pool } = deps;
  const load1 = loadavg()[0]!;
  try {
    console.log(
      `fetch only: ${ARTICLES} articles of ~${ARTICLE_BYTES / 1000} KB (a warm-up pass, then measured) ...`,
    );
    await fetchAll(client());
    const fetchedBefore = await measured(fake.process.pid, () => fetchAll(client()));
    const fullSync = () =>
      app.inject({ method: 'GET', url: '/api/content/sync', headers: { authorization: `Bearer ${CRON}` } });
    const countEvents = async () => Number((await pool.query('SELECT count(*) FROM events')).rows[0].count);
    console.log('full sync (first) ...');
    const first = await measured(fake.process.pid, fullSync);
    const firstBody = first.value.json();
    const afterFirst = await countEvents();
    console.log('full sync (unchanged) ...');
    const second = await measured(fake.process.pid, fullSync);
    const appendedBySecond = (await countEvents()) - afterFirst;
    const secondBody = second.value.json();
    console.log('fetch only, again ...');
    const fetchedAfter = await measured(fake.process.pid, () => fetchAll(client()));
    console.log('floor: the same fetches, each article written raw into two plain tables ...');
    const floor = await measured(fake.process.pid, () => fetchAndInsertRaw(client(), pool));
    // The faster of the two fetch passes is the baseline: on a shared machine that is the fairer one.
    const fetched = fetchedBefore.seconds <= fetchedAfter.seconds ? fetchedBefore : fetchedAfter;

    const slug = generatedArticle(ARTICLES >> 1, 0).slug;
    const pageUrl = `${bench.url}/blog/${slug}`;
    const html = await (await fetch(pageUrl)).text();
    const memory = Fastify();
    memory.get('/blog/:slug', async (_request, reply) => reply.type('text/html; charset=utf-8').send(html));
    const memoryUrl = `${await listenOnLoopback(memory)}/blog/${slug}`;
    console.log(`GET /blog/:slug for ${LOAD_SECONDS} s, then the same HTML from memory ...`);
    // Two rounds each, alternating, the better round kept: the load of other work varies over time.
    const best = (a: HttpLoad, b: HttpLoad) => (a.rps >= b.rps ? a : b);
    let ours = await load(pageUrl);
    let baseline = await load(memoryUrl);
    for (let round = 1; round < LOAD_ROUNDS; round++) {
      ours = best(ours, await load(pageUrl));
      baseline = best(baseline, await load(memoryUrl));
    }
    await memory.close();

    const rows = [
      [
        'fetch only: list pages + article requests',
        `${fetched.seconds.toFixed(2)} s`,
        `${fetched.value} articles; passes before and after the syncs: ${fetchedBefore.seconds.toFixed(2)} s, ${fetchedAfter.seconds.toFixed(2)} s`,
      ],
      [
        'floor: fetch + raw batched INSERTs into two plain tables',
        `${floor.seconds.toFixed(2)} s`,
        `${formatRatio(floor.seconds, fetched.seconds)} of fetch only: no event store, validation, hashing or projection`,
      ],
      [
        'full sync, first (stored, rows visible)',
        `${first.seconds.toFixed(2)} s`,
        `${firstBody.synced} synced, ${firstBody.errors.length} errors, ${formatRatio(first.seconds, fetched.seconds)} of fetch only (target <= 1.5x), ${formatRatio(first.seconds, floor.seconds)} of the floor`,
      ],
      [
        'full sync, unchanged',
        `${second.seconds.toFixed(2)} s`,
        `${secondBody.synced} reported, ${appendedBySecond} events appended (expected 0), ${formatRatio(second.seconds, fetched.seconds)} of fetch only`,
      ],
      [
        'GET /blog/:slug (stored row, rendered)',
        `${Math.round(ours.rps).toLocaleString('en-US')} req/s`,
        `p50 ${ours.p50} ms, p99 ${ours.p99} ms, ${formatRatio(ours.rps, baseline.rps)} of memory (target >= 0.5x)`,
      ],
      [
        'Fastify, same HTML from memory',
        `${Math.round(baseline.rps).toLocaleString('en-US')} req/s`,
        `p50 ${baseline.p50} ms, p99 ${baseline.p99} ms`,
      ],
    ];
    const headers = ['measurement', 'result', 'notes'];
    const cpuHeaders = CPU_HEADERS;
    const cpuRows = [
      cpuRow('fetch only', fetched),
      cpuRow('floor (raw inserts)', floor),
      cpuRow('full sync, first', first),
      cpuRow('full sync, unchanged', second),
    ];
    console.log(`\n${textTable(headers, rows)}\n\n${textTable(cpuHeaders, cpuRows)}`);
    const page = Buffer.byteLength(html);
    const floorRatio = floor.seconds / fetched.seconds;
    const floorVerdict =
      floorRatio > 1.5
        ? `Here the floor itself takes ${floorRatio.toFixed(2)}x the fetch-only time (fetching alone keeps ${(fetched.cpu.node + (fetched.cpu.child ?? 0)).toFixed(1)} CPU seconds busy in ${fetched.seconds.toFixed(1)} s), so no such design meets the 1.5x target on this machine.`
        : `Here the floor takes ${floorRatio.toFixed(2)}x the fetch-only time, within the 1.5x target.`;
    const load2 = loadavg()[0]!;
    await writeBenchmarkSection(
      'Content sync',
      `Measured ${new Date().toISOString().slice(0, 10)} on ${describeMachine()}; PostgreSQL ${server.version} (${server.origin}); 1-minute load average ${load1.toFixed(1)} at the start and ${load2.toFixed(1)} at the end (other work shares the machine: read the ratios, not the absolute numbers).

${ARTICLES.toLocaleString('en-US')} generated articles of about ${ARTICLE_BYTES / 1000} KB of HTML each, served by the fake content API
(\`test/support/fake-content-api.ts\`) in a process of its own on loopback; list items carry no HTML, so every
article is one request, at most 8 in flight. "Fetch only" makes the same requests with the same client and
stores nothing. A full sync answers once site_content shows every row; every projection of the service runs
meanwhile, as under \`npm start\` (the others read the same events and skip them). The HTML is stored as it came and
sanitized when a page is first rendered (the page is then cached per process), so sanitizing is not part of
the sync. Page load: autocannon in its own process (a failed request fails the run), ${CONNECTIONS}
connections, ${LOAD_ROUNDS === 2 ? 'two alternating rounds' : `${LOAD_ROUNDS} round`} of ${LOAD_SECONDS} s each (the better kept), one article page of ${(page / 1000).toFixed(1)} KB.

${markdownTable(headers, rows)}

Where the time goes: CPU seconds spent by each process during the same passes (from /proc; "cores busy" is
total CPU over wall time, out of ${cpus().length}).

${markdownTable(cpuHeaders, cpuRows)}

The floor is the least that any design keeping an event and a page row for each article in one
PostgreSQL can do here: the same fetches, each article's JSON written as it arrives into two plain tables in
batches, nothing else. ${floorVerdict} The sync's distance to the floor is what the design adds: stream
revisions and their indexes, validation on append and again on read, the content hash, and reading every
event back for the projections.

What limits the full sync: the Node thread, not the network and not one slow statement. Fetching alone
keeps that thread busy (undici's per-request work and parsing 20 KB of JSON per article); a sync does all of
that on the same thread and, per article, maps it, hashes it, validates the event, writes it as JSON to
PostgreSQL, and, for the site_content projection in the same process, parses it back, validates it again and
writes it as JSON once more: five more passes over 20 KB, plus the garbage they leave. PostgreSQL meanwhile
parses both writes and compresses the event (pglz here; \`lz4\` where the server has it, see
src/migrations). Writes go in batches of up to 100 articles, one statement and one commit each
(\`appendToStreams\`, services/content/article-writer.ts), two batches in flight while fetching goes on, so no round
trip or commit waits on another. The unchanged pass appends nothing; it reads each article's last event
(one query per batch) to compare content hashes.
`,
    );
  } finally {
    await bench.close();
    fake.process.kill('SIGTERM');
    await server.stop();
  }
}

async function serveFake(): Promise<void> {
  const articles = Array.from({ length: ARTICLES }, (_, i) => generatedArticle(i, ARTICLE_BYTES));
  const api = await startFakeContentApi({ apiKey: KEY, articles });
  api.warm();
  process.stdout.write(`${api.url}\n`);
  process.on('SIGTERM', () => void api.close().then(() => process.exit(0)));
}

/** The load generator's own process: a warm-up, then the measured run; any failed request fails it. */
async function runLoad(url: string, seconds: number): Promise<void> {
  await httpLoad({ url, connections: CONNECTIONS, seconds: WARMUP_SECONDS });
  const result = await httpLoad({ url, connections: CONNECTIONS, seconds });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

const role = process.argv[2];
if (role === 'fake') await serveFake();
else if (role === 'load') await runLoad(process.argv[3]!, Number(process.argv[4]));
else await main();
