import { insertRowsAs } from '../../commands/rows/insert-rows.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { batchIdFor } from '../../src/domain/rows/ids.ts';
import type { RunCreatedData } from '../../src/domain/runs/events.ts';
import type { RowWriter } from './executor.ts';

/**
 * What a run's executors write rows with (sync_to_table): the rows API's own insert, in the run's
 * organization, so the destination checks the values as the API does and its auto-run sees the rows.
 * The batch id comes from the call's batchKey (the run and row): a row worked again after a crash
 * answers the rows it wrote the first time instead of writing them again.
 */
export const runRowWriter = (deps: ServiceDeps, run: RunCreatedData): RowWriter => ({
  async insert({ tableId, rows, upsertOn, batchKey }) {
    const { results } = await insertRowsAs(deps, {
      tableId,
      organizationId: run.organizationId,
      cells: rows.map((r) => r.cells),
      upsertOn,
      metadata: { correlationId: batchKey, actor: `run:${run.runId}` },
      batchId: batchIdFor(Date.parse(run.at), batchKey),
    });
    return { rowIds: results.map((r) => r.id) };
  },
});
