import { z } from 'zod';
import { creditsPerRow } from '../../processes/runs/providers/index.ts';
import { ORGANIZATIONS } from '../../projections/accounts/organizations.ts';
import { ROW_STORAGE, ROWS } from '../../projections/rows/rows.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { Column } from '../../src/domain/columns/fields.ts';
import { columnNotFound } from '../../src/domain/tables/access.ts';
import { ColumnParams } from '../../src/domain/tables/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { eligibility } from './eligibility.ts';
import { EstimateBody, type RunScope } from './run-scope.ts';
import { readableColumns } from './table-columns.ts';

export const EstimateSchema = z
  .object({
    candidates: z.number().int().describe('Rows in scope'),
    eligible: z.number().int().describe('Candidates the run would run on'),
    skippedByCondition: z.number().int().describe("Candidates the column's runCondition leaves out"),
    skippedNotEmpty: z.number().int().describe('Candidates skipped by onlyEmpty'),
    creditsPerRow: z.number(),
    estimatedCredits: z.number(),
    balance: z.number().describe("The organization's credit balance"),
    sufficient: z.boolean(),
  })
  .meta({ id: 'RunEstimate' });

/** POST /api/tables/{tableId}/columns/{columnId}/estimate: what running the column would take. */
export const estimateRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tables/:tableId/columns/:columnId/estimate',
    {
      config: { access: 'columns:run' },
      schema: {
        operationId: 'estimateColumnRun',
        tags: ['columns'],
        summary: 'Estimate a run of a column: rows, eligibility, credits',
        description:
          "Candidates are the rows in scope; onlyEmpty skips those whose cell already holds a value; the column's " +
          'saved config.runCondition then decides eligibility (true only). Credits per row come from the price table.',
        params: ColumnParams,
        body: EstimateBody,
        response: { 200: EstimateSchema },
      },
    },
    async (request) => {
      const { tableId, columnId } = request.params;
      const principal = principalOf(request);
      const columns = await readableColumns(deps.pool, principal, tableId);
      const column = columns.find((c) => c.id === columnId);
      if (!column) throw columnNotFound(tableId, columnId);

      const counts = await countEligible(
        deps.pool,
        principal.organizationId,
        columns,
        column,
        tableId,
        request.body,
      );
      const perRow = creditsPerRow(column.config);
      const estimatedCredits = counts.eligible * perRow;
      const balance = counts.balance ?? 0;
      return {
        candidates: counts.candidates,
        eligible: counts.eligible,
        skippedByCondition: counts.candidates - counts.filled - counts.eligible,
        skippedNotEmpty: counts.filled,
        creditsPerRow: perRow,
        estimatedCredits,
        balance,
        sufficient: balance >= estimatedCredits,
      };
    },
  );
};

/**
 * The estimate's counts in one statement (one snapshot): the rows in scope (for `all` the count the
 * read model keeps), those onlyEmpty skips, and the eligible ones among the rest; with the balance.
 */
async function countEligible(
  pool: Pool,
  organizationId: string,
  columns: readonly Column[],
  column: Column,
  tableId: string,
  scope: RunScope,
): Promise<{ candidates: number; filled: number; eligible: number; balance: number | null }> {
  const { params, inScope, all, filled, eligible } = eligibility(columns, column, tableId, scope);
  const everyCandidate = eligible === 'TRUE' && filled === 'FALSE';
  if (all && everyCandidate) {
    // Every row of the table, none skipped: the count the read model keeps (the scope's SQL unused).
    const { rows } = await pool.query<{ candidates: string | null; balance: number | null }>(
      `SELECT (SELECT row_count FROM ${ROW_STORAGE} WHERE table_id = $1) AS candidates,
              (SELECT credit_balance FROM ${ORGANIZATIONS} WHERE organization_id = $2) AS balance`,
      [tableId, organizationId],
    );
    const candidates = Number(rows[0]!.candidates ?? 0);
    return { candidates, filled: 0, eligible: candidates, balance: rows[0]!.balance };
  }
  const balance = `(SELECT credit_balance FROM ${ORGANIZATIONS} WHERE organization_id = ${params.add(organizationId)})`;
  const count = (where: string) => `(SELECT count(*) FROM ${ROWS} r WHERE ${inScope} AND ${where})`;
  // Without onlyEmpty, the eligible rows are counted by the statement itself (the scan PostgreSQL may
  // share among workers, and the key conditions in its WHERE for the indexes), the rows in scope beside
  // it; with onlyEmpty, the rows in scope are scanned once for the three counts.
  const text =
    filled === 'FALSE'
      ? `SELECT ${all ? `coalesce((SELECT row_count FROM ${ROW_STORAGE} WHERE table_id = ${params.add(tableId)}), 0)` : count('TRUE')} AS candidates,
                0 AS filled, count(*) AS eligible, ${balance} AS balance
         FROM ${ROWS} r WHERE ${inScope} AND ${eligible}`
      : `SELECT count(*) AS candidates, count(*) FILTER (WHERE ${filled}) AS filled,
                count(*) FILTER (WHERE NOT ${filled} AND ${eligible}) AS eligible, ${balance} AS balance
         FROM ${ROWS} r WHERE ${inScope}`;
  const { rows } = await pool.query<{
    candidates: string;
    filled: string;
    eligible: string | null;
    balance: number | null;
  }>(text, params.values);
  const counts = rows[0]!;
  const candidateCount = Number(counts.candidates);
  return {
    candidates: candidateCount,
    filled: Number(counts.filled),
    eligible: Number(counts.eligible),
    balance: counts.balance,
  };
}
