import { ROWS, rowsProjection } from '../../projections/rows/rows.ts';
import { Semaphore } from '../../src/content-api/semaphore.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { invalidInput } from '../../src/domain/rows/access.ts';
import type { RowColumn } from '../../src/domain/rows/cells.ts';
import { selectedSql } from '../../src/domain/rows/condition/key-conditions.ts';
import { prepareCondition, resolverFor } from '../../src/domain/rows/condition/prepare.ts';
import { foldCase } from '../../src/domain/rows/condition/values.ts';
import { SqlParams } from '../../src/domain/rows/sql-params.ts';
import { AppError, type FieldError } from '../../src/errors.ts';
import { ProjectionLagError } from '../../src/projection/projections.ts';

/**
 * Upsert-on: which rows of a batch update an existing row. Values match as `equals` does in a
 * condition (strings case-insensitively, never across types), so one semantics decides both.
 */
export const matchKey = (value: unknown) =>
  `${typeof value}:${typeof value === 'string' ? foldCase(value) : String(value)}`;

/** The upsert column named by the body: one of the table, holding scalars. */
export function upsertColumn(byKey: ReadonlyMap<string, RowColumn>, key: string): RowColumn {
  const column = byKey.get(key);
  const refuse = (message: string) => invalidInput('body', [{ path: 'upsertOn', message }]);
  if (!column) throw refuse(`${key} is not a column of the table`);
  if (column.dataType === 'json') throw refuse(`${key} holds JSON: upsert on a column of single values`);
  return column;
}

/** Two rows of one batch with the same value in the upsert column: a 400 naming the later ones. */
export function refuseDuplicates(column: RowColumn, cells: readonly Record<string, unknown>[]) {
  const first = new Map<string, number>();
  const errors: FieldError[] = [];
  cells.forEach((row, i) => {
    const value = row[column.id];
    if (value === undefined || value === null) return;
    const key = matchKey(value);
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, i);
    else
      errors.push({
        path: `rows[${i}].cells.${column.key}`,
        message: `the same ${column.key} as rows[${earlier}]`,
      });
  });
  if (errors.length > 0) throw invalidInput('body', errors);
}

/**
 * The oldest existing row holding each value, by matchKey, read with the one condition evaluator's SQL
 * (and the index of the column's key, which that SQL implies).
 */
export async function findMatches(
  deps: Pick<ServiceDeps, 'pool'>,
  tableId: string,
  column: RowColumn,
  values: readonly unknown[],
): Promise<Map<string, string>> {
  if (values.length === 0) return new Map();
  const condition = prepareCondition(
    { type: 'condition', columnId: column.id, operator: 'in', missingPolicy: 'false', value: [...values] },
    resolverFor([column]),
  );
  const params = new SqlParams();
  const { rows } = await deps.pool.query<{ id: string; value: unknown }>(
    `SELECT r.id, r.cells -> ${params.add(column.id, 'text')} AS value FROM ${ROWS} r
     WHERE r.table_id = ${params.add(tableId)} AND ${selectedSql(condition, params)} ORDER BY r.id`,
    params.values,
  );
  const matches = new Map<string, string>();
  for (const row of rows) if (!matches.has(matchKey(row.value))) matches.set(matchKey(row.value), row.id);
  return matches;
}

/**
 * Upserts of a table are serialised across processes by a transaction-scoped advisory lock, so that two
 * batches sending the same new value cannot both insert it. The lock is held on a pooled connection,
 * so a process holds at most a few at a time: the holders must still find connections for their own
 * reads and appends.
 */
const lockHolders = new Semaphore(4);

export async function withUpsertLock<T>(
  deps: Pick<ServiceDeps, 'pool' | 'store' | 'projections'>,
  tableId: string,
  fn: () => Promise<T>,
): Promise<T> {
  return lockHolders.run(async () => {
    const client = await deps.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('rows-upsert'), hashtext($1))`, [tableId]);
      // What the last holder appended must be in the read model before this one looks values up.
      try {
        await deps.projections.waitFor(await deps.store.head(), [rowsProjection]);
      } catch (error) {
        if (!(error instanceof ProjectionLagError)) throw error;
        throw new AppError('unavailable', 'The rows read model is behind; retry the upsert shortly.');
      }
      return await fn();
    } finally {
      await client.query('COMMIT').catch(() => {});
      client.release();
    }
  });
}
