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
 * alone and prints it without writing docs/benchmarks.md.
 */
import { loadavg } from 'node:os';
import Fastify from 'fastify';
import { ROW_FIELDS, ROWS, type RowRecord, storedFromRow } from '../projections/rows/rows.ts';
import { createAuthenticator } from '../src/auth/authenticator.ts';
import { columnsFeature } from '../src/domain/columns/feature.ts';
import { rowsFeature } from '../src/domain/rows/feature.ts';
import { rowView } from '../src/domain/rows/view.ts';
import { runsFeature } from '../src/domain/runs/feature.ts';
import { tablesFeature } from '../src/domain/tables/feature.ts';
import { accounts, bearer, bootstrapAccount, call } from '../test/support/accounts.ts';
import { createColumns } from '../test/support/rows.ts';
import { createTable } from '../test/support/tables.ts';
import { type HttpLoad, httpLoad, listenOnLoopback, median, openBenchApp } from './lib/bench-app.ts';
import { cpuSnapshot, serverCpu, serverCpuSpent } from './lib/cpu.ts';
import { startBenchServer } from './lib/postgres.ts';
import { describeMachine, markdownTable, textTable, writeBenchmarkSection } from './lib/report.ts';
import {
  COLUMN_SPECS,
  estimateCondition,
  handWrittenCondition,
  handWrittenList,
  LIST_FILTER,
  LIST_SORT,
  makeRows,
} from './lib/rows-workload.ts';
import { measureLoad, numberFromEnv } from './lib/timing.ts';

const SECTION = 'Rows';
const settings = {
  rows: numberFromEnv('BENCH_ROWS', 100_000),
  batch: 1000,
  seconds: numberFromEnv('BENCH_SECONDS', 5),
  rounds: numberFromEnv('BENCH_ROUNDS', 3),
  connections: 16,
  estimateConcurrency: 4,
  warmupSeconds: 2,
  importOnly: process.env.BENCH_IMPORT_ONLY === '1',
};
const log = (line: string) => process.stderr.write(`${line}\n`);
const cpuText = (cpu: { nodeMs: number; postgresMs: number }) =>
  `${cpu.nodeMs.toFixed(1)} / ${cpu.postgresMs.toFixed(1)}`;
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
  const bare = Fastify();
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
    const batches = Array.from({ length: Math.ceil(data.length / settings.batch) }, (_, i) =>
      data.slice(i * settings.batch, (i + 1) * settings.batch),
    );

    // 1. Import: the floor first, then the API, each in its own tables of the same database.
    await pool.query(`CREATE TABLE floor_log (position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      row_id text NOT NULL, data jsonb NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now())`);
    await pool.query(`CREATE TABLE floor_rows (table_id text NOT NULL, id text COLLATE "C" NOT NULL,
      cells jsonb NOT NULL, created_at timestamptz NOT NULL, PRIMARY KEY (table_id, id))`);
    /**
     * Sends the batches with `inFlight` requests at a time: seconds until the last is answered, and CPU
     * milliseconds per batch of this process (the service, and the client sending the batches) and of
     * the PostgreSQL server, which the machine's other load disturbs far less than the wall clock.
     */
    const importAt = async (
      inFlight: number,
      send: (batch: Record<string, unknown>[], index: number) => Promise<void>,
    ) => {
      await server.checkpoint();
      const nodeBefore = cpuSnapshot().node;
      const postgresBefore = await serverCpu(pool);
      const start = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next < batches.length) {
            const index = next++;
            await send(batches[index]!, index);
          }
        }),
      );
      const seconds = (performance.now() - start) / 1000;
      const postgres = serverCpuSpent(postgresBefore, await serverCpu(pool));
      const perBatch = (cpuSeconds: number | undefined) =>
        cpuSeconds === undefined ? Number.NaN : (cpuSeconds * 1000) / batches.length;
      return { seconds, nodeMs: perBatch(cpuSnapshot().node - nodeBefore), postgresMs: perBatch(postgres) };
    };
    const floorBatch = async (batch: Record<string, unknown>[], index: number, table: string) => {
      const payload = JSON.stringify(
        batch.map((cells, i) => ({
          id: `row_${String(index * settings.batch + i).padStart(26, '0')}`,
          cells,
        })),
      );
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(
          'INSERT INTO floor_log (row_id, data) SELECT id, cells FROM json_to_recordset($1::json) AS r(id text, cells jsonb)',
          [payload],
        );
        await client.query(
          `INSERT INTO floor_rows (table_id, id, cells, created_at)
           SELECT $2, id, cells, now() FROM json_to_recordset($1::json) AS r(id text, cells jsonb)`,
          [payload, table],
        );
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    };
    const apiBatch = async (batch: Record<string, unknown>[], table: string) => {
      const res = await call(url, 'POST', `/api/tables/${table}/rows`, {
        headers: bearer(apiKey),
        body: { rows: batch.map((cells) => ({ cells })) },
      });
      if (res.status !== 201)
        throw new Error(`import answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    };
    const readable = async (table: string) => {
      // Each request answers once its rows are readable; should read-your-writes have run out of time, wait.
      for (;;) {
        const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${ROWS} WHERE table_id = $1`, [
          table,
        ]);
        if (rows[0].n === data.length) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    type Cpu = { nodeMs: number; postgresMs: number };
    const imports: { inFlight: number; floor: number; api: number; floorCpu: Cpu; apiCpu: Cpu }[] = [];
    for (const inFlight of [1, 4]) {
      // The first pass imports into the table the list and estimate read; the second into one of its own.
      const table = inFlight === 1 ? tableId : await createTable(url, apiKey, `Import ${inFlight}`);
      if (table !== tableId) await createColumns(url, apiKey, table, COLUMN_SPECS);
      const floorTable = `floor-${inFlight}`;
      const floor = await importAt(inFlight, (batch, index) => floorBatch(batch, index, floorTable));
      const api = await importAt(inFlight, async (batch) => apiBatch(batch, table));
      await readable(table);
      imports.push({
        inFlight,
        floor: data.length / floor.seconds,
        api: data.length / api.seconds,
        floorCpu: floor,
        apiCpu: api,
      });
      log(
        `import, ${inFlight} in flight: floor ${Math.round(imports.at(-1)!.floor)} rows/s, API ${Math.round(imports.at(-1)!.api)} rows/s; ` +
          `CPU ms a batch (this process / PostgreSQL): floor ${cpuText(floor)}, API ${cpuText(api)}`,
      );
    }

    if (settings.importOnly) {
      console.log(
        imports
          .map(
            (i) =>
              `${i.inFlight} in flight: API ${Math.round(i.api)} rows/s, floor ${Math.round(i.floor)} rows/s ` +
              `(${(i.api / i.floor).toFixed(2)}x); CPU ms a batch (this process / PostgreSQL): ` +
              `API ${cpuText(i.apiCpu)}, floor ${cpuText(i.floorCpu)}`,
          )
          .join('\n'),
      );
      console.log(`load average ${loadAtStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end`);
      process.exitCode = 0;
    } else await listAndEstimate();
    async function listAndEstimate() {
      // The bare routes: the hand-written SQL on the same pool, rows mapped by the same function.
      const ids = new Map(columns.map((c) => [c.key, c.id]));
      bare.get('/bare/list', async () => {
        const values: unknown[] = [tableId];
        const id = (key: string) => {
          values.push(ids.get(key));
          return `$${values.length}`;
        };
        const { where, order } = handWrittenList(id);
        const { rows } = await pool.query<RowRecord>(
          `SELECT ${ROW_FIELDS} FROM ${ROWS} r WHERE r.table_id = $1 AND ${where} ORDER BY ${order} LIMIT 101`,
          values,
        );
        return { data: rows.slice(0, 100).map((r) => rowView(columns, storedFromRow(r))) };
      });
      bare.post('/bare/count', async () => {
        const values: unknown[] = [tableId];
        const id = (key: string) => {
          values.push(ids.get(key));
          return `$${values.length}`;
        };
        const { rows } = await pool.query(
          `SELECT count(*)::int AS n FROM ${ROWS} r WHERE r.table_id = $1 AND ${handWrittenCondition(id)}`,
          values,
        );
        return { eligible: rows[0].n };
      });
      const bareUrl = await listenOnLoopback(bare);
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
      for (let round = 0; round < settings.rounds; round++) {
        for (const v of round % 2 ? [...lists].reverse() : lists) {
          v.rounds.push(await load(v.url, settings.seconds));
          log(`round ${round + 1} ${v.name}: ${Math.round(v.rounds.at(-1)!.rps)} req/s`);
        }
      }
      const list = lists.map((v) => ({
        name: v.name,
        rps: median(v.rounds.map((r) => r.rps)),
        p50: median(v.rounds.map((r) => r.p50)),
        p99: median(v.rounds.map((r) => r.p99)),
      }));

      // 3. Estimate, alternating rounds, a closed loop of a few callers (each request counts 100,000 rows).
      const estimates = [
        {
          name: 'POST .../estimate, 51-node condition (API)',
          call: () => call(url, 'POST', estimatePath, { headers: bearer(apiKey), body: { scope: 'all' } }),
          rounds: [] as number[][],
        },
        {
          name: 'bare Fastify, hand-written count(*)',
          call: () => call(bareUrl, 'POST', '/bare/count'),
          rounds: [] as number[][],
        },
      ];
      for (let round = 0; round < settings.rounds; round++) {
        for (const v of round % 2 ? [...estimates].reverse() : estimates) {
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
          v.rounds.push([m.opsPerSec, m.p50Ms, m.p99Ms]);
          log(`round ${round + 1} ${v.name}: ${m.opsPerSec.toFixed(1)}/s`);
        }
      }
      const estimate = estimates.map((v) => ({
        name: v.name,
        rps: median(v.rounds.map((r) => r[0]!)),
        p50: median(v.rounds.map((r) => r[1]!)),
        p99: median(v.rounds.map((r) => r[2]!)),
      }));

      const verdict = (ratio: number, target: number) =>
        `${ratio.toFixed(2)}x (target >= ${target}x: ${ratio >= target ? 'met' : 'NOT met'})`;
      const importVerdict = imports
        .map((i) => `${i.inFlight} in flight ${verdict(i.api / i.floor, 0.5)}`)
        .join('; ');
      const listVerdict = verdict(list[0]!.rps / list[1]!.rps, 0.8);
      const estimateVerdict = verdict(estimate[0]!.rps / estimate[1]!.rps, 0.5);
      const importHeaders = [
        `import ${settings.rows.toLocaleString('en-US')} rows, batches of ${settings.batch}`,
        ...imports.map((i) => `rows/s, ${i.inFlight} in flight`),
      ];
      const importRows = [
        ['POST .../rows until every row is readable (API)', ...imports.map((i) => String(Math.round(i.api)))],
        [
          'plain INSERTs: append-only table + read-model table',
          ...imports.map((i) => String(Math.round(i.floor))),
        ],
      ];
      const cpuHeaders = [
        'CPU ms a batch: this process / PostgreSQL',
        ...imports.map((i) => `${i.inFlight} in flight`),
      ];
      const cpuRows = [
        ['API', ...imports.map((i) => cpuText(i.apiCpu))],
        ['plain INSERTs', ...imports.map((i) => cpuText(i.floorCpu))],
      ];
      const loadHeaders = (what: string) => [what, 'req/s (median)', 'p50 ms', 'p99 ms'];
      const loadRows = (list: { name: string; rps: number; p50: number; p99: number }[]) =>
        list.map((s) => [s.name, s.rps.toFixed(1), s.p50.toFixed(0), s.p99.toFixed(0)]);
      console.log(
        [
          textTable(importHeaders, importRows),
          textTable(cpuHeaders, cpuRows),
          `API / floor: ${importVerdict}`,
          textTable(loadHeaders('list 100 of the rows, 10-rule filter, sort'), loadRows(list)),
          `API / bare: ${listVerdict}`,
          textTable(loadHeaders('estimate over the rows'), loadRows(estimate)),
          `API / bare: ${estimateVerdict}`,
        ].join('\n\n'),
      );

      await writeBenchmarkSection(
        SECTION,
        [
          `Measured ${new Date().toISOString().slice(0, 10)} on ${describeMachine()}, PostgreSQL ${server.version} (${server.origin}); 1-minute load average ${loadAtStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end.`,
          '',
          `**Import.** ${settings.rows.toLocaleString('en-US')} rows of 10 columns (text, email, number, boolean, date, url, json), ` +
            `${settings.batch} a request, one request at a time and four at a time (each pass into a table of its own), ` +
            'timed until every row is readable (each request ' +
            'answers once the rows read model shows its rows). The floor writes the same batches from this process with ' +
            'plain INSERTs (one transaction per batch) into an append-only table and a read-model table of the same ' +
            'PostgreSQL: no HTTP, no validation, no event store. For scale, the best-known hosted table API accepts ' +
            '10 records a request at 5 requests a second: 50 rows/s.',
          '',
          markdownTable(importHeaders, importRows),
          '',
          markdownTable(cpuHeaders, cpuRows),
          '',
          `API / floor: **${importVerdict}**.`,
          '',
          'What limits it: a request parses the 1,000 rows (HTTP, the body schema) and checks each value ' +
            "against its column's type (one check made once per data type), appends them as one event of " +
            "about 300 KB (its schema checks the rows' shape, not each cell again) and waits until the rows " +
            "read model has them. The read model's runner does not read the event's data back (this process " +
            'kept it from its append), and it copies an insert batch that no other event of its transaction ' +
            "touches from the log's table into the read model in one INSERT ... SELECT on the server " +
            '(jsonb_to_recordset, no JSON text), so the rows cross the socket to PostgreSQL once, for the ' +
            'append. What remains per batch: in this process the JSON parse of the body, the cell checks, ' +
            'the JSON of the event and of the answer (which carries the 1,000 rows back) and garbage ' +
            'collection; in PostgreSQL the append (a 300 KB jsonb, compressed with pglz where lz4 is ' +
            'missing, as on the embedded server) and the copy. With four requests in flight the work in ' +
            'this process (about 35 ms of CPU a batch) is done one batch after another on one thread, and the ' +
            "read model applies its batches one transaction at a time, while the floor's INSERTs run side by " +
            "side in PostgreSQL: the service's rate barely grows with more in flight, the floor's triples. " +
            "The CPU table counts this process (the service and the benchmark's client, which " +
            'run in one process) and the PostgreSQL server, per batch of 1,000.',
          '',
          `**List.** GET .../rows?filter=…&sort=${LIST_SORT} (10 rules, AND; 100 a page) over those rows at ` +
            `${settings.connections} connections (autocannon), ${settings.rounds} alternating rounds of ${settings.seconds} s; ` +
            'medians. The bare route is Fastify running the same filter written by hand (typed casts, no missing-value ' +
            'or type guards) on the same pool, rows mapped by the same function; the answers are checked equal first.',
          '',
          markdownTable(loadHeaders('list'), loadRows(list)),
          '',
          `API / bare: **${listVerdict}**.`,
          '',
          'What limits it: both sides read every row of the table (there is no index on cells: a case-insensitive ' +
            'test could not use one) and sort the matches, so the numbers are PostgreSQL scanning 100,000 jsonb ' +
            'documents on 2 cores, 16 at a time. The API adds the key check, the columns lookup and its generated SQL ' +
            '(parameters instead of literals, a COALESCE per rule for the missing-value policy).',
          '',
          `**Estimate.** POST .../estimate (scope all) of a column whose run condition has 51 nodes (10 any-groups ` +
            `of 4 leaves under one all), ${settings.estimateConcurrency} callers in a closed loop; the bare route ` +
            'runs the hand-written count(*) of the same rows (the counts are checked equal first).',
          '',
          markdownTable(loadHeaders('estimate'), loadRows(estimate)),
          '',
          `API / bare: **${estimateVerdict}**.`,
          '',
          'What limits it: the same scan of every row; the API counts three things at once (candidates, filled ' +
            'cells, eligible rows) and reads the balance in the same statement.',
        ].join('\n'),
      );
    }
  } finally {
    await bare.close();
    await bench.close();
  }
} finally {
  await server.stop();
}
