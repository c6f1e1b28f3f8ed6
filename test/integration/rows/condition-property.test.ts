import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROWS, rowsProjection } from '../../../projections/rows/rows.ts';
import type { RunCondition } from '../../../src/domain/columns/run-condition.ts';
import { evaluate } from '../../../src/domain/rows/condition/evaluate.ts';
import {
  filterAsCondition,
  prepareCondition,
  resolverFor,
} from '../../../src/domain/rows/condition/prepare.ts';
import { conditionSql } from '../../../src/domain/rows/condition/sql.ts';
import { SqlParams } from '../../../src/domain/rows/sql-params.ts';
import { COLUMNS, condition, filter, row } from '../../support/condition-arbitraries.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';

/*
 * The one semantics of conditions, run twice: in memory (evaluate) and as SQL (conditionSql). Thousands
 * of random rows are stored as the rows read model stores them; thousands of random conditions and
 * filters (missing values, JSON paths, a column that is gone, every operator) are evaluated both ways,
 * and every row must get the same three-valued answer from both, not only the same selection.
 */

const ROW_COUNT = 3000;
const CONDITIONS_PER_QUERY = 25;
const RUNS = 60; // 1,500 conditions and filters in all
const seed = Number(process.env.STK_PROPERTY_SEED ?? Date.now() % 2 ** 31);

interface Ctx {
  db: TestDatabase;
  rows: { id: string; cells: Record<string, unknown> }[];
}

const test = suite<Ctx>(`evaluators: SQL and in memory agree (seed ${seed})`);
const resolve = resolverFor(COLUMNS);

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  for (const statement of rowsProjection.tables[ROWS]!(ROWS)) await ctx.db.pool.query(statement);
  // What the read model holds is what the runs read back: cells after a JSON round trip.
  ctx.rows = fc.sample(row, { numRuns: ROW_COUNT, seed }).map((cells, i) => ({
    id: `row_${String(i).padStart(6, '0')}`,
    cells: JSON.parse(JSON.stringify(cells)),
  }));
  await ctx.db.pool.query(
    `INSERT INTO ${ROWS} (table_id, id, cells, cell_status, created_at, updated_at, revision)
     SELECT 'tbl', id, cells, '{}', now(), now(), 0 FROM json_to_recordset($1::json) AS r(id text, cells jsonb)`,
    [JSON.stringify(ctx.rows)],
  );
});
test.after(async (ctx) => ctx.db.drop());

async function compare(ctx: Ctx, conditions: RunCondition[]) {
  const prepared = conditions.map((c) => prepareCondition(c, resolve));
  const params = new SqlParams();
  const selects = prepared.map((p, i) => `${conditionSql(p, params)} AS v${i}`);
  const { rows } = await ctx.db.pool.query(
    `SELECT id, ${selects.join(', ')} FROM ${ROWS} r WHERE table_id = 'tbl' ORDER BY id`,
    params.values,
  );
  assert.is(rows.length, ctx.rows.length);
  rows.forEach((sqlRow, r) => {
    const { cells } = ctx.rows[r]!;
    prepared.forEach((p, i) => {
      const memory = evaluate(p, cells);
      if (sqlRow[`v${i}`] !== memory) {
        assert.unreachable(
          `row ${JSON.stringify(cells)}\ncondition ${JSON.stringify(conditions[i])}\n` +
            `SQL ${sqlRow[`v${i}`]}, in memory ${memory}`,
        );
      }
    });
  });
  return rows;
}

test('run conditions: every row gets the same true, false or unknown both ways', async (ctx) => {
  let decided = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(condition, { minLength: CONDITIONS_PER_QUERY, maxLength: CONDITIONS_PER_QUERY }),
      async (conditions) => {
        const rows = await compare(ctx, conditions);
        for (const r of rows) for (let i = 0; i < conditions.length; i++) if (r[`v${i}`] === true) decided++;
      },
    ),
    { numRuns: RUNS, seed, endOnFailure: true },
  );
  // The pools are there to make conditions select something: a test where nothing matched proves little.
  assert.ok(decided > ROW_COUNT, `only ${decided} true answers`);
});

test('filters: the same rows both ways', async (ctx) => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(filter, { minLength: CONDITIONS_PER_QUERY, maxLength: CONDITIONS_PER_QUERY }),
      async (filters) => {
        await compare(ctx, filters.map(filterAsCondition));
      },
    ),
    { numRuns: RUNS / 3, seed, endOnFailure: true },
  );
});

test.run();
