import { ROWS } from '../../projections/rows/rows.ts';
import type { Pool } from '../../src/db/pool.ts';
import { bearer, call } from '../../test/support/accounts.ts';
import { createColumns } from '../../test/support/rows.ts';
import { createTable } from '../../test/support/tables.ts';
import { cpuSnapshot, serverCpu, serverCpuSpent } from './cpu.ts';
import type { BenchServer } from './postgres.ts';
import { COLUMN_SPECS } from './rows-workload.ts';

/** CPU milliseconds a batch: this process (the service and the client), and the PostgreSQL server. */
export interface ImportCpu {
  nodeMs: number;
  postgresMs: number;
}

/** One pass of the import at `inFlight` requests at a time: rows a second of each side, and their CPU. */
export interface ImportPass {
  inFlight: number;
  floor: number;
  api: number;
  floorCpu: ImportCpu;
  apiCpu: ImportCpu;
}

/** `nodeMs / postgresMs`, one decimal each, as the rows benchmark prints CPU a batch. */
export const cpuText = (cpu: ImportCpu) => `${cpu.nodeMs.toFixed(1)} / ${cpu.postgresMs.toFixed(1)}`;

type Batch = Record<string, unknown>[];

/**
 * The import phase of bench/rows.ts: `data` in batches of `batch` rows, one request at a time and then
 * four, each pass into a table of its own (the first into `tableId`, which the list and the estimate
 * read). Per pass, the floor first (plain INSERTs into an append-only table and a read-model table of
 * the same database), then the API (POST .../rows, timed until every row is readable).
 */
export async function measureImports(options: {
  server: BenchServer;
  pool: Pool;
  url: string;
  apiKey: string;
  tableId: string;
  data: Batch;
  batch: number;
  log: (line: string) => void;
}): Promise<ImportPass[]> {
  const { server, pool, url, apiKey, tableId, data } = options;
  const batches = Array.from({ length: Math.ceil(data.length / options.batch) }, (_, i) =>
    data.slice(i * options.batch, (i + 1) * options.batch),
  );
  await pool.query(`CREATE TABLE floor_log (position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    row_id text NOT NULL, data jsonb NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now())`);
  await pool.query(`CREATE TABLE floor_rows (table_id text NOT NULL, id text COLLATE "C" NOT NULL,
    cells jsonb NOT NULL, created_at timestamptz NOT NULL, PRIMARY KEY (table_id, id))`);
  /**
   * Sends the batches with `inFlight` requests at a time: seconds until the last is answered, and CPU
   * milliseconds per batch of this process (the service, and the client sending the batches) and of
   * the PostgreSQL server, which the machine's other load disturbs far less than the wall clock.
   */
  const importAt = async (inFlight: number, send: (batch: Batch, index: number) => Promise<void>) => {
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
  const floorBatch = async (batch: Batch, index: number, table: string) => {
    const payload = JSON.stringify(
      batch.map((cells, i) => ({
        id: `row_${String(index * options.batch + i).padStart(26, '0')}`,
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
  const apiBatch = async (batch: Batch, table: string) => {
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
  const imports: ImportPass[] = [];
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
    options.log(
      `import, ${inFlight} in flight: floor ${Math.round(imports.at(-1)!.floor)} rows/s, API ${Math.round(imports.at(-1)!.api)} rows/s; ` +
        `CPU ms a batch (this process / PostgreSQL): floor ${cpuText(floor)}, API ${cpuText(api)}`,
    );
  }
  return imports;
}
