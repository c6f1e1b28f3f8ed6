/**
 * Columns benchmark (`npm run bench:columns`).
 *
 * 1. GET /api/tables/{id}/columns of a 50-column table at 50 connections (autocannon in a worker
 *    thread) against a bare Fastify route (no auth hook, no schema serializer) running the same SQL
 *    (LIST_COLUMNS_SQL) on the same pool, in this process, alternating rounds; medians.
 *    Target: the real route >= 0.8x the bare route's throughput.
 * 2. PATCH end to end (read the table's and the column's streams, decide, append, wait for the
 *    columns projection, answer) at concurrency 16, each worker patching its own column, against a
 *    bare Fastify route making the same change as one UPDATE of a plain table holding the same rows
 *    (bench/lib/bare-columns.ts), alternating rounds; medians. After each round a GET of every
 *    worker's column must show that worker's last PATCH. Target: >= 0.5x the bare route's PATCH/s;
 *    aims p50 < 15 ms, p99 < 40 ms. Then all 16 workers patch one column (conflicts and retries).
 *    Closed loops of fetch calls from this process.
 * Knobs: BENCH_SECONDS (per GET round), BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_PATCH_SECONDS (per
 * PATCH round); BENCH_SMOKE=1 runs it on tiny sizes (bench/lib/smoke.ts).
 */
import { loadavg } from 'node:os';
import { columnsFeature } from '../app/features/columns.ts';
import { runsFeature } from '../app/features/runs.ts';
import { tablesFeature } from '../app/features/tables.ts';
import { createAuthenticator } from '../services/accounts/authenticator.ts';
import { type Answer, accounts, bearer, bootstrapAccount, call } from '../test/support/accounts.ts';
import { createColumn, createTable } from '../test/support/tables.ts';
import { serveBareColumns } from './lib/bare-columns.ts';
import { type HttpLoad, httpLoad, median, openBenchApp } from './lib/bench-app.ts';
import { startBenchServer } from './lib/postgres.ts';
import { describeMachine, markdownTable, textTable, verdict, writeBenchmarkSection } from './lib/report.ts';
import { sized } from './lib/smoke.ts';
import { type Measurement, measureLoad, numberFromEnv } from './lib/timing.ts';

const SECTION = 'Columns';
const TARGET = 0.8;
const PATCH_TARGET = 0.5;
const PATCH_AIMS = { p50: 15, p99: 40 };

const settings = {
  seconds: numberFromEnv('BENCH_SECONDS', 5, 0.3),
  rounds: numberFromEnv('BENCH_ROUNDS', 3, 1),
  connections: numberFromEnv('BENCH_CONNECTIONS', 50, 4),
  patchSeconds: numberFromEnv('BENCH_PATCH_SECONDS', 5, 0.3),
  patchConcurrency: sized(16, 4),
  warmupSeconds: sized(2, 0.1),
  /** Columns of the table (a smoke run keeps enough llm columns for its PATCH workers). */
  columns: sized(50, 10),
};

const log = (line: string) => process.stderr.write(`${line}\n`);

const load = (url: string, apiKey: string, seconds: number) =>
  httpLoad({ url, connections: settings.connections, seconds, headers: bearer(apiKey) });

/** A 50-column table (settings.columns) whose configs look like real ones: providers, templates, run conditions. */
async function seedTable(url: string, apiKey: string): Promise<{ tableId: string; columnIds: string[] }> {
  const tableId = await createTable(url, apiKey, 'Benchmark');
  const columnIds: string[] = [];
  for (let i = 0; i < settings.columns; i++) {
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

/** Medians over rounds of closed-loop measurements. */
const medians = (rounds: readonly Measurement[]) => ({
  rps: median(rounds.map((r) => r.opsPerSec)),
  p50: median(rounds.map((r) => r.p50Ms)),
  p99: median(rounds.map((r) => r.p99Ms)),
});

const ok = (answer: Answer) => {
  if (answer.status !== 200) throw new Error(`answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return 1;
};

// Other work on the machine skews a run; the report states the load it started under.
const loadAtStart = loadavg()[0]!.toFixed(1);
const server = await startBenchServer();
try {
  const bench = await openBenchApp(server, 'columns', {
    projections: [
      ...accounts.projections,
      ...tablesFeature.projections,
      ...columnsFeature.projections,
      // A column's status reads the runs read model (running while a run of it has not ended), so the
      // list's SQL joins its table: without it both routes fail (relation "runs" does not exist).
      ...runsFeature.projections,
    ],
    routes: [
      ...accounts.routes,
      ...[tablesFeature, columnsFeature].flatMap((f) => [...f.commands, ...f.queries]),
    ],
    authenticator: createAuthenticator,
  });
  const { url } = bench;
  const account = await bootstrapAccount(url);
  const headers = bearer(account.apiKey);
  const { tableId, columnIds } = await seedTable(url, account.apiKey);
  // The baselines, on the API's pool; the PATCH one copies the columns as seeded.
  const bare = await serveBareColumns(bench.deps.pool);
  try {
    const ours = await call(url, 'GET', `/api/tables/${tableId}/columns`, { headers });
    const theirs = await call(bare.url, 'GET', `/bare/${tableId}/columns`);
    if (
      ours.status !== 200 ||
      JSON.stringify(ours.body) !== JSON.stringify(theirs.body) ||
      ours.body.length !== settings.columns
    ) {
      // Say what each answered: a failing query (a missing table, say) shows here, not as a mismatch.
      const shown = (answer: Answer) => `${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
      throw new Error(
        `the bare route does not answer what the API answers: the API ${shown(ours)}; the bare route ${shown(theirs)}`,
      );
    }

    // 1. GET columns, alternating rounds.
    const variants = [
      {
        name: 'GET .../columns (API)',
        url: `${url}/api/tables/${tableId}/columns`,
        rounds: [] as HttpLoad[],
      },
      {
        name: 'bare Fastify, same SQL',
        url: `${bare.url}/bare/${tableId}/columns`,
        rounds: [] as HttpLoad[],
      },
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
    const verdictText = verdict(ratio, TARGET);

    // 2. PATCH, on llm columns (their config is open to the extra key each PATCH sets): the API end to
    // end against the bare UPDATE, alternating rounds, each worker its own column.
    const llmColumns = columnIds.filter((_, i) => i > 0 && i % 3 !== 0);
    const body = (seq: number) => ({ label: `Label ${seq}`, config: { bench: seq } });
    const apiPatch = (columnId: string, seq: number) =>
      call(url, 'PATCH', `/api/tables/${tableId}/columns/${columnId}`, { headers, body: body(seq) }).then(ok);
    const barePatch = (columnId: string, seq: number) =>
      call(bare.url, 'PATCH', `/bare/columns/${columnId}`, { body: body(seq) }).then(ok);
    const lastSeq: number[] = [];
    const patchVariants = [
      { name: 'PATCH .../columns/{id} (API, end to end)', patch: apiPatch, rounds: [] as Measurement[] },
      { name: 'bare Fastify, one UPDATE', patch: barePatch, rounds: [] as Measurement[] },
    ];
    for (let round = 0; round < settings.rounds; round++) {
      for (const v of round % 2 ? [...patchVariants].reverse() : patchVariants) {
        const m = await measureLoad({
          concurrency: settings.patchConcurrency,
          seconds: settings.patchSeconds,
          warmupSeconds: settings.warmupSeconds,
          op: (worker, seq) => {
            lastSeq[worker] = seq * 100 + worker;
            return v.patch(llmColumns[worker]!, lastSeq[worker]!);
          },
        });
        v.rounds.push(m);
        log(`round ${round + 1} ${v.name}: ${Math.round(m.opsPerSec)}/s, p50 ${m.p50Ms.toFixed(1)} ms`);
        if (v.patch !== apiPatch) continue;
        // Read-your-writes, checked: a GET of each worker's column shows that worker's last PATCH.
        for (const [worker, seq] of lastSeq.entries()) {
          const got = await call(url, 'GET', `/api/tables/${tableId}/columns/${llmColumns[worker]}`, {
            headers,
          });
          if (got.body?.label !== `Label ${seq}`) throw new Error(`GET after PATCH: ${got.body?.label}`);
        }
      }
    }
    const [api, baseline] = patchVariants.map((v) => ({ name: v.name, ...medians(v.rounds) }));
    const patchRatio = api!.rps / baseline!.rps;
    const met = (yes: boolean) => (yes ? 'met' : 'NOT met');
    const patchVerdict =
      `${patchRatio.toFixed(3)}x (target >= ${PATCH_TARGET}x: ${met(patchRatio >= PATCH_TARGET)}); ` +
      `API p50 ${api!.p50.toFixed(1)} ms (aim < ${PATCH_AIMS.p50}: ${met(api!.p50 < PATCH_AIMS.p50)}), ` +
      `p99 ${api!.p99.toFixed(1)} ms (aim < ${PATCH_AIMS.p99}: ${met(api!.p99 < PATCH_AIMS.p99)})`;
    const shared = await measureLoad({
      concurrency: settings.patchConcurrency,
      seconds: settings.patchSeconds,
      warmupSeconds: settings.warmupSeconds,
      op: (worker, seq) => apiPatch(llmColumns.at(-1)!, seq * 100 + worker),
    });
    log(`PATCH, one shared column: ${Math.round(shared.opsPerSec)}/s, p50 ${shared.p50Ms.toFixed(1)} ms`);

    const getHeaders = [`GET columns, ${settings.columns} columns`, 'req/s (median)', 'p50 ms', 'p99 ms'];
    const getRows = get.map((s) => [s.name, String(Math.round(s.rps)), String(s.p50), String(s.p99)]);
    const patchHeaders = [
      `PATCH column, concurrency ${settings.patchConcurrency}`,
      'PATCH/s',
      'p50 ms',
      'p99 ms',
    ];
    const patchRows = [
      ...[api!, baseline!].map((r) => [
        `${r.name}, each worker its own column (median)`,
        r.rps,
        r.p50,
        r.p99,
      ]),
      ['API, all workers one column (conflicts, retries)', shared.opsPerSec, shared.p50Ms, shared.p99Ms],
    ].map(([name, rps, p50, p99]) => [
      name as string,
      String(Math.round(rps as number)),
      (p50 as number).toFixed(1),
      (p99 as number).toFixed(1),
    ]);
    console.log(
      `${textTable(getHeaders, getRows)}\n\nAPI / bare: ${verdictText}\n\n${textTable(patchHeaders, patchRows)}\n\n` +
        `PATCH API / bare: ${patchVerdict}`,
    );

    await writeBenchmarkSection(
      SECTION,
      [
        `Measured ${new Date().toISOString().slice(0, 10)} on ${describeMachine()}, PostgreSQL ${server.version} (${server.origin}); 1-minute load average ${loadAtStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end (other work on the machine shows as noise between rounds).`,
        '',
        `GET /api/tables/{id}/columns of a ${settings.columns}-column table (llm and http_request configs, run conditions), ` +
          `${settings.connections} connections (autocannon in a worker thread), ${settings.rounds} alternating rounds ` +
          `of ${settings.seconds} s after a ${settings.warmupSeconds} s warm-up each; medians. The API route runs the ` +
          'access hook with a real API key (verified-key cache), the request schema and the query, and serializes ' +
          'its rows without re-checking the response schema; the bare route is Fastify with the same SQL on the ' +
          'same pool and the same row mapping, nothing else.',
        '',
        markdownTable(getHeaders, getRows),
        '',
        `API / bare throughput: **${verdictText}**.`,
        '',
        `PATCH /api/tables/{id}/columns/{id} end to end (read what is new in the table's and the column's ` +
          `streams, decide, append, wait for the columns projection, answer), each PATCH changing the label and a ` +
          `config key: a closed loop of ${settings.patchConcurrency} concurrent fetch callers in the same process, ` +
          `each on its own column, against a bare Fastify instance of its own (no auth, no schemas) making the same ` +
          'change as one UPDATE of a plain table holding the same rows, on the same pool; ' +
          `${settings.rounds} alternating rounds of ${settings.patchSeconds} s after a ${settings.warmupSeconds} s ` +
          "warm-up each, medians. After each API round a GET of every worker's column showed that worker's last " +
          'PATCH. Then all workers on one column, API only.',
        '',
        markdownTable(patchHeaders, patchRows),
        '',
        `PATCH API / bare throughput: **${patchVerdict}**.`,
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
