import { rowCommands } from '../../commands/rows/index.ts';
import { rowIndexesWorker } from '../../processes/rows/row-indexes.ts';
import { rowsProjection } from '../../projections/rows/rows.ts';
import { rowQueries } from '../../queries/rows/index.ts';
import { rowBatchStream, rowStream } from '../../src/domain/rows/row-state.ts';
import type { Feature } from '../../src/feature.ts';

/** The rows of research tables: cells, their status, and the one condition evaluator. */
export const rowsFeature: Feature = {
  name: 'rows',
  streams: [rowBatchStream, rowStream],
  commands: rowCommands,
  queries: rowQueries,
  projections: [rowsProjection],
  // Builds and drops the rows read model's indexes off its transactions (projections/rows/storage.ts).
  workers: [rowIndexesWorker],
};
