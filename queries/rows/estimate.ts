import { z } from 'zod';
import { creditsPerRow } from '../../processes/runs/providers/index.ts';
import { ORGANIZATIONS } from '../../projections/accounts/organizations.ts';
import { ROWS } from '../../projections/rows/rows.ts';
import { columnNotFound } from '../../src/domain/tables/access.ts';
import { ColumnParams } from '../../src/domain/tables/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { eligibility } from './eligibility.ts';
import { EstimateBody } from './run-scope.ts';
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

      const { params, inScope, filled, eligible } = eligibility(columns, column, tableId, request.body);
      const { rows } = await deps.pool.query<{
        candidates: number;
        filled: number;
        eligible: number;
        balance: number | null;
      }>(
        `SELECT count(*)::int AS candidates,
                count(*) FILTER (WHERE ${filled})::int AS filled,
                count(*) FILTER (WHERE NOT ${filled} AND (${eligible}) IS TRUE)::int AS eligible,
                (SELECT credit_balance FROM ${ORGANIZATIONS} WHERE organization_id = ${params.add(principal.organizationId)}) AS balance
         FROM ${ROWS} r WHERE ${inScope}`,
        params.values,
      );
      const counts = rows[0]!;
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
