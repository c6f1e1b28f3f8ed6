/**
 * Rebuild benchmark (`npm run bench:rebuild`).
 *
 * A log of 200,000 events (BENCH_REBUILD_EVENTS): article syncs and column edits interleaved (see
 * bench/lib/rebuild-workload.ts). Each of site_content and the columns view is rebuilt blue/green by
 * src/projection/rebuild.ts (shadow tables, batches with their checkpoint, the swap), replaying the
 * whole log. The limit it is weighed against: writing the same final rows into empty tables of the same
 * shape (indexes included) with PostgreSQL COPY, i.e. the fastest way to get those tables at all.
 * Both are expressed over the log's events: events / seconds. Target: >= 20,000 events/s on 2 cores
 * and >= 0.5x the COPY limit. Knobs: BENCH_REBUILD_EVENTS, BENCH_REBUILD_BATCH; BENCH_SMOKE=1 runs it
 * on tiny sizes (bench/lib/smoke.ts).
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { service } from '../app/modules.ts';
import { columnsProjection } from '../projections/columns/columns.ts';
import { siteContentProjection } from '../projections/content/site-content.ts';
import { createPool, inTransaction } from '../src/db/pool.ts';
import { START } from '../src/event-store/port.ts';
import { PostgresEventStore } from '../src/event-store/postgres.ts';
import { applyContext } from '../src/projection/apply-context.ts';
import { rebuildProjection } from '../src/projection/rebuild.ts';
import type { Projection } from '../src/projection/types.ts';
import { startBenchServer } from './lib/postgres.ts';
import { seedLog, workload } from './lib/rebuild-workload.ts';
import { describeMachine, markdownTable, textTable, writeBenchmarkSection } from './lib/report.ts';
import { formatRate, formatRatio, numberFromEnv, timed } from './lib/timing.ts';

const SECTION = 'Rebuild';
const TARGET_RATE = 20_000;
const TARGET_RATIO = 0.5;

const EVENTS = numberFromEnv('BENCH_REBUILD_EVENTS', 200_000, 2000);
const BATCH = numberFromEnv('BENCH_REBUILD_BATCH', 2000, 500);

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The tables' rows, copied out (untimed), then COPY'd into fresh empty tables of the same DDL (timed). */
async function copyLimit(pool: pg.Pool, projection: Projection): Promise<{ seconds: number; rows: number }> {
  let seconds = 0;
  let rows = 0;
  for (const [logical, ddl] of Object.entries(projection.tables)) {
    const client = await pool.connect();
    const target = `${logical}_copy_${randomBytes(3).toString('hex')}`;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of client.query(copyTo(`COPY ${logical} TO STDOUT`)))
        chunks.push(chunk as Buffer);
      for (const statement of ddl(target)) await client.query(statement);
      const copied = await timed(async () => {
        const stream = client.query(copyFrom(`COPY ${target} FROM STDIN`));
        await pipeline(async function* () {
          yield* chunks;
        }, stream);
        return stream.rowCount;
      });
      seconds += copied.seconds;
      rows += copied.value;
    } finally {
      await client.query(`DROP TABLE IF EXISTS ${target}`).catch(() => {});
      client.release();
    }
  }
  return { seconds, rows };
}

interface Result {
  name: string;
  handled: number;
  rows: number;
  rebuildSeconds: number;
  copySeconds: number;
  /** A serial pass without read-ahead: seconds reading (query and decode) and applying its events. */
  readSeconds: number;
  applySeconds: number;
}

/**
 * Where the time goes: the projection's events read and applied one page after the other into scratch
 * tables, timing the two apart (the rebuild overlaps only the database's share of the read).
 */
async function splitPass(store: PostgresEventStore, pool: pg.Pool, projection: Projection) {
  const suffix = `_split_${randomBytes(3).toString('hex')}`;
  for (const [logical, ddl] of Object.entries(projection.tables))
    for (const statement of ddl(logical + suffix)) await pool.query(statement);
  let readSeconds = 0;
  let applySeconds = 0;
  let from = START;
  try {
    for (;;) {
      const read = await timed(() => store.readAll({ from, limit: BATCH, types: projection.handles }));
      readSeconds += read.seconds;
      const page = read.value;
      if (page.length === 0) break;
      const applied = await timed(() =>
        inTransaction(pool, (tx) =>
          projection.apply(
            page,
            applyContext(tx, (t) => t + suffix),
          ),
        ),
      );
      applySeconds += applied.seconds;
      from = page[page.length - 1]!.position;
    }
  } finally {
    for (const logical of Object.keys(projection.tables))
      await pool.query(`DROP TABLE IF EXISTS ${logical}${suffix}`);
  }
  return { readSeconds, applySeconds };
}

const loadAtStart = loadavg()
  .map((l) => l.toFixed(2))
  .join(' / ');
const server = await startBenchServer();
try {
  const db = await server.createDatabase('rebuild', { migrate: true });
  const pool = createPool(db.url, 10);
  const store = new PostgresEventStore(pool, service.registry);
  const w = workload(EVENTS);
  log(`seeding ${EVENTS.toLocaleString('en-US')} events...`);
  const seeded = await timed(() => seedLog(pool, w));
  log(`seeded in ${seeded.seconds.toFixed(1)} s`);

  const results: Result[] = [];
  for (const projection of [siteContentProjection, columnsProjection]) {
    await server.checkpoint();
    let last = 0;
    const rebuilt = await timed(() =>
      rebuildProjection(store, pool, projection, {
        actor: 'bench',
        batchSize: BATCH,
        onProgress: (p) => {
          if (performance.now() - last < 2000) return;
          last = performance.now();
          log(
            `${projection.name}: ${p.processed.toLocaleString('en-US')}/${p.total?.toLocaleString('en-US')}`,
          );
        },
      }),
    );
    if (rebuilt.value.outcome !== 'swapped') throw new Error(`${projection.name}: ${rebuilt.value.outcome}`);
    const handled = Number(
      (await pool.query('SELECT count(*) AS n FROM events WHERE type = ANY($1)', [[...projection.handles]]))
        .rows[0].n,
    );
    await server.checkpoint();
    const copy = await copyLimit(pool, projection);
    await server.checkpoint();
    const split = await splitPass(store, pool, projection);
    results.push({
      name: projection.name,
      handled,
      rows: copy.rows,
      rebuildSeconds: rebuilt.seconds,
      copySeconds: copy.seconds,
      ...split,
    });
    log(
      `${projection.name}: rebuild ${rebuilt.seconds.toFixed(2)} s (${formatRate(EVENTS / rebuilt.seconds)} events/s), ` +
        `COPY of ${copy.rows} rows ${copy.seconds.toFixed(2)} s`,
    );
  }
  await store.close();
  await pool.end();

  const sum = (f: (r: Result) => number) => results.reduce((s, r) => s + f(r), 0);
  const both: Result = {
    name: 'both, one after the other',
    handled: sum((r) => r.handled),
    rows: sum((r) => r.rows),
    rebuildSeconds: sum((r) => r.rebuildSeconds),
    copySeconds: sum((r) => r.copySeconds),
    readSeconds: sum((r) => r.readSeconds),
    applySeconds: sum((r) => r.applySeconds),
  };
  const headers = [
    'projection',
    'events handled',
    'final rows',
    'rebuild (s)',
    'rebuild events/s',
    'COPY (s)',
    'COPY limit events/s',
    'rebuild vs limit',
  ];
  const rows = [...results, both].map((r) => [
    r.name,
    r.handled.toLocaleString('en-US'),
    r.rows.toLocaleString('en-US'),
    r.rebuildSeconds.toFixed(2),
    formatRate(EVENTS / r.rebuildSeconds),
    r.copySeconds.toFixed(2),
    formatRate(EVENTS / r.copySeconds),
    formatRatio(r.copySeconds, r.rebuildSeconds),
  ]);
  console.log(textTable(headers, rows));
  const splitHeaders = ['projection', 'read + decode (s)', 'read events/s', 'apply (s)', 'apply events/s'];
  const splitRows = results.map((r) => [
    r.name,
    r.readSeconds.toFixed(2),
    formatRate(r.handled / r.readSeconds),
    r.applySeconds.toFixed(2),
    formatRate(r.handled / r.applySeconds),
  ]);
  console.log(textTable(splitHeaders, splitRows));
  const met = (r: Result) =>
    EVENTS / r.rebuildSeconds >= TARGET_RATE && r.copySeconds / r.rebuildSeconds >= TARGET_RATIO;
  const verdict = results.map((r) => `${r.name}: ${met(r) ? 'met' : 'not met'}`).join('; ');
  const body = `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:rebuild\` on ${describeMachine()}; PostgreSQL ${server.version} (${server.origin}, default settings).

The log: ${EVENTS.toLocaleString('en-US')} events, interleaved: ${w.articleEvents.toLocaleString('en-US')} \`ArticleSynced\` (${w.articles.toLocaleString('en-US')} articles synced twice, ~1.3 KB of HTML each) and ${w.columnEvents.toLocaleString('en-US')} column events (${w.columns.toLocaleString('en-US')} columns, each created and patched three times). Each projection is rebuilt blue/green by \`src/projection/rebuild.ts\` (batches of ${BATCH} events with their checkpoint, read-ahead of the next page, then the swap), replaying the whole log; **events/s counts the log's events** (${EVENTS.toLocaleString('en-US')} / seconds), handled or not.

The limit: the same final rows written with PostgreSQL \`COPY ... FROM STDIN\` into empty tables of the same DDL (indexes included), the fastest way to have those tables at all, expressed over the same ${EVENTS.toLocaleString('en-US')} events. "rebuild vs limit" = COPY seconds / rebuild seconds.

${markdownTable(headers, rows)}

Target: at least ${TARGET_RATE.toLocaleString('en-US')} events/s and at least ${TARGET_RATIO}x the COPY limit. ${verdict}.

Where the time goes: the same events read and applied in a serial pass, page by page, timed apart (events/s here are the projection's own events). Reading (the query, JSON and the registry's validation of each event) and the projection's \`apply\` both run on Node's one thread, so the rebuild's read-ahead only hides the database's part of the read; a rebuild is about as fast as read and apply together.

${markdownTable(splitHeaders, splitRows)}

Load average when the run started: ${loadAtStart} (other work on the machine slows every number here alike).
`;
  await writeBenchmarkSection(SECTION, body);
} finally {
  await server.stop();
}
