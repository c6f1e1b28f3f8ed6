/**
 * The data of `bench:rows-scale` and its physical limit: row `i` of the data set (the same every run),
 * the 10 columns it fills, and the plain PostgreSQL table holding the same rows in typed columns with
 * the indexes each measured query needs, queried by hand-written SQL through a bare Fastify route.
 */
import type { FastifyInstance } from 'fastify';
import type { Pool } from '../../src/db/pool.ts';
import { listenOnLoopback } from './bench-app.ts';
import { drawRow, random } from './rows-workload.ts';

/**
 * Row `i` of the data set, the same every run and computed alone (a million rows are never held): its
 * own generator, seeded by `i`; the name never missing (the equality looks names up).
 */
export const rowAt = (i: number): Record<string, unknown> =>
  drawRow(random(i * 7919 + 17), i, { timeOfDay: true, keep: 'name' });

/**
 * The physical limit's table: the same data as the API's rows (the cells in typed columns, the row's
 * times and its cells' statuses as the API shows them: the times as their ISO text, which costs a read
 * nothing), with what each query below needs: an index per
 * column ascending and one descending (ties by id), text case-folded as the API folds it.
 */
const PLAIN_INDEXED: Record<string, string> = {
  name: 'lower(name COLLATE pg_c_utf8)',
  email: 'lower(email COLLATE pg_c_utf8)',
  company: 'lower(company COLLATE pg_c_utf8)',
  city: 'lower(city COLLATE pg_c_utf8)',
  score: 'score',
  revenue: 'revenue',
  active: 'active',
  signed: 'signed',
  site: 'lower(site COLLATE pg_c_utf8)',
  // The API's table has two enrichment columns of text (their cells empty here), indexed as any other.
  summary: 'lower(summary COLLATE pg_c_utf8)',
  everything: 'lower(everything COLLATE pg_c_utf8)',
};

export async function createPlain(pool: Pool): Promise<void> {
  await pool.query(`CREATE TABLE plain_rows (id text COLLATE "C" PRIMARY KEY, name text, email text,
    company text, city text, score numeric, revenue numeric, active boolean, signed text COLLATE "C",
    site text, data jsonb, summary text, everything text, cell_status jsonb NOT NULL, created_at text NOT NULL,
    updated_at text NOT NULL)`);
  for (const [column, expr] of Object.entries(PLAIN_INDEXED)) {
    await pool.query(`CREATE INDEX plain_${column}_a ON plain_rows ((${expr}), id)`);
    await pool.query(`CREATE INDEX plain_${column}_d ON plain_rows ((${expr}) DESC NULLS LAST, id)`);
  }
}

const PLAIN_INSERT = `INSERT INTO plain_rows (id, name, email, company, city, score, revenue, active, signed,
    site, data, cell_status, created_at, updated_at)
  SELECT r.id, r.name, r.email, r.company, r.city, r.score, r.revenue, r.active, r.signed, r.site, r.data,
    r.cell_status, r.created_at, r.updated_at
  FROM json_to_recordset($1::json) AS r(id text, name text, email text, company text, city text,
    score numeric, revenue numeric, active boolean, signed text, site text, data jsonb, cell_status jsonb,
    created_at text, updated_at text)`;

/** A row as the API answered its insert. */
export interface AnsweredRow {
  id: string;
  cells: Record<string, unknown>;
  cellStatus: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** Plain INSERTs of the rows the API answered, in one statement (as the API's batch is one request). */
export async function insertPlain(pool: Pool, rows: readonly AnsweredRow[]): Promise<void> {
  const plain = rows.map((row) => ({
    id: row.id,
    ...row.cells,
    cell_status: row.cellStatus,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  }));
  await pool.query(PLAIN_INSERT, [JSON.stringify(plain)]);
}

/** The bare routes over plain_rows: each the hand-written SQL its API peer's answer needs. */
export async function serveBare(bare: FastifyInstance, pool: Pool): Promise<string> {
  const page = async (where: string, order: string, values: unknown[]) => ({
    data: (
      await pool.query(`SELECT * FROM plain_rows WHERE ${where} ORDER BY ${order} LIMIT 101`, values)
    ).rows.slice(0, 100),
  });
  const body = (request: { body: unknown }) => (request.body ?? {}) as Record<string, unknown>;
  bare.post('/sorted', async (request) => {
    const { column, desc } = body(request) as { column: string; desc: boolean };
    return page('TRUE', `${PLAIN_INDEXED[column]} ${desc ? 'DESC' : 'ASC'} NULLS LAST, id`, []);
  });
  bare.post('/after', async (request) => {
    // After the row in (score, id) order, the rows without a score last: those are read only when the
    // scored rows after it do not fill the page (as the API's cursor does).
    const { score, id } = body(request) as { score: number | null; id: string };
    const scored =
      score === null ? { data: [] } : await page('(score, id) > ($1, $2)', 'score, id', [score, id]);
    if (scored.data.length === 100) return scored;
    const unscored = await page(`score IS NULL AND id > $1`, 'id', [score === null ? id : '']);
    return { data: [...scored.data, ...unscored.data].slice(0, 100) };
  });
  bare.post('/equals', async (request) =>
    page('lower(name COLLATE pg_c_utf8) = $1', 'id', [body(request).name]),
  );
  bare.post('/revenue', async (request) =>
    page('revenue BETWEEN $1 AND $2', 'id', [body(request).low, body(request).high]),
  );
  bare.post('/signed', async (request) =>
    page('signed > $1 AND signed < $2', 'id', [body(request).from, body(request).to]),
  );
  bare.post('/city', async () =>
    page(`lower(city COLLATE pg_c_utf8) = 'oslo'`, 'score DESC NULLS LAST, id', []),
  );
  bare.post('/count', async () => ({
    n: (
      await pool.query(
        `SELECT count(*)::int AS n FROM plain_rows WHERE score > 50 AND lower(city COLLATE pg_c_utf8) = 'paris' AND active`,
      )
    ).rows[0].n,
  }));
  bare.post('/one', async () => (await pool.query('SELECT 1 AS one')).rows[0]);
  bare.post('/ids', async () => ({
    n: (await pool.query('SELECT id FROM plain_rows ORDER BY id')).rows.length,
  }));
  return listenOnLoopback(bare);
}
