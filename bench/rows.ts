/**
 * Rows benchmark (`npm run bench:rows`), each comparison side by side in one run:
 *
 * 1. Import BENCH_ROWS (100,000) rows of 10 columns through POST .../rows in batches of 1,000, one
 *    batch at a time, until every row is readable; against a floor: the same batches written with
 *    plain INSERTs into an append-only table and a read-model table of the same PostgreSQL (one
 *    transaction per batch, no validation, no event store). Target: >= 0.5x the floor's rate.
 * 2. GET .../rows with a 10-rule filter and a sort over those rows, 100 a page, at 16 connections,
 *    against a bare Fastify route running the same query hand-written. Target: >= 0.8x.
 * 3. POST .../columns/{id}/estimate with a 51-node run condition over those rows, against a bare
 *    route running the hand-written count(*). Target: >= 0.5x.
 * Knobs: BENCH_ROWS, BENCH_SECONDS (per round), BENCH_ROUNDS; BENCH_IMPORT_ONLY=1 measures the import
 * alone and prints it without writing docs/benchmarks.md; BENCH_SMOKE=1 runs it on tiny sizes
 * (bench/lib/smoke.ts).
 */
import { loadavg } from 'node:os';
import { columnsFeature } from '../app/features/columns.ts';
import { rowsFeature } from '../app/features/rows.ts';
import { runsFeature } from '../app/features/runs.ts';
import { tablesFeature } from '../app/features/tables.ts';
import { createAuthenticator } from '../services/accounts/authenticator.ts';
import { accounts, bearer, bootstrapAccount, call } from '../test/support/accounts.ts';
import { createColumns } from '../test/support/rows.ts';
import { createTable } from '../test/support/tables.ts';
import { type BareRows, serveBareRows } from './lib/bare-rows.ts';
import { type HttpLoad, httpLoad, openBenchApp } from './lib/bench-app.ts';
import { startBenchServer } from './lib/postgres.ts';
import { writeBenchmarkSection } from './lib/report.ts';
import { alternatingRounds, summariseRounds } from './lib/rounds.ts';
import { measureImports } from './lib/rows-import.ts';
import { importOnlyText, rowsMarkdown, rowsText } from './lib/rows-report.ts';
import { COLUMN_SPECS, estimateCondition, LIST_FILTER, LIST_SORT, makeRows } from './lib/rows-workload.ts';
import { sized } from './lib/smoke.ts';
import { measureLoad, numberFromEnv } from './lib/timing.ts';

const SECTION = 'Rows';
const settings = {
  rows: numberFromEnv('BENCH_ROWS', 100_000, 2000),
  batch: 1000,
  seconds: numberFromEnv('BENCH_SECONDS', 5, 0.3),
  rounds: numberFromEnv('BENCH_ROUNDS', 3, 1),
  connections: sized(16, 4),
  estimateConcurrency: 4,
  warmupSeconds: sized(2, 0.1),
  importOnly: process.env.BENCH_IMPORT_ONLY === '1',
};
const log = (line: string) => process.stderr.write(`${line}\n`);
const loadAtStart = loadavg()[0]!.toFixed(1);

const server = await startBenchServer();
try {
  const bench = await openBenchApp(server, 'rows', {
    projections: [
      ...accounts.projections,
      ...[tablesFeature, columnsFeature, rowsFeature].flatMap((f) => f.projections),
      // The rows read joins the runs read model (a column's run state), so its table must exist.
      ...runsFeature.projections,
    ],
    routes: [
      ...accounts.routes,
      ...[tablesFeature, columnsFeature, rowsFeature].flatMap((f) => [...f.commands, ...f.queries]),
    ],
    authenticator: createAuthenticator,
  });
  const { pool } = bench.deps;
  const { url } = bench;
  let bare: BareRows | undefined;
  try {
    const { apiKey } = await bootstrapAccount(url);
    const tableId = await createTable(url, apiKey, 'Benchmark');
    const made = await createColumns(url, apiKey, tableId, {
      ...COLUMN_SPECS,
      summary: {
        dataType: 'text',
        kind: 'enrichment',
        config: { provider: 'llm', llmLane: 'fast', runCondition: estimateCondition() },
      },
    });
    const columns = Object.values(made).map((c) => ({
      id: c.id,
      key: c.key,
      kind: c.kind,
      dataType: c.dataType,
    }));
    const data = makeRows(settings.rows);

    // 1. Import: the floor first, then the API, each in its own tables of the same database.
    const imports = await measureImports({
      server,
      pool,
      url,
      apiKey,
      tableId,
      data,
      batch: settings.batch,
      log,
    });

    if (settings.importOnly) {
      console.log(importOnlyText(imports, loadAtStart));
      process.exitCode = 0;
    } else await listAndEstimate();
    async function listAndEstimate() {
      // The bare routes: the hand-written SQL on the same pool, rows mapped by the same function.
      bare = await serveBareRows(pool, tableId, columns);
      const bareUrl = bare.url;
      const listPath = `/api/tables/${tableId}/rows?sort=${encodeURIComponent(LIST_SORT)}&filter=${encodeURIComponent(JSON.stringify(LIST_FILTER))}`;
      const ours = await call(url, 'GET', listPath, { headers: bearer(apiKey) });
      const theirs = await call(bareUrl, 'GET', '/bare/list');
      if (
        JSON.stringify(ours.body.data) !== JSON.stringify(theirs.body.data) ||
        ours.body.data.length !== 100
      ) {
        throw new Error('the bare list does not answer what the API answers');
      }
      const estimatePath = `/api/tables/${tableId}/columns/${made.summary.id}/estimate`;
      const estimated = await call(url, 'POST', estimatePath, {
        headers: bearer(apiKey),
        body: { scope: 'all' },
      });
      const counted = await call(bareUrl, 'POST', '/bare/count');
      if (estimated.body.eligible !== counted.body.eligible) {
        throw new Error(
          `the bare count (${counted.body.eligible}) is not the estimate's (${estimated.body.eligible})`,
        );
      }
      log(`estimate: ${estimated.body.eligible} of ${estimated.body.candidates} eligible`);

      // 2. List, alternating rounds at 16 connections.
      const lists = [
        { name: 'GET .../rows, filter + sort (API)', url: `${url}${listPath}`, rounds: [] as HttpLoad[] },
        { name: 'bare Fastify, hand-written SQL', url: `${bareUrl}/bare/list`, rounds: [] as HttpLoad[] },
      ];
      const load = (target: string, seconds: number) =>
        httpLoad({ url: target, connections: settings.connections, seconds, headers: bearer(apiKey) });
      for (const v of lists) await load(v.url, settings.warmupSeconds);
      await alternatingRounds(lists, settings.rounds, async (v, round) => {
        v.rounds.push(await load(v.url, settings.seconds));
        log(`round ${round + 1} ${v.name}: ${Math.round(v.rounds.at(-1)!.rps)} req/s`);
      });
      const list = lists.map((v) => summariseRounds(v.name, v.rounds));

      // 3. Estimate, alternating rounds, a closed loop of a few callers (each request counts 100,000 rows).
      const estimates = [
        {
          name: 'POST .../estimate, 51-node condition (API)',
          call: () => call(url, 'POST', estimatePath, { headers: bearer(apiKey), body: { scope: 'all' } }),
          rounds: [] as HttpLoad[],
        },
        {
          name: 'bare Fastify, hand-written count(*)',
          call: () => call(bareUrl, 'POST', '/bare/count'),
          rounds: [] as HttpLoad[],
        },
      ];
      await alternatingRounds(estimates, settings.rounds, async (v, round) => {
        const m = await measureLoad({
          concurrency: settings.estimateConcurrency,
          seconds: settings.seconds,
          warmupSeconds: round === 0 ? settings.warmupSeconds : 0,
          op: async () => {
            const res = await v.call();
            if (res.status !== 200) throw new Error(`${v.name} answered ${res.status}`);
            return 1;
          },
        });
        v.rounds.push({ rps: m.opsPerSec, p50: m.p50Ms, p99: m.p99Ms });
        log(`round ${round + 1} ${v.name}: ${m.opsPerSec.toFixed(1)}/s`);
      });
      const estimate = estimates.map((v) => summariseRounds(v.name, v.rounds));

      const results = { settings, imports, list, estimate };
      console.log(rowsText(results));
      await writeBenchmarkSection(SECTION, rowsMarkdown(results, server, loadAtStart));
    }
  } finally {
    await bare?.close();
    await bench.close();
  }
} finally {
  await server.stop();
}
