/**
 * Columns benchmark (`npm run bench:columns`).
 *
 * 1. GET /api/tables/{id}/columns of a 50-column table at 50 connections (autocannon in a worker
 *    thread) against a bare Fastify route (no auth hook, no schema serializer) running the same SQL
 *    (LIST_COLUMNS_SQL) on the same pool, in this process, alternating rounds; medians.
 *    Target: the real route >= 0.8x the bare route's throughput.
 * 2. PATCH end to end (append to the column stream, wait for the columns projection, answer) at
 *    concurrency 16: each worker patches its own column, then all 16 patch one column (revision
 *    conflicts and retries). A closed loop of fetch calls from this process; p50 and p99.
 * Knobs: BENCH_SECONDS (per round), BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_PATCH_SECONDS.
 */
import { loadavg } from 'node:os';
import Fastify from 'fastify';
import { type ColumnRow, columnFromRow } from '../projections/columns/columns.ts';
import { LIST_COLUMNS_SQL } from '../queries/columns/list-columns.ts';
import { createAuthenticator } from '../src/auth/authenticator.ts';
import { columnsFeature } from '../src/domain/columns/feature.ts';
import { tablesFeature } from '../src/domain/tables/feature.ts';
import { accounts, bearer, bootstrapAccount, call } from '../test/support/accounts.ts';
import { createColumn, createTable } from '../test/support/tables.ts';
import { type HttpLoad, httpLoad, listenOnLoopback, median, openBenchApp } from './lib/bench-app.ts';
import { startBenchServer } from './lib/postgres.ts';
import { describeMachine, markdownTable, textTable, writeBenchmarkSection } from './lib/report.ts';
import { measureLoad, numberFromEnv } from './lib/timing.ts';

const SECTION = 'Columns';
const TARGET = 0.8;

const settings = {
  seconds: numberFromEnv('BENCH_SECONDS', 5),
  rounds: numberFromEnv('BENCH_ROUNDS', 3),
  connections: numberFromEnv('BENCH_CONNECTIONS', 50),
  patchSeconds: numberFromEnv('BENCH_PATCH_SECONDS', 8),
  patchConcurrency: 16,
  warmupSeconds: 2,
};

const log = (line: string) => process.stderr.write(`${line}\n`);

const load = (url: string, apiKey: string, seconds: number) =>
  httpLoad({ url, connections: settings.connections, seconds, headers: bearer(apiKey) });

/** A 50-column table whose configs look like real ones: providers, templates, run conditions. */
async function seedTable(url: string, apiKey: string): Promise<{ tableId: string; columnIds: string[] }> {
  const tableId = await createTable(url, apiKey, 'Benchmark');
  const columnIds: string[] = [];
  for (let i = 0; i < 50; i++) {
    const config =
      i === 0
        ? {}
        : i % 3 === 0
          ? {
              provider: 'http_request',
              method: 'POST',
              url: 'https://api.example.test/{{c0}}',
              body: { q: '{{c0}}' },
            }
          : {
              provider: 'llm',
              mode: 'basic',
              promptSource: 'generated',
              llmLane: 'very_fast',
              prompt: `Summarise {{c0}} in ${i} words`,
              runCondition: {
                type: 'all',
                children: [
                  { type: 'condition', columnKey: 'c0', operator: 'isNotEmpty', missingPolicy: 'false' },
                ],
              },
            };
    const column = await createColumn(url, apiKey, tableId, {
      label: `Column ${i}`,
      key: `c${i}`,
      kind: i === 0 ? 'input' : 'enrichment',
      dataType: 'text',
      config,
    });
    columnIds.push(column.id);
  }
  return { tableId, columnIds };
}

// Other work on the machine skews a run; the report states the load it started under.
const loadAtStart = loadavg()[0]!.toFixed(1);
const server = await startBenchServer();
try {
  const bench = await openBenchApp(server, 'columns', {
    projections: [...accounts.projections, ...tablesFeature.projections, ...columnsFeature.projections],
    routes: [
      ...accounts.routes,
      ...[tablesFeature, columnsFeature].flatMap((f) => [...f.commands, ...f.queries]),
    ],
    authenticator: createAuthenticator,
  });
  const { pool } = bench.deps;
  const { url } = bench;
  const bare = Fastify();
  try {
    // The baseline: Fastify, the same SQL on the same pool, rows mapped the same way, nothing else.
    bare.get<{ Params: { tableId: string } }>('/bare/:tableId/columns', async (request) => {
      const { rows } = await pool.query(LIST_COLUMNS_SQL, [request.params.tableId]);
      return rows.flatMap((row: ColumnRow) => (row.id === null ? [] : [columnFromRow(row)]));
    });
    const bareUrl = await listenOnLoopback(bare);

    const account = await bootstrapAccount(url);
    const { tableId, columnIds } = await seedTable(url, account.apiKey);
    const ours = await call(url, 'GET', `/api/tables/${tableId}/columns`, {
      headers: bearer(account.apiKey),
    });
    const theirs = await call(bareUrl, 'GET', `/bare/${tableId}/columns`);
    if (JSON.stringify(ours.body) !== JSON.stringify(theirs.body) || ours.body.length !== 50) {
      throw new Error('the bare route does not answer what the API answers');
    }

    // 1. GET columns, alternating rounds.
    const variants = [
      {
        name: 'GET .../columns (API)',
        url: `${url}/api/tables/${tableId}/columns`,
        rounds: [] as HttpLoad[],
      },
      { name: 'bare Fastify, same SQL', url: `${bareUrl}/bare/${tableId}/columns`, rounds: [] as HttpLoad[] },
    ];
    for (const v of variants) await load(v.url, account.apiKey, settings.warmupSeconds);
    for (let round = 0; round < settings.rounds; round++) {
      for (const v of round % 2 ? [...variants].reverse() : variants) {
        const result = await load(v.url, account.apiKey, settings.seconds);
        v.rounds.push(result);
        log(`round ${round + 1} ${v.name}: ${Math.round(result.rps)} req/s, p99 ${result.p99} ms`);
      }
    }
    const get = variants.map((v) => ({
      name: v.name,
      rps: median(v.rounds.map((r) => r.rps)),
      p50: median(v.rounds.map((r) => r.p50)),
      p99: median(v.rounds.map((r) => r.p99)),
    }));
    const ratio = get[0]!.rps / get[1]!.rps;
    const verdict = `${ratio.toFixed(2)}x (target >= ${TARGET}x: ${ratio >= TARGET ? 'met' : 'NOT met'})`;

    // 2. PATCH end to end, on llm columns (their config is open to the extra key each PATCH sets).
    const llmColumns = columnIds.filter((_, i) => i > 0 && i % 3 !== 0);
    const patch = (columnId: string, seq: number) =>
      call(url, 'PATCH', `/api/tables/${tableId}/columns/${columnId}`, {
        headers: bearer(account.apiKey),
        body: { label: `Label ${seq}`, config: { bench: seq } },
      }).then((answer) => {
        if (answer.status !== 200)
          throw new Error(`PATCH answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        return 1;
      });
    const own = await measureLoad({
      concurrency: settings.patchConcurrency,
      seconds: settings.patchSeconds,
      warmupSeconds: settings.warmupSeconds,
      op: (worker, seq) => patch(llmColumns[worker]!, seq * 100 + worker),
    });
    log(`PATCH, own column each: ${Math.round(own.opsPerSec)}/s, p50 ${own.p50Ms.toFixed(1)} ms`);
    const shared = await measureLoad({
      concurrency: settings.patchConcurrency,
      seconds: settings.patchSeconds,
      warmupSeconds: settings.warmupSeconds,
      op: (worker, seq) => patch(llmColumns.at(-1)!, seq * 100 + worker),
    });
    log(`PATCH, one shared column: ${Math.round(shared.opsPerSec)}/s, p50 ${shared.p50Ms.toFixed(1)} ms`);

    const getHeaders = ['GET columns, 50 columns', 'req/s (median)', 'p50 ms', 'p99 ms'];
    const getRows = get.map((s) => [s.name, String(Math.round(s.rps)), String(s.p50), String(s.p99)]);
    const patchHeaders = [
      `PATCH column, concurrency ${settings.patchConcurrency}`,
      'PATCH/s',
      'p50 ms',
      'p99 ms',
    ];
    const patchRows = [
      ['each worker its own column', own],
      ['all workers one column (conflicts, retries)', shared],
    ].map(([name, m]) => {
      const r = m as typeof own;
      return [name as string, String(Math.round(r.opsPerSec)), r.p50Ms.toFixed(1), r.p99Ms.toFixed(1)];
    });
    console.log(
      `${textTable(getHeaders, getRows)}\n\nAPI / bare: ${verdict}\n\n${textTable(patchHeaders, patchRows)}`,
    );

    await writeBenchmarkSection(
      SECTION,
      [
        `Measured ${new Date().toISOString().slice(0, 10)} on ${describeMachine()}, PostgreSQL ${server.version} (${server.origin}); 1-minute load average ${loadAtStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end (other work on the machine shows as noise between rounds).`,
        '',
        `GET /api/tables/{id}/columns of a 50-column table (llm and http_request configs, run conditions), ` +
          `${settings.connections} connections (autocannon in a worker thread), ${settings.rounds} alternating rounds ` +
          `of ${settings.seconds} s after a ${settings.warmupSeconds} s warm-up each; medians. The API route runs the ` +
          'access hook with a real API key (verified-key cache), the request schema and the query, and serializes ' +
          'its rows without re-checking the response schema; the bare route is Fastify with the same SQL on the ' +
          'same pool and the same row mapping, nothing else.',
        '',
        markdownTable(getHeaders, getRows),
        '',
        `API / bare throughput: **${verdict}**.`,
        '',
        `PATCH /api/tables/{id}/columns/{id} end to end (read the column stream, decide, append, wait for the ` +
          `columns projection, answer): a closed loop of ${settings.patchConcurrency} concurrent fetch callers in the ` +
          `same process for ${settings.patchSeconds} s after a ${settings.warmupSeconds} s warm-up; each PATCH changes ` +
          'the label and a config key.',
        '',
        markdownTable(patchHeaders, patchRows),
      ].join('\n'),
    );
  } finally {
    // Before the server goes: its shutdown ends every connection, and ours must not be caught open.
    await bare.close();
    await bench.close();
  }
} finally {
  await server.stop();
}
