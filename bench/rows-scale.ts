/**
 * Rows at scale (`npm run bench:rows-scale`, issue 32): one table of 10 columns (text, email, number,
 * boolean, date, url, JSON) grown through the API to each of BENCH_SCALE_SIZES rows (10,000, 100,000,
 * 1,000,000), and at each size, one request at a time, p50 and p99 of BENCH_SCALE_SAMPLES requests of:
 * the first page sorted by each data type both ways, the 50th page by cursor, a selective text
 * equality, a number and a date range, a filter with a sort, and the estimate of a column with a
 * 3-rule condition; the import's rows/s; a column deleted and created again while the table is read
 * and written (bench/lib/rows-scale-schema.ts); and a run started over every row (the start request's
 * time and this process's RSS). Each figure beside the physical limit measured in the same run: the
 * same data in a plain PostgreSQL table of typed columns with the index each query needs, queried by
 * hand-written SQL through a bare Fastify route of the same process (inserted by plain INSERTs of the
 * same batches, with as many indexes, for the import). Targets are reported, never asserted.
 * Knobs: BENCH_SCALE_SIZES (comma-separated), BENCH_SCALE_SAMPLES, BENCH_SCALE_RUN=0 leaves the run out,
 * BENCH_SCALE_SCHEMA=0 the schema changes; BENCH_SCALE_RUN_WAIT_S bounds the wait for the run's end and
 * for each schema change; BENCH_SMOKE=1 runs it on tiny sizes (bench/lib/smoke.ts).
 */
import { loadavg } from 'node:os';
import Fastify from 'fastify';
import { service } from '../app/modules.ts';
import { createAuthenticator } from '../services/accounts/authenticator.ts';
import { bearer, bootstrapAccount, call } from '../test/support/accounts.ts';
import { createColumns } from '../test/support/rows.ts';
import { createTable } from '../test/support/tables.ts';
import { openBenchApp } from './lib/bench-app.ts';
import { startBenchServer } from './lib/postgres.ts';
import { writeBenchmarkSection } from './lib/report.ts';
import { createPlain, insertPlain, rowAt, serveBare } from './lib/rows-scale-data.ts';
import { type Figure, FLOOR, type Measure, report, type SizeResult } from './lib/rows-scale-report.ts';
import { schemaChanges } from './lib/rows-scale-schema.ts';
import { COLUMN_SPECS, DAY, EPOCH } from './lib/rows-workload.ts';
import { sized } from './lib/smoke.ts';
import { numberFromEnv, percentile } from './lib/timing.ts';

const SECTION = 'Rows at scale';
const settings = {
  sizes: (process.env.BENCH_SCALE_SIZES ?? sized('10000,100000,1000000', '300,1200'))
    .split(',')
    .map((s) => Number(s.trim())),
  samples: numberFromEnv('BENCH_SCALE_SAMPLES', 40, 4),
  run: process.env.BENCH_SCALE_RUN !== '0',
  schema: process.env.BENCH_SCALE_SCHEMA !== '0',
  runWaitSeconds: numberFromEnv('BENCH_SCALE_RUN_WAIT_S', 900, 60),
  runWorkSeconds: numberFromEnv('BENCH_SCALE_RUN_WORK_S', 10, 1),
  batch: 1000,
};
const log = (line: string) => process.stderr.write(`${line}\n`);
const loadAtStart = loadavg()[0]!.toFixed(1);

const FINAL = ['succeeded', 'partially_succeeded', 'failed', 'stopped'];
/** About how many rows the range filters match, at every size. */
const RANGE_ROWS = 200;
const figureOf = (ms: number[]): Figure => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
};

/** Milliseconds one request takes. */
async function msOf(send: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await send();
  return performance.now() - start;
}

/** One request at a time: 3 unmeasured, then `samples` timed. */
async function timed(send: (i: number) => Promise<unknown>, samples = settings.samples): Promise<Figure> {
  for (let i = 0; i < 3; i++) await send(i);
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) ms.push(await msOf(() => send(i)));
  return figureOf(ms);
}

/** A page read that returns the ids of its rows, in order. */
type Read = (i: number) => Promise<string[]>;
const idsOf = (rows: { id: string }[]) => rows.map((row) => row.id);

/**
 * The API's request and its limit's, one after the other at each sample (so that both see the same
 * moments of a shared machine), after 3 of each unmeasured; the first answers of both must list the
 * same rows in the same order, or the limit is not doing the API's job and the benchmark stops.
 */
async function timedPair(name: string, api: Read, limit: Read): Promise<{ api: Figure; limit: Figure }> {
  const [ours, theirs] = [await api(0), await limit(0)];
  if (ours.length === 0 || ours.join() !== theirs.join())
    throw new Error(`${name}: the API read ${ours.length} rows, its limit ${theirs.length}, not the same`);
  for (let i = 0; i < 3; i++) {
    await api(i);
    await limit(i);
  }
  const apiMs: number[] = [];
  const limitMs: number[] = [];
  for (let i = 0; i < settings.samples; i++) {
    apiMs.push(await msOf(() => api(i)));
    limitMs.push(await msOf(() => limit(i)));
  }
  return { api: figureOf(apiMs), limit: figureOf(limitMs) };
}

const server = await startBenchServer();
try {
  const bench = await openBenchApp(server, 'rows_scale', {
    projections: service.projections,
    routes: service.routes,
    authenticator: createAuthenticator,
    workers: service.workers,
  });
  const { pool } = bench.deps;
  const { url } = bench;
  const bare = Fastify();
  try {
    const account = await bootstrapAccount(url);
    const key = account.apiKey;
    const headers = bearer(key);
    const tableId = await createTable(url, key, 'At scale');
    const made = await createColumns(url, key, tableId, {
      ...COLUMN_SPECS,
      summary: {
        dataType: 'text',
        kind: 'enrichment',
        config: {
          provider: 'sync_to_table',
          destinationTableId: await createTable(url, key, 'Destination'),
          runCondition: {
            type: 'all',
            children: [
              {
                type: 'condition',
                columnKey: 'score',
                operator: 'greaterThan',
                value: 50,
                missingPolicy: 'false',
              },
              {
                type: 'condition',
                columnKey: 'city',
                operator: 'equals',
                value: 'paris',
                missingPolicy: 'false',
              },
              { type: 'condition', columnKey: 'active', operator: 'isTrue', missingPolicy: 'false' },
            ],
          },
        },
      },
      // Every row, no condition: what a run starts over.
      everything: {
        dataType: 'text',
        kind: 'enrichment',
        config: { provider: 'sync_to_table', destinationTableId: await createTable(url, key, 'Elsewhere') },
      },
    });
    await createPlain(pool);
    const bareUrl = await serveBare(bare, pool);
    const results: SizeResult[] = [];
    let rowsSoFar = 0;
    for (const size of settings.sizes) {
      log(`growing to ${size} rows`);
      const { api, plain } = await grow(rowsSoFar, size);
      rowsSoFar = size;
      // Both tables as fresh as each other: the API's rows were written again by the last size's
      // schema changes (a column's cells taken out), the plain table's never.
      await pool.query('VACUUM ANALYZE');
      const measures = await pages(size);
      const floor = await floorOf();
      const estimate = await estimateOf();
      const schema = settings.schema
        ? await schemaChanges({
            url,
            apiKey: key,
            pool,
            tableId,
            key: 'company',
            waitSeconds: settings.runWaitSeconds,
          })
        : undefined;
      const run = settings.run ? await runStart(size) : undefined;
      results.push({ size, measures, floor, importApi: api, importPlain: plain, estimate, schema, run });
      log(report(results, settings, server, loadAtStart).text);
    }
    const { text, markdown } = report(results, settings, server, loadAtStart);
    console.log(text);
    await writeBenchmarkSection(SECTION, markdown);

    /** Rows [from, to) through the API (batches of 1,000, one at a time) and by plain INSERTs: rows/s. */
    async function grow(from: number, to: number): Promise<{ api: number; plain: number }> {
      let apiMs = 0;
      let plainMs = 0;
      for (let first = from; first < to; first += settings.batch) {
        const ids = Array.from({ length: Math.min(settings.batch, to - first) }, (_, k) => first + k);
        const cells = ids.map(rowAt);
        const start = performance.now();
        const res = await call(url, 'POST', `/api/tables/${tableId}/rows`, {
          headers,
          body: { rows: cells.map((c) => ({ cells: c })) },
        });
        apiMs += performance.now() - start;
        if (res.status !== 201) throw new Error(`insert answered ${res.status}: ${JSON.stringify(res.body)}`);
        plainMs += await msOf(() => insertPlain(pool, res.body.data));
      }
      return { api: ((to - from) * 1000) / apiMs, plain: ((to - from) * 1000) / plainMs };
    }

    async function pages(size: number): Promise<Measure[]> {
      // Each returns the ids of the page it read: the API and its limit must answer the same rows.
      const get = (query: string) => async () => {
        const res = await call(url, 'GET', `/api/tables/${tableId}/rows?limit=100&${query}`, { headers });
        if (res.status !== 200) throw new Error(`GET ?${query} answered ${res.status}`);
        return idsOf(res.body.data);
      };
      const bareGet =
        (path: string, body: (i: number) => object = () => ({})) =>
        async (i: number) => {
          const res = await call(bareUrl, 'POST', path, { body: body(i) });
          if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
          return idsOf(res.body.data);
        };
      const measure = async (name: string, api: Read, limit: Read) => {
        const m = { name, ...(await timedPair(name, api, limit)) };
        log(`  ${size} ${name}: API p50 ${m.api.p50.toFixed(1)} ms, limit ${m.limit.p50.toFixed(1)} ms`);
        return m;
      };
      const filter = (f: object) => `filter=${encodeURIComponent(JSON.stringify(f))}`;
      const measures: Measure[] = [];
      for (const [key, type] of [
        ['name', 'text'],
        ['score', 'number'],
        ['active', 'boolean'],
        ['signed', 'date'],
      ] as const) {
        for (const desc of [false, true]) {
          measures.push(
            await measure(
              `first page by ${type}, ${desc ? 'desc' : 'asc'}`,
              get(`sort=${desc ? '-' : ''}${key}`),
              bareGet('/sorted', () => ({ column: key, desc })),
            ),
          );
        }
      }
      // The 50th page by cursor (the deepest a smaller table has): the API's cursor after 49 pages, and
      // the limit's keyset after the same row.
      let cursor: string | null = null;
      let last: { id: string; cells: { score?: number } } | undefined;
      for (let p = 0; p < 49; p++) {
        const res = await call(
          url,
          'GET',
          `/api/tables/${tableId}/rows?limit=100&sort=score${cursor ? `&cursor=${cursor}` : ''}`,
          { headers },
        );
        if (!res.body.nextCursor) break;
        cursor = res.body.nextCursor;
        last = res.body.data.at(-1);
      }
      measures.push(
        await measure(
          '50th page by cursor (number asc)',
          get(`sort=score${cursor ? `&cursor=${cursor}` : ''}`),
          last
            ? bareGet('/after', () => ({ score: last.cells.score ?? null, id: last.id }))
            : bareGet('/sorted', () => ({ column: 'score', desc: false })),
        ),
      );
      const named = (i: number) => rowAt((i * 7_777) % size).name as string;
      measures.push(
        await measure(
          'text equality (1 row)',
          (i) =>
            get(
              filter({
                mode: 'AND',
                filters: [{ columnKey: 'name', operator: 'equals', value: named(i).toUpperCase() }],
              }),
            )(),
          bareGet('/equals', (i) => ({ name: named(i).toLowerCase() })),
        ),
      );
      // Ranges that match about RANGE_ROWS rows whatever the size (a fixed share of a larger table would
      // be more rows to read, not a deeper index).
      const revenueWidth = Math.max(1, Math.round((100_000 * RANGE_ROWS) / size));
      const low = (i: number) => (i * 9_973) % (100_000 - revenueWidth);
      measures.push(
        await measure(
          `number range (about ${RANGE_ROWS} rows)`,
          (i) =>
            get(
              filter({
                mode: 'AND',
                filters: [
                  { columnKey: 'revenue', operator: 'greaterThanOrEqual', value: low(i) },
                  { columnKey: 'revenue', operator: 'lessThanOrEqual', value: low(i) + revenueWidth },
                ],
              }),
            )(),
          bareGet('/revenue', (i) => ({ low: low(i), high: low(i) + revenueWidth })),
        ),
      );
      const dateWidth = Math.max(60_000, Math.round((3650 * DAY * RANGE_ROWS) / size));
      const from = (i: number) => new Date(EPOCH + ((i * 37 * DAY) % (3640 * DAY))).toISOString();
      const to = (i: number) => new Date(EPOCH + ((i * 37 * DAY) % (3640 * DAY)) + dateWidth).toISOString();
      measures.push(
        await measure(
          `date range (about ${RANGE_ROWS} rows)`,
          (i) =>
            get(
              filter({
                mode: 'AND',
                filters: [
                  { columnKey: 'signed', operator: 'after', value: from(i) },
                  { columnKey: 'signed', operator: 'before', value: to(i) },
                ],
              }),
            )(),
          bareGet('/signed', (i) => ({ from: from(i), to: to(i) })),
        ),
      );
      measures.push(
        await measure(
          'filter + sort (city, by number desc)',
          get(
            `${filter({ mode: 'AND', filters: [{ columnKey: 'city', operator: 'equals', value: 'OSLO' }] })}&sort=-score`,
          ),
          bareGet('/city'),
        ),
      );
      return measures;
    }

    /**
     * What any request of the API costs beside a bare route: GET /api/tables/{id} (the key check, the
     * access hook, HTTP, one row read by its key) against the bare route's SELECT 1.
     */
    async function floorOf(): Promise<Measure> {
      return {
        name: FLOOR,
        api: await timed(async () => {
          const res = await call(url, 'GET', `/api/tables/${tableId}`, { headers });
          if (res.status !== 200) throw new Error(`GET the table answered ${res.status}`);
        }),
        limit: await timed(async () => {
          await call(bareUrl, 'POST', '/one');
        }),
      };
    }

    async function estimateOf(): Promise<Measure> {
      const path = `/api/tables/${tableId}/columns/${made.summary.id}/estimate`;
      const ours = await call(url, 'POST', path, { headers, body: { scope: 'all' } });
      const theirs = await call(bareUrl, 'POST', '/count');
      if (ours.body.eligible !== theirs.body.n)
        throw new Error(`the estimate (${ours.body.eligible}) is not the plain count (${theirs.body.n})`);
      const samples = Math.max(3, Math.round(settings.samples / 4));
      return {
        name: 'estimate, 3-rule condition (count)',
        api: await timed(async () => {
          const res = await call(url, 'POST', path, { headers, body: { scope: 'all' } });
          if (res.status !== 200) throw new Error(`estimate answered ${res.status}`);
        }, samples),
        limit: await timed(async () => {
          await call(bareUrl, 'POST', '/count');
        }, samples),
      };
    }

    /**
     * A run of a column with no condition over every row: the start request; then the run worked for
     * BENCH_SCALE_RUN_WORK_S, its progress read every half second, then stopped and waited for to its
     * end; this process's RSS sampled all along (the service, its workers and the client).
     */
    async function runStart(size: number): Promise<SizeResult['run']> {
      global.gc?.();
      const rssBefore = process.memoryUsage().rss;
      let rssPeak = rssBefore;
      const sampler = setInterval(() => {
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      }, 20);
      let result: Omit<NonNullable<SizeResult['run']>, 'limitMs' | 'rssBeforeMb' | 'rssPeakMb'>;
      try {
        const start = performance.now();
        const res = await call(url, 'POST', `/api/tables/${tableId}/columns/${made.everything.id}/run`, {
          headers,
          body: { scope: 'all' },
        });
        const startMs = performance.now() - start;
        if (res.status !== 202)
          throw new Error(`run start answered ${res.status}: ${JSON.stringify(res.body)}`);
        const runId = res.body.id;
        log(`  ${size} run start answered in ${startMs.toFixed(0)} ms`);
        let hidden = 0;
        let done = 0;
        const progress = async () => {
          const got = await call(url, 'GET', `/api/runs/${runId}`, { headers });
          if (got.status === 404) {
            hidden++;
            return undefined;
          }
          if (got.status !== 200) throw new Error(`GET the run answered ${got.status}`);
          const { counts } = got.body;
          done = counts.succeeded + counts.failed;
          return got.body;
        };
        const working = performance.now() + settings.runWorkSeconds * 1000;
        while (performance.now() < working) {
          await progress();
          await new Promise((r) => setTimeout(r, 500));
        }
        const worked = done;
        const stopped = await call(url, 'POST', `/api/runs/${runId}/stop`, { headers });
        if (stopped.status !== 200) log(`  ${size} the stop answered ${stopped.status}`);
        // Until the run has ended (its rows not started are skipped), at most BENCH_SCALE_RUN_WAIT_S.
        const deadline = performance.now() + settings.runWaitSeconds * 1000;
        let ended = false;
        while (!ended && performance.now() < deadline) {
          const run = await progress();
          ended = run !== undefined && FINAL.includes(run.status);
          if (!ended) await new Promise((r) => setTimeout(r, 500));
        }
        if (!ended) log(`  ${size} the run had not ended after ${settings.runWaitSeconds} s`);
        if (hidden > 0) log(`  ${size} GET /api/runs/{id} answered 404 ${hidden} times`);
        result = {
          startMs,
          rows: size,
          hidden,
          worked,
          endedS: ended ? (performance.now() - start) / 1000 : undefined,
        };
      } finally {
        clearInterval(sampler);
      }
      // The limit: the ids of every row read in one statement (the least a start listing them does).
      const limitStart = performance.now();
      await call(bareUrl, 'POST', '/ids');
      const limitMs = performance.now() - limitStart;
      const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
      log(`  ${size} run start ${result.startMs.toFixed(0)} ms, RSS ${mb(rssBefore)} -> ${mb(rssPeak)} MB`);
      return { ...result, limitMs, rssBeforeMb: mb(rssBefore), rssPeakMb: mb(rssPeak) };
    }
  } finally {
    await bare.close();
    await bench.close();
  }
} finally {
  await server.stop();
}
