import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROW_STORAGE, ROWS, rowsProjection } from '../../../projections/rows/rows.ts';
import { createPartition } from '../../../projections/rows/storage.ts';
import { readRowPage, type SortKey } from '../../../queries/rows/row-page.ts';
import type { RunCondition } from '../../../src/domain/columns/run-condition.ts';
import type { RowColumn } from '../../../src/domain/rows/cells.ts';
import { evaluate } from '../../../src/domain/rows/condition/evaluate.ts';
import { keyConditions, selectedSql } from '../../../src/domain/rows/condition/key-conditions.ts';
import {
  filterAsCondition,
  prepareCondition,
  resolverFor,
} from '../../../src/domain/rows/condition/prepare.ts';
import { conditionSql } from '../../../src/domain/rows/condition/sql.ts';
import { foldCase } from '../../../src/domain/rows/condition/values.ts';
import { DATE_KEY_CHARS, leftChars, TEXT_KEY_CHARS } from '../../../src/domain/rows/keys.ts';
import { SqlParams } from '../../../src/domain/rows/sql-params.ts';
import { COLUMNS, condition, filter, row } from '../../support/condition-arbitraries.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';

/*
 * The one semantics of conditions, run twice: in memory (evaluate) and as SQL (conditionSql). Thousands
 * of random rows are stored as the rows read model stores them; thousands of random conditions and
 * filters (missing values, JSON paths, a column that is gone, every operator) are evaluated both ways,
 * and every row must get the same three-valued answer from both, not only the same selection. The
 * rows are in a table's partition with its key indexes, and what the statements add for those indexes
 * is held to the same: the key conditions a condition implies (selectedSql) select exactly the rows
 * it is true for, and a page sorted by any column's key, either way, and followed by its cursor, gives
 * the order the keys give in memory (NULLs last, ties by row id).
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
  for (const [logical, ddl] of Object.entries(rowsProjection.tables))
    for (const statement of ddl(logical)) await ctx.db.pool.query(statement);
  const tx = await ctx.db.pool.connect();
  try {
    const columns = Object.fromEntries(COLUMNS.map((c) => [c.id, c.dataType]));
    const partition = await createPartition(tx, ROWS, 'tbl', columns);
    await tx.query(`INSERT INTO ${ROW_STORAGE} (table_id, partition, columns) VALUES ('tbl', $1, $2)`, [
      partition,
      columns,
    ]);
  } finally {
    tx.release();
  }
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
  await ctx.db.pool.query(`ANALYZE ${ROWS}`);
});
test.after(async (ctx) => ctx.db.drop());

async function compare(ctx: Ctx, conditions: RunCondition[]) {
  const prepared = conditions.map((c) => prepareCondition(c, resolve));
  const params = new SqlParams();
  const selects = prepared.map(
    (p, i) => `${conditionSql(p, params)} AS v${i}, ${selectedSql(p, params)} AS s${i}`,
  );
  const { rows } = await ctx.db.pool.query(
    `SELECT id, ${selects.join(', ')} FROM ${ROWS} r WHERE table_id = 'tbl' ORDER BY id`,
    params.values,
  );
  assert.is(rows.length, ctx.rows.length);
  rows.forEach((sqlRow, r) => {
    const { cells } = ctx.rows[r]!;
    prepared.forEach((p, i) => {
      const memory = evaluate(p, cells);
      const show = () => {
        const keys = keyConditions(p, new SqlParams());
        return `row ${JSON.stringify(cells)}\ncondition ${JSON.stringify(conditions[i])}\nkey conditions ${keys}\n`;
      };
      if (sqlRow[`v${i}`] !== memory)
        assert.unreachable(`${show()}SQL ${sqlRow[`v${i}`]}, in memory ${memory}`);
      if ((sqlRow[`s${i}`] === true) !== (memory === true))
        assert.unreachable(`${show()}selected in SQL ${sqlRow[`s${i}`]}, in memory ${memory}`);
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

/** A column's sort key in memory, as src/domain/rows/keys.ts defines it in SQL (null: missing). */
function keyOf(column: RowColumn, cells: Record<string, unknown>): string | number | boolean | null {
  const value = cells[column.id];
  switch (column.dataType) {
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? leftChars(value, DATE_KEY_CHARS) : null;
    default:
      return typeof value === 'string' ? leftChars(foldCase(value), TEXT_KEY_CHARS) : null;
  }
}

/** Code point order (pg_c_utf8 and "C" both sort so); JavaScript's own compares UTF-16 units. */
function compareText(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function compareKeys(a: string | number | boolean, b: string | number | boolean): number {
  if (typeof a === 'string') return compareText(a, b as string);
  return a === b ? 0 : a < b ? -1 : 1;
}

const sortable = COLUMNS.filter((c) => c.dataType !== 'json');
const sortSpec = fc.uniqueArray(fc.record({ column: fc.constantFrom(...sortable), desc: fc.boolean() }), {
  minLength: 1,
  maxLength: 2,
  selector: (k) => k.column.id,
});

test('sorted pages: every data type either way, missing values last, ties by id, at any page size', async (ctx) => {
  const inMemory = (sort: readonly SortKey[]) =>
    [...ctx.rows]
      .sort((a, b) => {
        for (const { column, desc } of sort) {
          const [x, y] = [keyOf(column, a.cells), keyOf(column, b.cells)];
          if (x === null || y === null) {
            if (x !== y) return x === null ? 1 : -1;
            continue;
          }
          const d = compareKeys(x, y);
          if (d !== 0) return desc ? -d : d;
        }
        return a.id < b.id ? -1 : 1;
      })
      .map((r) => r.id);
  await fc.assert(
    fc.asyncProperty(sortSpec, fc.constantFrom(1, 7, 100, 1000), async (sort, limit) => {
      const ids: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page <= ctx.rows.length / limit + 1; page++) {
        const read = await readRowPage(ctx.db.pool, 'tbl', COLUMNS, {
          limit,
          cursor,
          sort,
          cursorPath: 'cursor',
        });
        ids.push(...read.data.map((r) => r.id));
        if (!read.nextCursor) break;
        cursor = read.nextCursor;
        // A page size of 1 reads a few pages deep only: each page is a query.
        if (limit === 1 && page === 40) break;
      }
      const expected = inMemory(sort);
      assert.equal(
        ids,
        limit === 1 ? expected.slice(0, ids.length) : expected,
        JSON.stringify(sort.map((k) => [k.column.key, k.desc])),
      );
    }),
    { numRuns: 24, seed, endOnFailure: true },
  );
});

test.run();
