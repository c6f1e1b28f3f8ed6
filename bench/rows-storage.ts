/**
 * Storage candidates for the rows read model (issue 32), measured side by side on one PostgreSQL before
 * choosing (`npx tsx bench/rows-storage.ts`; not part of `npm run bench`). The same N rows (CAND_ROWS,
 * 1,000,000) of the rows benchmark's 10 columns go into:
 *
 * - shared: today's `table_rows` (one table for every research table, cells jsonb) with typed partial
 *   expression indexes per (table, column): `WHERE table_id = X` on the value the query sorts by;
 * - typed: one PostgreSQL table per research table with a typed column per table column and a plain
 *   index per column (Baserow's way);
 * - partitioned: `table_rows` LIST-partitioned by table_id, a partition per research table, the same
 *   expression indexes as `shared` but per partition (no predicate).
 *
 * Each holds OTHER_TABLES (200) other research tables of 10 columns with a few rows each, indexed the
 * same way, since the shared table's cost grows with every other table's indexes. Reported: the import
 * rate of batches of 1,000 rows (the indexes present), the planning and execution time of page queries
 * (p50 of 30), and the same with asc-only indexes for descending sorts. Prints a text report.
 */
import pg from 'pg';
import { startBenchServer } from './lib/postgres.ts';
import { COLUMN_SPECS, makeRows } from './lib/rows-workload.ts';
import { numberFromEnv, percentile } from './lib/timing.ts';

const N = numberFromEnv('CAND_ROWS', 1_000_000);
const OTHER_TABLES = numberFromEnv('OTHER_TABLES', 200);
/** The shared table's other tables (its import slows with every other table's partial indexes). */
const SHARED_OTHER_TABLES = numberFromEnv('SHARED_OTHER_TABLES', OTHER_TABLES);
const RUNS = numberFromEnv('CAND_RUNS', 30);
const ONLY = process.env.CAND_ONLY?.split(',');
const log = (line: string) => process.stderr.write(`${line}\n`);

const keys = Object.keys(COLUMN_SPECS);
const colId = (key: string) => `col_${key}`;
const TEXT_PREFIX = 512;

/** The value a column sorts and filters by, over the jsonb cells (as the evaluator will emit it). */
function valueExpr(key: string, cells = 'cells'): string | undefined {
  const id = `'${colId(key)}'`;
  switch (COLUMN_SPECS[key]) {
    case 'number':
      return `(CASE WHEN jsonb_typeof(${cells}->${id}) = 'number' THEN (${cells}->${id})::numeric END)`;
    case 'boolean':
      return `(CASE WHEN jsonb_typeof(${cells}->${id}) = 'boolean' THEN (${cells}->${id})::boolean END)`;
    case 'date':
      return `(left(${cells}->>${id}, 64) COLLATE "C")`;
    case 'json':
      return undefined;
    default:
      return `left(lower((${cells}->>${id}) COLLATE pg_c_utf8), ${TEXT_PREFIX})`;
  }
}

/** The same value over a typed column of the per-table layout. */
function typedExpr(key: string, row = ''): string | undefined {
  const c = `${row}"${key}"`;
  switch (COLUMN_SPECS[key]) {
    case 'number':
    case 'boolean':
      return c;
    case 'date':
      return `(${c} COLLATE "C")`;
    case 'json':
      return undefined;
    default:
      return `left(lower(${c} COLLATE pg_c_utf8), ${TEXT_PREFIX})`;
  }
}

const SQL_TYPES: Record<string, string> = {
  text: 'text',
  email: 'text',
  url: 'text',
  number: 'numeric',
  boolean: 'boolean',
  date: 'text',
  json: 'jsonb',
};

interface Layout {
  name: string;
  /** Creates the layout with OTHER_TABLES filler tables and the bench table `tbl_bench`, empty. */
  setup(c: pg.Client, desc: boolean): Promise<void>;
  /** Inserts rows [from, to) of the staging table into the bench table. */
  insert(c: pg.Client, from: number, to: number): Promise<unknown>;
  /** Selects of the bench table: FROM clause and the value of a key. */
  from: string;
  scope: string;
  value(key: string): string;
}

const indexList = (exprs: [string, string][], desc: boolean) =>
  exprs.flatMap(([name, e]) => [
    [`${name}_a`, `(${e}, id)`],
    ...(desc ? [[`${name}_d`, `(${e} DESC NULLS LAST, id)`]] : []),
  ]) as [string, string][];

const jsonIndexes = (desc: boolean) =>
  indexList(
    keys.flatMap((k) => (valueExpr(k) ? [[k, valueExpr(k)!] as [string, string]] : [])),
    desc,
  );

const fillerCells = `jsonb_build_object(${keys.map((k) => `'${colId(k)}', 'x' || g`).join(', ')})`;

const shared: Layout = {
  name: 'shared table, partial expression indexes',
  async setup(c, desc) {
    await c.query(`CREATE TABLE shared_rows (table_id text NOT NULL, id text COLLATE "C" NOT NULL,
      cells jsonb NOT NULL, PRIMARY KEY (table_id, id))`);
    for (let t = 0; t < SHARED_OTHER_TABLES; t++) {
      await c.query(
        `INSERT INTO shared_rows SELECT 'tbl_other${t}', 'row_' || lpad(g::text, 8, '0'), ${fillerCells}
         FROM generate_series(1, 20) g`,
      );
      for (const [, cols] of jsonIndexes(desc))
        await c.query(`CREATE INDEX ON shared_rows ${cols} WHERE table_id = 'tbl_other${t}'`);
    }
    for (const [, cols] of jsonIndexes(desc))
      await c.query(`CREATE INDEX ON shared_rows ${cols} WHERE table_id = 'tbl_bench'`);
  },
  insert: (c, from, to) =>
    c.query(`INSERT INTO shared_rows SELECT 'tbl_bench', id, cells FROM staging WHERE i >= $1 AND i < $2`, [
      from,
      to,
    ]),
  from: 'shared_rows r',
  scope: `r.table_id = 'tbl_bench'`,
  value: (k) => valueExpr(k, 'r.cells')!,
};

const partitioned: Layout = {
  name: 'partition per table, expression indexes',
  async setup(c, desc) {
    await c.query(`CREATE TABLE part_rows (table_id text NOT NULL, id text COLLATE "C" NOT NULL,
      cells jsonb NOT NULL, PRIMARY KEY (table_id, id)) PARTITION BY LIST (table_id)`);
    const partition = async (name: string, tableId: string) => {
      await c.query(`CREATE TABLE ${name} (LIKE part_rows INCLUDING ALL)`);
      for (const [, cols] of jsonIndexes(desc)) await c.query(`CREATE INDEX ON ${name} ${cols}`);
      await c.query(`ALTER TABLE part_rows ATTACH PARTITION ${name} FOR VALUES IN ('${tableId}')`);
    };
    for (let t = 0; t < OTHER_TABLES; t++) {
      await partition(`part_other${t}`, `tbl_other${t}`);
      await c.query(
        `INSERT INTO part_rows SELECT 'tbl_other${t}', 'row_' || lpad(g::text, 8, '0'), ${fillerCells}
         FROM generate_series(1, 20) g`,
      );
    }
    await partition('part_bench', 'tbl_bench');
  },
  insert: (c, from, to) =>
    c.query(`INSERT INTO part_rows SELECT 'tbl_bench', id, cells FROM staging WHERE i >= $1 AND i < $2`, [
      from,
      to,
    ]),
  from: 'part_rows r',
  scope: `r.table_id = 'tbl_bench'`,
  value: (k) => valueExpr(k, 'r.cells')!,
};

const typedColumns = keys.map((k) => `"${k}" ${SQL_TYPES[COLUMN_SPECS[k]!]}`).join(', ');
const typedIndexes = (desc: boolean) =>
  indexList(
    keys.flatMap((k) => (typedExpr(k) ? [[k, typedExpr(k)!] as [string, string]] : [])),
    desc,
  );
const typedFrom = (key: string) => {
  const type = COLUMN_SPECS[key]!;
  const x = `cells->'${colId(key)}'`;
  if (type === 'number') return `CASE WHEN jsonb_typeof(${x}) = 'number' THEN (${x})::numeric END`;
  if (type === 'boolean') return `CASE WHEN jsonb_typeof(${x}) = 'boolean' THEN (${x})::boolean END`;
  if (type === 'json') return x;
  return `cells->>'${colId(key)}'`;
};

const typed: Layout = {
  name: 'table per table, typed columns',
  async setup(c, desc) {
    const table = async (name: string) => {
      await c.query(`CREATE TABLE ${name} (id text COLLATE "C" PRIMARY KEY, ${typedColumns})`);
      for (const [, cols] of typedIndexes(desc)) await c.query(`CREATE INDEX ON ${name} ${cols}`);
    };
    for (let t = 0; t < OTHER_TABLES; t++) {
      await table(`typed_other${t}`);
      await c.query(
        `INSERT INTO typed_other${t} (id, name) SELECT 'row_' || lpad(g::text, 8, '0'), 'x' || g FROM generate_series(1, 20) g`,
      );
    }
    await table('typed_bench');
  },
  insert: (c, from, to) =>
    c.query(
      `INSERT INTO typed_bench (id, ${keys.map((k) => `"${k}"`).join(', ')})
       SELECT id, ${keys.map(typedFrom).join(', ')} FROM staging WHERE i >= $1 AND i < $2`,
      [from, to],
    ),
  from: 'typed_bench r',
  scope: 'TRUE',
  value: (k) => typedExpr(k, 'r.')!,
};

/** Staging: the N rows as jsonb keyed by column id, with their row ids, numbered from 0. */
async function stage(c: pg.Client): Promise<void> {
  await c.query(
    'CREATE TABLE staging (i int PRIMARY KEY, id text COLLATE "C" NOT NULL, cells jsonb NOT NULL)',
  );
  const chunk = 20_000;
  const all = makeRows(N);
  for (let from = 0; from < N; from += chunk) {
    const rows = all.slice(from, from + chunk);
    const cells = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [colId(k), v])));
    await c.query(
      `INSERT INTO staging SELECT $1::int + o - 1, 'row_' || lpad(($1::int + o)::text, 10, '0'), x
       FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS t(x, o)`,
      [from, JSON.stringify(cells)],
    );
  }
}

interface Query {
  name: string;
  sql: (l: Layout) => string;
}

const page = (l: Layout, where: string, order: string) =>
  `SELECT r.* FROM ${l.from} WHERE ${l.scope} AND ${where} ORDER BY ${order} LIMIT 101`;

const QUERIES: Query[] = [
  { name: 'sort number asc', sql: (l) => page(l, 'TRUE', `${l.value('score')} ASC NULLS LAST, r.id`) },
  { name: 'sort number desc', sql: (l) => page(l, 'TRUE', `${l.value('score')} DESC NULLS LAST, r.id`) },
  { name: 'sort text asc', sql: (l) => page(l, 'TRUE', `${l.value('name')} ASC NULLS LAST, r.id`) },
  { name: 'sort text desc', sql: (l) => page(l, 'TRUE', `${l.value('name')} DESC NULLS LAST, r.id`) },
  { name: 'sort boolean desc', sql: (l) => page(l, 'TRUE', `${l.value('active')} DESC NULLS LAST, r.id`) },
  {
    name: 'text equality',
    sql: (l) => page(l, `${l.value('name')} = 'person 999 delta'`, 'r.id'),
  },
  {
    name: 'number range, sorted by it',
    sql: (l) => page(l, `${l.value('score')} BETWEEN 50 AND 50.5`, `${l.value('score')}, r.id`),
  },
  {
    name: 'date range + sort by number',
    sql: (l) =>
      page(
        l,
        `${l.value('signed')} BETWEEN '2020-01-01' AND '2020-01-03'`,
        `${l.value('score')} DESC NULLS LAST, r.id`,
      ),
  },
  {
    name: 'page 50 by keyset (number asc)',
    sql: (l) => page(l, `(${l.value('score')}, r.id) > (50, 'row_0000500000')`, `${l.value('score')}, r.id`),
  },
];

async function measure(c: pg.Client, sql: string): Promise<{ plan: number; exec: number; total: number }> {
  const plans: number[] = [];
  const execs: number[] = [];
  const totals: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const { rows } = await c.query(`EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF) ${sql}`);
    const plan = rows[0]['QUERY PLAN'][0];
    plans.push(plan['Planning Time']);
    execs.push(plan['Execution Time']);
    const began = performance.now();
    await c.query(sql);
    totals.push(performance.now() - began);
  }
  const p50 = (xs: number[]) =>
    percentile(
      xs.sort((a, b) => a - b),
      50,
    );
  return { plan: p50(plans), exec: p50(execs), total: p50(totals) };
}

const server = await startBenchServer();
const lines: string[] = [];
try {
  const db = await server.createDatabase('rows_storage');
  const c = new pg.Client(db.url);
  await c.connect();
  try {
    log(`staging ${N} rows`);
    await stage(c);
    await c.query('ANALYZE staging');
    const layouts = [shared, partitioned, typed].filter(
      (l) => !ONLY || ONLY.some((o) => l.name.startsWith(o)),
    );
    for (const desc of [true, false]) {
      for (const layout of layouts) {
        log(`${layout.name}${desc ? '' : ' (asc-only indexes)'}: setup`);
        await c.query('DROP TABLE IF EXISTS shared_rows, part_rows CASCADE');
        for (let t = 0; t < OTHER_TABLES; t++) await c.query(`DROP TABLE IF EXISTS typed_other${t}`);
        await c.query('DROP TABLE IF EXISTS typed_bench');
        await layout.setup(c, desc);
        const began = performance.now();
        for (let from = 0; from < N; from += 1000) await layout.insert(c, from, from + 1000);
        const seconds = (performance.now() - began) / 1000;
        await c.query('VACUUM ANALYZE');
        const title = `${layout.name}, ${desc ? 'asc + desc indexes' : 'asc indexes only'}`;
        lines.push(`\n${title}: import ${Math.round(N / seconds)} rows/s (batches of 1,000)`);
        log(lines.at(-1)!);
        for (const q of QUERIES) {
          const m = await measure(c, q.sql(layout));
          lines.push(
            `  ${q.name.padEnd(32)} plan ${m.plan.toFixed(2)} ms  exec ${m.exec.toFixed(2)} ms  round trip ${m.total.toFixed(2)} ms`,
          );
          log(lines.at(-1)!);
        }
      }
    }
  } finally {
    await c.end();
  }
} finally {
  await server.stop();
}
console.log(
  `rows storage candidates: ${N} rows, ${OTHER_TABLES} other tables (shared: ${SHARED_OTHER_TABLES})\n${lines.join('\n')}`,
);
